package jobsynctest

import (
	"fmt"

	"github.com/jobsync/jobsync/jobsync/jobsynctest/apirules"
)

// Event dispatch: what each event of the queue does to the world.

// handle carries out a non-sync event.
func (c *Cluster) handle(ev event) StepRecord {
	switch ev.kind {
	case evPodStart:
		return c.startPod(c.pods[ev.uid])
	case evPodExit:
		return c.exitPod(c.pods[ev.uid])
	case evPodDisrupt:
		return c.disruptPod(c.pods[ev.uid])
	case evPodStop:
		return c.stopPod(c.pods[ev.uid])
	case evPodDeleteByOther:
		sp := c.pods[ev.uid]
		c.result.Faults.PodDeletes++
		c.deletePod(sp)
		return StepRecord{Kind: KindPodDeleted, Pod: sp.obj.Name, Detail: "deleted by another actor"}
	case evPodRemove:
		sp := c.pods[ev.uid]
		if sp == nil || !apirules.Removed(sp.obj) {
			return StepRecord{Kind: KindPodRemoved, Detail: "nothing to remove"}
		}
		delete(c.pods, ev.uid)
		c.emitPod(sp.obj, true)
		return StepRecord{Kind: KindPodRemoved, Pod: sp.obj.Name}
	case evInformerPods:
		c.podStream.stalled = false
		c.flush()
		return StepRecord{Kind: KindInformer, Detail: "pod watch"}
	case evInformerJob:
		c.jobStream.stalled = false
		c.flush()
		return StepRecord{Kind: KindInformer, Detail: "Job watch"}
	case evInformerAll:
		c.podStream.stalled, c.jobStream.stalled = false, false
		c.flush()
		return StepRecord{Kind: KindInformer, Detail: "pod and Job watches"}
	case evJobChange:
		return c.changeJob(c.cfg.Faults.JobChanges[ev.change])
	case evTTLCheck:
		return c.ttlCheck()
	case evJobRemove:
		if c.job == nil || c.job.DeletionTimestamp == nil || len(c.pods) > 0 {
			return StepRecord{Kind: KindJobRemoved, Detail: "nothing to remove"}
		}
		old := c.job
		c.job = nil
		c.emitJob(old, true)
		return StepRecord{Kind: KindJobRemoved}
	}
	panic(fmt.Sprintf("jobsynctest: unknown event kind %d", ev.kind))
}
