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
func (sync *syncState) countFinished(census *podCensus, prev backoff.Record) (finishedCounts, error) {
	nf := sync.newlyFinished(census)
	c := finishedCounts{backoff: prev}
	switch {
	case len(nf.failed) > 0:
		c.backoff = prev.Update(sync.succeededPods(census, nf), nf.failed)
	case nf.succeeded > 0:
		// Successes alone reset the record whatever their finish times
		// (Record.Update): no list of them is needed.
		c.backoff = prev.Update(nf.anySucceeded, nil)
	}
	var err error
	if c.succeeded, err = addCounts("job.status.succeeded", int(sync.job.Status.Succeeded), nf.succeeded, len(census.uncountedSucceeded)); err != nil {
		return finishedCounts{}, err
	}
	if c.failed, err = addCounts("job.status.failed", int(sync.job.Status.Failed), nf.failedCounting, len(census.uncountedFailed)); err != nil {
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

// newlyFinishedPods is what newlyFinished finds: how many tracked pods
// succeeded since the last count (anySucceeded holds the first of them),
// the ones that failed, and how many of those count.
type newlyFinishedPods struct {
	succeeded      int
	anySucceeded   []*corev1.Pod
	failed         []*corev1.Pod
	failedCounting int
}

// newlyFinished finds the tracked pods that finished since the last count
// and are not yet in uncountedTerminatedPods: succeeded ones and failed ones
// (the latter whatever a pod failure policy says of them), and how many of
// the failed ones count (those a pod failure policy does not ignore). For
// Indexed Jobs, pods without a valid index are left out. The succeeded pods
// are only counted: a long Job has thousands, and only the backoff record
// reads them, when pods failed too (succeededPods lists them then).
func (sync *syncState) newlyFinished(census *podCensus) newlyFinishedPods {
	var nf newlyFinishedPods
	for i := range census.finishedOrDeleting {
		r := &census.finishedOrDeleting[i]
		succeeded, failed := sync.isNewlyFinished(census, r)
		if succeeded {
			if nf.succeeded == 0 {
				nf.anySucceeded = []*corev1.Pod{r.pod}
			}
			nf.succeeded++
		} else if failed {
			nf.failed = appendDoubling(nf.failed, r.pod)
			if r.verdict().counts() {
				nf.failedCounting++
			}
		}
	}
	if n := census.newlyDone(); n > 0 {
		if nf.succeeded == 0 {
			nf.anySucceeded = []*corev1.Pod{census.anyNewlyDone()}
		}
		nf.succeeded += n
	}
	return nf
}

// newlyDone counts the held succeeded pods (census.succeeded) that newly
// succeeded: all but those whose finalizer removal is expected (no longer
// tracked) and those already in uncountedTerminatedPods.succeeded. Only
// the UIDs of these two short lists are looked up.
func (census *podCensus) newlyDone() int {
	n := census.succeeded.Len()
	if n == 0 {
		return 0
	}
	for uid := range census.expectedRemovals.All() {
		if census.succeeded.Has(uid) {
			n--
		}
	}
	for uid := range census.uncountedSucceeded {
		if census.succeeded.Has(uid) && !census.expectedRemovals.Has(uid) {
			n--
		}
	}
	return n
}

// isNewlyDone says whether held succeeded pod p newly succeeded.
func (census *podCensus) isNewlyDone(p *corev1.Pod) bool {
	return !census.expectedRemovals.Has(p.UID) && !census.uncountedSucceeded[p.UID]
}

// anyNewlyDone returns a held pod that newly succeeded (newlyDone > 0).
func (census *podCensus) anyNewlyDone() *corev1.Pod {
	for _, e := range census.succeeded.heap {
		if census.isNewlyDone(e.pod) {
			return e.pod
		}
	}
	return nil
}

// succeededPods lists the newly succeeded pods newlyFinished counted.
func (sync *syncState) succeededPods(census *podCensus, nf newlyFinishedPods) []*corev1.Pod {
	if nf.succeeded == 0 {
		return nil
	}
	out := make([]*corev1.Pod, 0, nf.succeeded)
	for i := range census.finishedOrDeleting {
		r := &census.finishedOrDeleting[i]
		if succeeded, _ := sync.isNewlyFinished(census, r); succeeded {
			out = append(out, r.pod)
		}
	}
	if census.succeeded != nil {
		for _, e := range census.succeeded.heap {
			if census.isNewlyDone(e.pod) {
				out = append(out, e.pod)
			}
		}
	}
	return out
}

// isNewlyFinished says whether the pod of r newly succeeded or newly
// failed: it is tracked, has a valid index (Indexed Jobs), and is not yet
// in uncountedTerminatedPods as such.
func (sync *syncState) isNewlyFinished(census *podCensus, r *podRecord) (succeeded, failed bool) {
	if !r.tracked || (sync.indexed && !r.validIndex) {
		return false, false
	}
	// The sets are empty in most syncs: their emptiness is asked first,
	// so that the pod (a cache miss in a long Job) is not read for its UID.
	if r.succeeded {
		return len(census.uncountedSucceeded) == 0 || !census.uncountedSucceeded[r.pod.UID], false
	}
	return false, r.failed && (len(census.uncountedFailed) == 0 || !census.uncountedFailed[r.pod.UID])
}
