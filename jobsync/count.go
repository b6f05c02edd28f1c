package jobsync

import (
	corev1 "k8s.io/api/core/v1"
)

// newlyFinished returns the tracked pods that finished since the last count
// and are not yet in uncountedTerminatedPods: succeeded ones and failed ones
// (the latter whatever a pod failure policy says of them), and how many of
// the failed ones count (those a pod failure policy does not ignore). For
// Indexed Jobs, pods without a valid index are left out.
func (x *syncState) newlyFinished() (succeeded, failed []*corev1.Pod, failedCounting int) {
	for i := range x.finishedOrDeleting {
		r := &x.finishedOrDeleting[i]
		if !r.tracked || (x.indexed && !r.validIndex) {
			continue
		}
		if r.succeeded {
			if !x.uncountedSucceeded[r.pod.UID] {
				succeeded = append(succeeded, r.pod)
			}
		} else if r.failed && !x.uncountedFailed[r.pod.UID] {
			failed = append(failed, r.pod)
			if r.verdict.counts() {
				failedCounting++
			}
		}
	}
	return succeeded, failed, failedCounting
}
