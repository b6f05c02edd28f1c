package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
)

// tracked reports whether a pod still has to be accounted for by this
// controller: it carries the tracking finalizer and its removal is not
// already under way.
func (x *syncState) tracked(p *corev1.Pod) bool {
	return hasFinalizer(p, x.opts.TrackingFinalizer) && !x.expectedRemovals.Has(p.UID)
}

// validIndex returns the pod's completion index when it is usable, below
// completions, and false otherwise. Only for Indexed Jobs, whose
// completions are set (checkJob).
func (x *syncState) validIndex(p *corev1.Pod) (int, bool) {
	ix := indexes.Of(p.Annotations)
	return ix, ix != indexes.Unknown && ix < int(*x.job.Spec.Completions)
}

// hasValidIndex is validIndex without the index, for Indexed Jobs only.
func (x *syncState) hasValidIndex(p *corev1.Pod) bool {
	_, ok := x.validIndex(p)
	return ok
}

// isFailed reports whether a pod counts as failed: it is in the Failed
// phase, or, unless only failed pods are replaced, it is being deleted
// without having succeeded (orphaned pods may never reach a terminal phase).
func (x *syncState) isFailed(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	if onlyReplaceFailed(x.job) {
		return false
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded
}

// onlyReplaceFailed reports whether pods are replaced only once they are
// Failed, not while they terminate: podReplacementPolicy Failed, or any pod
// failure policy.
func onlyReplaceFailed(job *batchv1.Job) bool {
	if p := job.Spec.PodReplacementPolicy; p != nil && *p == batchv1.Failed {
		return true
	}
	return job.Spec.PodFailurePolicy != nil
}
