package jobsync

import (
	"math"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// This file reads the index failure counts that a pod of an Indexed Job
// with backoffLimitPerIndex carries in its annotations, for the index step
// and for the pods created to replace failed ones.

// failureCount reads the index failure count a pod carries; a missing,
// malformed, negative or out-of-range value reads as 0, as upstream reads it.
func failureCount(p *corev1.Pod) int32 {
	return annotationCount(p, batchv1.JobIndexFailureCountAnnotation)
}

func ignoredFailureCount(p *corev1.Pod) int32 {
	return annotationCount(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
}

// absoluteFailureCount is the pod's counted and ignored failures of its
// index together, summed in int32 as upstream sums them: two counts near the
// int32 limit (annotations no controller writes, but the API server stores)
// wrap to a negative sum, and the decisions that read the sum (the per-index
// backoff, which pod of an index is the last to fail) follow upstream's
// wrapped value rather than the true one.
func absoluteFailureCount(p *corev1.Pod) int32 {
	return failureCount(p) + ignoredFailureCount(p)
}

func annotationCount(p *corev1.Pod, key string) int32 {
	v, ok := p.Annotations[key]
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return 0
	}
	return int32(n)
}

// replacementFailureCounts returns the failure counts a pod replacing the
// failed pod of an index carries: the failed pod's counts plus its own
// failure, counted or ignored as the pod failure policy says.
func replacementFailureCounts(failed *podRecord) (count, ignored int32) {
	if failed == nil {
		return 0, 0
	}
	count, ignored = failureCount(failed.pod), ignoredFailureCount(failed.pod)
	if failed.verdict().counts() {
		count = saturatingInc(count)
	} else {
		ignored = saturatingInc(ignored)
	}
	return count, ignored
}

func saturatingInc(v int32) int32 {
	if v == math.MaxInt32 {
		return v
	}
	return v + 1
}
