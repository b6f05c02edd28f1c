package jobsync

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
)

// finishedCounts is what the count step finds: the Job's succeeded and
// failed pods counted so far, this sync's newly finished ones included
// (failures a pod failure policy ignores left out), and the pod-failure
// backoff record updated with them.
type finishedCounts struct {
	succeeded, failed int32
	backoff           backoff.Record
}

// countFinished adds the newly finished pods and those already recorded in
// uncountedTerminatedPods to the status counters, and updates the backoff
// record prev with the newly finished pods. It fails only when a counter
// would pass int32.
func (sync *syncState) countFinished(view *podView, prev backoff.Record) (finishedCounts, error) {
	newSucceeded, newFailed, failedCounting := sync.newlyFinished(view)
	c := finishedCounts{backoff: prev.Update(newSucceeded, newFailed)}
	var err error
	if c.succeeded, err = addCounts("job.status.succeeded", int(sync.job.Status.Succeeded), len(newSucceeded), len(view.uncountedSucceeded)); err != nil {
		return finishedCounts{}, err
	}
	if c.failed, err = addCounts("job.status.failed", int(sync.job.Status.Failed), failedCounting, len(view.uncountedFailed)); err != nil {
		return finishedCounts{}, err
	}
	return c, nil
}

// withIndexes returns the counts with, for an Indexed Job, the succeeded
// count taken from the succeeded indexes: an index counts once however many
// of its pods succeeded.
func (c finishedCounts) withIndexes(progress indexProgress, indexed bool) finishedCounts {
	if indexed {
		c.succeeded = int32(progress.succeeded.Total())
	}
	return c
}

// newlyFinished returns the tracked pods that finished since the last count
// and are not yet in uncountedTerminatedPods: succeeded ones and failed ones
// (the latter whatever a pod failure policy says of them), and how many of
// the failed ones count (those a pod failure policy does not ignore). For
// Indexed Jobs, pods without a valid index are left out.
func (sync *syncState) newlyFinished(view *podView) (succeeded, failed []*corev1.Pod, failedCounting int) {
	for i := range view.finishedOrDeleting {
		r := &view.finishedOrDeleting[i]
		if !r.tracked || (sync.indexed && !r.validIndex) {
			continue
		}
		if r.succeeded {
			if !view.uncountedSucceeded[r.pod.UID] {
				succeeded = appendDoubling(succeeded, r.pod)
			}
		} else if r.failed && !view.uncountedFailed[r.pod.UID] {
			failed = appendDoubling(failed, r.pod)
			if r.verdict().counts() {
				failedCounting++
			}
		}
	}
	return succeeded, failed, failedCounting
}
