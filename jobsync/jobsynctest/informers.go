package jobsynctest

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// The informers: watch streams that may stall, and the handlers that
// update the controller's view and lower its expectations.

// emitPod and emitJob put a change on its watch stream. A stream that is
// not stalled may stall now (Faults.StaleView); one that is not stalled
// delivers at once unless a sync is under way.
func (c *Cluster) emitPod(p *corev1.Pod, deleted bool) {
	c.emit(&c.podStream, watchEvent{deleted: deleted, pod: p}, evInformerPods)
}

func (c *Cluster) emitJob(j *batchv1.Job, deleted bool) {
	c.emit(&c.jobStream, watchEvent{deleted: deleted, job: j}, evInformerJob)
}

func (c *Cluster) emit(s *stream, ev watchEvent, kind evKind) {
	s.queue = append(s.queue, ev)
	f := &c.cfg.Faults
	switch {
	case !c.podStream.stalled && !c.jobStream.stalled && f.StaleView > 0 && c.rng.Float64() < f.StaleView:
		// Both watches stall together: the view is a consistent picture
		// of the past.
		c.podStream.stalled, c.jobStream.stalled = true, true
		c.result.Faults.Stalls++
		c.schedule(event{at: c.now.Add(c.lag()), kind: evInformerAll})
	case !s.stalled && f.SkewedView > 0 && c.rng.Float64() < f.SkewedView:
		s.stalled = true
		c.result.Faults.Stalls++
		c.schedule(event{at: c.now.Add(c.lag()), kind: kind})
	}
	if !c.holding {
		c.flush()
	}
}

// lag draws how long a stalled watch holds its events: whole seconds up to
// MaxLag.
func (c *Cluster) lag() time.Duration {
	if c.maxLag <= time.Second {
		return c.maxLag
	}
	return time.Duration(1+c.rng.Int64N(int64(c.maxLag/time.Second))) * time.Second
}

// flush delivers what the streams that are not stalled hold.
func (c *Cluster) flush() {
	if !c.jobStream.stalled {
		q := c.jobStream.queue
		c.jobStream.queue = nil
		for _, ev := range q {
			c.deliverJob(ev)
		}
	}
	if !c.podStream.stalled {
		q := c.podStream.queue
		c.podStream.queue = nil
		for _, ev := range q {
			c.deliverPod(ev)
		}
	}
}

// deliverJob is the Job informer's event handler.
func (c *Cluster) deliverJob(ev watchEvent) {
	if ev.deleted {
		c.view.setJob(nil)
		// The Job's memory goes with it, as upstream (v1.37) drops a
		// deleted Job's expectations in its deletion handler: a new Job of
		// the same name must not wait for what the old one expected.
		c.mem = memory{}
		return
	}
	c.view.setJob(ev.job)
	c.requestSync(c.now)
}

// deliverPod is the pod informer's event handler: it updates the view and
// lowers the expectations by what the event shows, as a controller built
// on jobsync does (jobsync.Observe, upstream's handlers' rules).
func (c *Cluster) deliverPod(ev watchEvent) {
	p := ev.pod
	old := c.view.get(p.UID)
	if ev.deleted {
		c.view.remove(p.UID)
	} else {
		c.view.put(p)
		if old != nil && old.ResourceVersion == p.ResourceVersion {
			return
		}
	}
	o := jobsync.Observe(c.view.job, jobsync.PodEvent{Old: old, Pod: p, Deleted: ev.deleted}, c.opts)
	c.mem.exp = o.Lower(c.mem.exp)
	c.requestSync(c.now.Add(podBatchPeriod))
}

func (c *Cluster) controlled(p *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && c.lastJob != nil && ref.UID == c.lastJob.UID
}
