package jobsync

import (
	"cmp"
	"math/bits"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/indexes"
)

// indexProgress is what the index step finds for an Indexed Job (the zero
// value for a NonIndexed one).
type indexProgress struct {
	// prevSucceeded holds the indexes of status.completedIndexes; succeeded
	// adds those of succeeded pods still carrying the tracking finalizer.
	prevSucceeded, succeeded indexes.Set
	// failed holds the failed indexes, with backoffLimitPerIndex only.
	failed indexes.Set
	// delayedRemoval maps an index to the failed pod whose finalizer stays
	// until its replacement carries the index failure count, with
	// backoffLimitPerIndex only.
	delayedRemoval map[int]*podRecord
}

// indexProgress works out, for an Indexed Job, the succeeded and failed
// indexes and which failed pods wait for their replacement.
func (sync *syncState) indexProgress(census *podCensus) indexProgress {
	var progress indexProgress
	if !sync.indexed {
		return progress
	}
	progress.prevSucceeded, progress.succeeded = sync.succeededIndexes(census)
	if sync.perIndex {
		progress.failed = sync.failedIndexes(census)
		progress.delayedRemoval = delayedRemovals(census, progress.succeeded, progress.failed)
	}
	return progress
}

// succeededIndexes reads status.completedIndexes (leniently, as upstream
// does) and returns it, and it with the valid indexes of succeeded pods
// that still carry the tracking finalizer.
func (sync *syncState) succeededIndexes(census *podCensus) (prev, now indexes.Set) {
	prev = indexes.ParseLenient(sync.job.Status.CompletedIndexes, int(*sync.job.Spec.Completions))
	counts := func(r *podRecord) bool { return r.succeeded && r.finalizer && r.validIndex }
	n := 0
	for i := range census.finishedOrDeleting {
		if counts(&census.finishedOrDeleting[i]) {
			n++
		}
	}
	if n == 0 {
		return prev, prev.WithIndexes(nil)
	}
	add := make([]int, 0, n)
	for i := range census.finishedOrDeleting {
		if r := &census.finishedOrDeleting[i]; counts(r) {
			add = append(add, r.index)
		}
	}
	return prev, prev.WithIndexes(sortIndexes(add, int(*sync.job.Spec.Completions)))
}

// sortIndexes returns valid indexes (each below completions) in ascending
// order, maybe without their repeats, reusing ixs: a bitset of the
// completions sorts them in O(len + completions/64) when that is less than
// a comparison sort's O(len log len), as in a long Job where thousands of
// pods succeed between syncs.
func sortIndexes(ixs []int, completions int) []int {
	if len(ixs) < 64 || completions/64 > len(ixs) {
		slices.Sort(ixs)
		return ixs
	}
	words := make([]uint64, (completions+63)/64)
	for _, ix := range ixs {
		words[ix/64] |= 1 << (ix % 64)
	}
	out := ixs[:0]
	for w, x := range words {
		for x != 0 {
			out = append(out, w*64+bits.TrailingZeros64(x))
			x &= x - 1
		}
	}
	return out
}

// failedIndexes reads status.failedIndexes and adds the indexes of pods
// with the tracking finalizer whose failure fails their index.
func (sync *syncState) failedIndexes(census *podCensus) indexes.Set {
	var prev indexes.Set
	if sync.job.Status.FailedIndexes != nil {
		prev = indexes.ParseLenient(*sync.job.Status.FailedIndexes, int(*sync.job.Spec.Completions))
	}
	var add []int
	for i := range census.finishedOrDeleting {
		if r := &census.finishedOrDeleting[i]; r.finalizer && r.validIndex && sync.failsIndex(r) {
			add = append(add, r.index)
		}
	}
	return prev.WithIndexes(sortIndexes(add, int(*sync.job.Spec.Completions)))
}

// failsIndex reports whether a pod's failure fails its index: a FailIndex
// rule matched it, or it counts and the index had already used up its
// backoffLimitPerIndex.
func (sync *syncState) failsIndex(r *podRecord) bool {
	switch {
	case !r.failed:
		return false
	case r.verdict().action == batchv1.PodFailurePolicyActionFailIndex:
		return true
	case !r.verdict().counts():
		return false
	}
	return failureCount(r.pod) >= *sync.job.Spec.BackoffLimitPerIndex
}

// delayedRemovals finds, for each index that has not succeeded, has not
// failed and has no active pod, the failed pod whose finalizer must stay
// until a replacement is created carrying the index's failure count.
//
// Upstream folds over the index's failed pods in its listing order, the
// pod at hand replacing the current choice when its failure count is not
// lower and its finish time not earlier. That is not a total order: when an
// earlier-finished pod has the higher count (a deleting pod counted as
// failed finishes at its Ready=False transition, say), the result depends
// on the order. The fold is made here over the canonical listing order
// (the Job's own pods before adopted ones, then creation time, name and
// UID), the order in which the conformance module hands pods to upstream.
func delayedRemovals(census *podCensus, succeeded, failed indexes.Set) map[int]*podRecord {
	delayed := make(map[int]*podRecord)
	var cands []*podRecord
	for i := range census.finishedOrDeleting {
		r := &census.finishedOrDeleting[i]
		if !r.tracked || !r.failed || !r.validIndex {
			continue
		}
		if ix := r.index; succeeded.Has(ix) || failed.Has(ix) || census.hasActiveIndex(ix) {
			continue
		}
		cands = append(cands, r)
	}
	slices.SortFunc(cands, func(a, b *podRecord) int {
		if c := cmp.Compare(a.index, b.index); c != 0 {
			return c
		}
		if c := compareAdopted(a.adopted, b.adopted); c != 0 {
			return c
		}
		return compareByAge(a.pod, b.pod)
	})
	for _, c := range cands {
		if cur, seen := delayed[c.index]; !seen || replacesLastFailure(c.pod, cur.pod) {
			delayed[c.index] = c
		}
	}
	return delayed
}

// replacesLastFailure is upstream's step of the fold: failed pod p, met
// after cur, becomes the index's last failure when its failure count is at
// least cur's and it did not finish before cur.
func replacesLastFailure(p, cur *corev1.Pod) bool {
	return absoluteFailureCount(p) >= absoluteFailureCount(cur) && !backoff.FinishTime(p).Before(backoff.FinishTime(cur))
}
