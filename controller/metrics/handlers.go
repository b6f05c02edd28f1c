package metrics

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TerminatedEvent says whether a pod, from old to cur as the informer saw
// it, became a terminated pod carrying finalizer (EventAdd) or stopped
// being one (EventDelete), or neither (""). A nil pod is none.
func TerminatedEvent(old, cur *corev1.Pod, finalizer string) string {
	was, is := terminatedWith(old, finalizer), terminatedWith(cur, finalizer)
	switch {
	case was == is:
		return ""
	case is:
		return EventAdd
	}
	return EventDelete
}

func terminatedWith(pod *corev1.Pod, finalizer string) bool {
	if pod == nil {
		return false
	}
	finished := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	return finished && slices.Contains(pod.Finalizers, finalizer)
}

// ExternalController returns the spec.managedBy of a Job managed by
// another controller than Kubernetes' built-in one, and false for a Job
// the built-in one manages.
func ExternalController(job *batchv1.Job) (string, bool) {
	if job == nil || job.Spec.ManagedBy == nil || *job.Spec.ManagedBy == batchv1.JobControllerName {
		return "", false
	}
	return *job.Spec.ManagedBy, true
}
