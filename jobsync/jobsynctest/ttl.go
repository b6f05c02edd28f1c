package jobsynctest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// ttlCheck is one look of the TTL-after-finished controller at the Job as
// the API server holds it: it deletes the Job (foreground) once its TTL
// has run out, and otherwise looks again when it will.
func (c *Cluster) ttlCheck() StepRecord {
	rec := StepRecord{Kind: KindTTL}
	if c.job == nil {
		rec.Detail = "the Job is gone"
		return rec
	}
	d, err := jobsync.TTLAfterFinished(c.job, c.now)
	switch {
	case err != nil:
		rec.Detail = "cannot decide: " + err.Error()
	case d.Delete:
		rec.Kind = KindJobDeleted
		rec.Detail = "the TTL-after-finished controller deletes the Job: " + d.Reason
		j := c.job.DeepCopy()
		now := metav1.NewTime(c.now)
		j.DeletionTimestamp = &now
		j.Finalizers = append(j.Finalizers, metav1.FinalizerDeleteDependents)
		c.storeJob(j)
		c.result.TTLDeletedAt = c.now
	case d.RequeueAfter > 0:
		rec.Detail = d.Reason
		c.schedule(event{at: c.now.Add(d.RequeueAfter), kind: evTTLCheck})
	default:
		rec.Detail = d.Reason
	}
	return rec
}
