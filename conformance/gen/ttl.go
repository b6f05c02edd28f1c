package gen

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// --- ttl-after-finished: the TTL controller's decision on a Job ---

// familyTTLAfterFinished makes Jobs for the TTL-after-finished controller:
// finished (Complete or Failed) or not, with and without
// ttlSecondsAfterFinished (0, short, long, expiring exactly now), finish
// times in the past and, through clock skew, in the future, a terminal
// condition without a transition time, Jobs being deleted, and a fresh read
// from the API server that differs from the informer's copy (the TTL
// changed or removed, the Job deleted meanwhile).
func familyTTLAfterFinished(g *G) {
	g.ttlCase = true
	g.newJob(shape{completions: i32(g.between(1, 4)), parallelism: i32(g.between(1, 3))})
	finished := g.now.Add(-g.secs(0, 3600))
	if g.chance(0.1) {
		finished = g.now.Add(g.secs(1, 600)) // clock skew: finished in this clock's future
	}
	switch x := g.r.Float64(); {
	case x < 0.15:
		// Not finished: maybe an interim condition only.
		if g.chance(0.5) {
			g.condition(batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", finished)
		}
	case x < 0.2:
		// A terminal condition that is not true.
		g.condition(batchv1.JobComplete, corev1.ConditionFalse, "", "", finished)
	default:
		g.finishedJob()
		for i := range g.job.Status.Conditions {
			c := &g.job.Status.Conditions[i]
			if c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed {
				c.LastTransitionTime = metav1.NewTime(finished)
				if g.chance(0.03) {
					c.LastTransitionTime = metav1.Time{} // lost: upstream errs
				}
			}
		}
	}
	var ttl *int32
	switch x := g.r.Float64(); {
	case x < 0.1:
	case x < 0.25:
		ttl = ptr.To[int32](0)
	case x < 0.4:
		// Expiring exactly now, or a second either side.
		ttl = ptr.To(int32(g.now.Sub(finished)/time.Second) + int32(g.between(-1, 1)))
		if *ttl < 0 {
			*ttl = 0
		}
	case x < 0.85:
		ttl = ptr.To(int32(g.between(1, 3600)))
	default:
		ttl = ptr.To(int32(g.between(3600, 7*24*3600)))
	}
	g.job.Spec.TTLSecondsAfterFinished = ttl
	if g.chance(0.05) {
		dt := metav1.NewTime(g.now.Add(-g.secs(0, 60)))
		g.job.DeletionTimestamp = &dt
	}
	if g.chance(0.25) {
		fresh := g.job.DeepCopy()
		switch g.between(0, 3) {
		case 0:
			fresh.Spec.TTLSecondsAfterFinished = ptr.To(int32(g.between(0, 7200)))
		case 1:
			fresh.Spec.TTLSecondsAfterFinished = nil
		case 2:
			dt := metav1.NewTime(g.now.Add(-g.secs(0, 5)))
			fresh.DeletionTimestamp = &dt
		case 3:
			fresh.Status.Conditions = nil // restarted by its manager: not finished
		}
		g.ttlFresh = fresh
	}
}
