package jobsync

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
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
func (sync *syncState) indexProgress(view *podView) indexProgress {
	var progress indexProgress
	if !sync.indexed {
		return progress
	}
	progress.prevSucceeded, progress.succeeded = sync.succeededIndexes(view)
	if sync.perIndex {
		progress.failed = sync.failedIndexes(view)
		progress.delayedRemoval = delayedRemovals(view, progress.succeeded, progress.failed)
	}
	return progress
}

// succeededIndexes reads status.completedIndexes (leniently, as upstream
// does) and returns it, and it with the valid indexes of succeeded pods
// that still carry the tracking finalizer.
func (sync *syncState) succeededIndexes(view *podView) (prev, now indexes.Set) {
	prev = indexes.ParseLenient(sync.st.CompletedIndexes, int(*sync.job.Spec.Completions))
	var add []int
	for i := range view.finishedOrDeleting {
		if r := &view.finishedOrDeleting[i]; r.succeeded && r.finalizer && r.validIndex {
			add = append(add, r.index)
		}
	}
	slices.Sort(add)
	return prev, prev.WithIndexes(add)
}

// failedIndexes reads status.failedIndexes and adds the indexes of pods
// with the tracking finalizer whose failure fails their index.
func (sync *syncState) failedIndexes(view *podView) indexes.Set {
	var prev indexes.Set
	if sync.st.FailedIndexes != nil {
		prev = indexes.ParseLenient(*sync.st.FailedIndexes, int(*sync.job.Spec.Completions))
	}
	var add []int
	for i := range view.finishedOrDeleting {
		if r := &view.finishedOrDeleting[i]; r.finalizer && r.validIndex && sync.failsIndex(r) {
			add = append(add, r.index)
		}
	}
	slices.Sort(add)
	return prev.WithIndexes(add)
}

// failsIndex reports whether a pod's failure fails its index: a FailIndex
// rule matched it, or it counts and the index had already used up its
// backoffLimitPerIndex.
func (sync *syncState) failsIndex(r *podRecord) bool {
	switch {
	case !r.failed:
		return false
	case r.verdict.action == batchv1.PodFailurePolicyActionFailIndex:
		return true
	case !r.verdict.counts():
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
func delayedRemovals(view *podView, succeeded, failed indexes.Set) map[int]*podRecord {
	delayed := make(map[int]*podRecord)
	var cands []*podRecord
	for i := range view.finishedOrDeleting {
		r := &view.finishedOrDeleting[i]
		if !r.tracked || !r.failed || !r.validIndex {
			continue
		}
		if ix := r.index; succeeded.Has(ix) || failed.Has(ix) || view.activeIndexes.has(ix) {
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

// failureCount reads the index failure count a pod carries; a missing,
// malformed, negative or out-of-range value reads as 0, as upstream reads it.
func failureCount(p *corev1.Pod) int32 {
	return annotationCount(p, batchv1.JobIndexFailureCountAnnotation)
}

func ignoredFailureCount(p *corev1.Pod) int32 {
	return annotationCount(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
}

func absoluteFailureCount(p *corev1.Pod) int64 {
	return int64(failureCount(p)) + int64(ignoredFailureCount(p))
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
	if failed.verdict.counts() {
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

// indexedForRemoval picks, from the active pods of an Indexed Job, those to
// delete whatever the count, in upstream's order: pods without a valid
// index, then all but the best-placed pod of each repeated index (the one
// that comes last in the deletion order stays), then pods whose index is at
// or above completions, by index. The rest are returned in left.
func (sync *syncState) indexedForRemoval(pods []*corev1.Pod) (rm, left []*corev1.Pod) {
	completions := int(*sync.job.Spec.Completions)
	byIndex := make(map[int][]*corev1.Pod)
	var keys []int
	var unknown, outOfRange []*corev1.Pod
	for _, p := range pods {
		ix := indexes.Of(p.Annotations)
		switch {
		case ix == indexes.Unknown:
			unknown = append(unknown, p)
		case ix >= completions:
			outOfRange = append(outOfRange, p)
		default:
			if _, ok := byIndex[ix]; !ok {
				keys = append(keys, ix)
			}
			byIndex[ix] = append(byIndex[ix], p)
		}
	}
	slices.SortFunc(unknown, podorder.Compare)
	rm = append(rm, unknown...)
	slices.Sort(keys)
	for _, ix := range keys {
		group := byIndex[ix]
		if len(group) > 1 {
			slices.SortFunc(group, podorder.Compare)
			rm = append(rm, group[:len(group)-1]...)
		}
		left = append(left, group[len(group)-1])
	}
	slices.SortFunc(outOfRange, func(a, b *corev1.Pod) int {
		if c := cmp.Compare(indexes.Of(a.Annotations), indexes.Of(b.Annotations)); c != 0 {
			return c
		}
		return podorder.Compare(a, b)
	})
	rm = append(rm, outOfRange...)
	return rm, left
}
