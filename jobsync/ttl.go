package jobsync

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TTLDecision is what kube-controller-manager's TTL-after-finished
// controller decides for one Job at one moment (the Jobs documentation's
// "Clean up finished jobs automatically").
type TTLDecision struct {
	// Delete says the Job's time to live has run out: delete it now, with
	// DeleteOptions. Before deleting, upstream reads the Job afresh from the
	// API server and decides again on that copy (its TTL may have changed
	// since the informer saw it); do the same and delete only if that
	// decision still says Delete.
	Delete bool `json:"delete,omitempty"`
	// DeleteOptions are upstream's: foreground propagation (the Job goes
	// once its pods are gone) and the Job's UID as a precondition (a Job
	// recreated under the same name is not deleted).
	DeleteOptions *metav1.DeleteOptions `json:"deleteOptions,omitempty"`
	// FinishedAt is when the Job finished: the last transition of its
	// Complete or Failed condition. ExpiresAt is FinishedAt plus
	// ttlSecondsAfterFinished. Both are zero when the Job needs no cleanup.
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	ExpiresAt  time.Time `json:"expiresAt,omitzero"`
	// RequeueAfter, when positive, is how long from now to look again:
	// the time left until ExpiresAt. A changed TTL is picked up whenever
	// the caller looks again (upstream looks again on every update of the
	// Job), so this is the latest moment, not the only one.
	RequeueAfter time.Duration `json:"requeueAfter,omitempty"`
	// Reason says why, for people.
	Reason string `json:"reason"`
}

// TTLAfterFinished decides, for a Job and a clock reading, whether the TTL
// controller deletes the Job now, or when to look again. A Job that is
// being deleted, has no ttlSecondsAfterFinished, or has not finished
// (Complete or Failed condition True) needs nothing. A finished Job expires
// ttlSecondsAfterFinished after the last transition of its first true
// Complete or Failed condition; a finish time in the future (clock skew
// between the API server and this controller) defers the cleanup until the
// expiry has passed on this clock.
//
// A finished Job whose terminal condition has no transition time gets an
// error, as upstream's controller errs (and retries with its rate limit)
// for it.
func TTLAfterFinished(job *batchv1.Job, now time.Time) (TTLDecision, error) {
	if job == nil {
		return TTLDecision{}, inputErr("job", nil, "is nil")
	}
	switch {
	case job.DeletionTimestamp != nil:
		return TTLDecision{Reason: "the Job is being deleted"}, nil
	case job.Spec.TTLSecondsAfterFinished == nil:
		return TTLDecision{Reason: "the Job has no ttlSecondsAfterFinished"}, nil
	}
	cond := terminalCondition(job)
	if cond == nil {
		return TTLDecision{Reason: "the Job has not finished"}, nil
	}
	if cond.LastTransitionTime.IsZero() {
		return TTLDecision{}, inputErr(fmt.Sprintf("job.status.conditions[type=%s].lastTransitionTime", cond.Type), nil,
			"is missing: the time the Job finished is unknown")
	}
	ttl := time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second
	d := TTLDecision{FinishedAt: cond.LastTransitionTime.Time, ExpiresAt: cond.LastTransitionTime.Add(ttl)}
	left := d.ExpiresAt.Sub(now)
	if left > 0 {
		d.RequeueAfter = left
		d.Reason = fmt.Sprintf("the Job finished (%s) at %s; its TTL of %v runs out in %v", cond.Type, d.FinishedAt.UTC().Format(time.RFC3339), ttl, left)
		if d.FinishedAt.After(now) {
			d.Reason += " (it finished in the future of this clock: clock skew defers the cleanup)"
		}
		return d, nil
	}
	foreground := metav1.DeletePropagationForeground
	uid := job.UID
	d.Delete = true
	d.DeleteOptions = &metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: &metav1.Preconditions{UID: &uid}}
	d.Reason = fmt.Sprintf("the Job finished (%s) at %s and its TTL of %v ran out at %s", cond.Type, d.FinishedAt.UTC().Format(time.RFC3339), ttl, d.ExpiresAt.UTC().Format(time.RFC3339))
	return d, nil
}

// terminalCondition returns the first Complete or Failed condition that is
// true, or nil.
func terminalCondition(job *batchv1.Job) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		c := &job.Status.Conditions[i]
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}
