package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
)

// podRecord is what a sync needs to know of one pod of the Job that is
// terminal or being deleted (or, for a Job that is finishing, still active),
// read from the pod once, in classifyPod, so that no later step reads the
// pod again for it. Steps still read the pod itself for what only one of
// them needs once (finish time, failure-count annotations, deletion rank).
type podRecord struct {
	pod *corev1.Pod
	// index is the completion index a pod of an Indexed Job carries,
	// indexes.Unknown when it carries none or a malformed one; always
	// indexes.Unknown outside Indexed Jobs (whose pods may carry the
	// annotation from their template without it meaning anything).
	index int
	// validIndex says index is known and below completions.
	validIndex bool
	// succeeded is phase Succeeded; failed is isFailed: phase Failed, or
	// being deleted without having succeeded unless only failed pods are
	// replaced. terminating is being deleted without a terminal phase.
	succeeded, failed, terminating bool
	// finalizer says the pod carries the tracking finalizer; tracked that
	// it does and no removal of it is pending (in the expectations).
	finalizer, tracked bool
	// adopted says the pod is an orphan the Job adopts in this sync.
	adopted bool
	// policyVerdict is the pod failure policy's verdict on the pod, nil
	// without a policy and for succeeded pods, which no rule applies to
	// (see verdict). A pointer keeps the record small: the steps of a long
	// Job hold thousands, and every byte allocated per sync is paid again
	// by the garbage collector.
	policyVerdict *failureVerdict
}

// verdict returns the pod failure policy's verdict on the pod: no match
// (rule -1) when there is no policy or the pod succeeded.
func (r *podRecord) verdict() failureVerdict {
	if r.policyVerdict == nil {
		return failureVerdict{rule: -1}
	}
	return *r.policyVerdict
}

// classifyPod reads into a record what the steps after the scan need of a
// pod of the Job; adopted says it is an orphan adopted in this sync.
func (sync *syncState) classifyPod(p *corev1.Pod, adopted bool, expectedRemovals expectations.UIDSet) podRecord {
	r := podRecord{
		pod:         p,
		index:       indexes.Unknown,
		succeeded:   p.Status.Phase == corev1.PodSucceeded,
		failed:      sync.isFailed(p),
		terminating: p.DeletionTimestamp != nil && !isTerminal(p),
		finalizer:   hasFinalizer(p, sync.opts.TrackingFinalizer),
		adopted:     adopted,
	}
	r.tracked = r.finalizer && !expectedRemovals.Has(p.UID)
	if sync.indexed {
		r.index = indexes.Of(p.Annotations)
		r.validIndex = r.index != indexes.Unknown && r.index < int(*sync.job.Spec.Completions)
	}
	if policy := sync.job.Spec.PodFailurePolicy; policy != nil && !r.succeeded {
		// Upstream matches the policy against failed pods, and, once the
		// Job is failing, against every pod it then counts as failed.
		v := matchFailurePolicy(policy, p)
		r.policyVerdict = &v
	}
	return r
}

// isTerminal reports whether a pod is in a terminal phase.
func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// isActive reports whether a pod is active: neither terminal nor being
// deleted (upstream's controller.IsPodActive).
func isActive(p *corev1.Pod) bool {
	return !isTerminal(p) && p.DeletionTimestamp == nil
}

// isFailed reports whether a pod counts as failed: it is in the Failed
// phase, or, unless only failed pods are replaced, it is being deleted
// without having succeeded (orphaned pods may never reach a terminal phase).
func (sync *syncState) isFailed(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	if onlyReplaceFailed(sync.job) {
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
