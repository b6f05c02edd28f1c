package jobsync

import (
	corev1 "k8s.io/api/core/v1"
)

// newlyFinished returns the tracked pods that finished since the last count
// and are not yet in uncountedTerminatedPods: succeeded ones and failed ones
// (the latter whatever a pod failure policy says of them). For Indexed Jobs,
// pods without a valid index are left out.
func (x *syncState) newlyFinished() (succeeded, failed []*corev1.Pod) {
	for _, p := range x.done {
		if !x.tracked(p) {
			continue
		}
		if x.indexed {
			if _, ok := x.validIndex(p); !ok {
				continue
			}
		}
		if p.Status.Phase == corev1.PodSucceeded {
			if !x.uncountedSucceeded[p.UID] {
				succeeded = append(succeeded, p)
			}
		} else if x.isFailed(p) && !x.uncountedFailed[p.UID] {
			failed = append(failed, p)
		}
	}
	return succeeded, failed
}
