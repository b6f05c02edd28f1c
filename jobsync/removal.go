package jobsync

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// This file picks the active pods manage deletes, and says why.

// forRemoval returns at least n active pods to delete, in deletion order,
// each with its rank (which carries its readiness) and whether it carries
// the tracking finalizer: for Indexed Jobs first every pod with an invalid
// or repeated index, then as many of the others as needed.
//
// The deletion order is podorder's, a strict total order: which pods come
// first does not depend on the order of the snapshot's pods.
func (sync *syncState) forRemoval(census *podCensus, n int) []*candidate {
	if !census.indexTrouble {
		// NonIndexed, or every active pod has its own valid index: only
		// the surplus goes. (A steady sync never builds the list.)
		if n <= 0 {
			return nil
		}
		if rm, ok := census.shortlist.first(n); ok {
			return rm
		}
		if sync.indexed {
			return sync.candidatesOf(podorder.FirstRankedIndexed(census.activePods(), n))
		}
		return sync.candidatesOf(podorder.FirstRanked(census.activePods(), n))
	}
	pods, left := sync.indexedForRemoval(census.activePods())
	ranks := make([]podorder.Ranked, len(pods), max(len(pods), n))
	for i, p := range pods {
		ranks[i] = podorder.Rank(p) // for the readiness: they are ordered already
	}
	if len(pods) < n {
		ranks = append(ranks, podorder.FirstRankedIndexed(left, n-len(pods))...)
	}
	return sync.candidatesOf(ranks)
}

// repeatedActiveIndexes returns the valid indexes held by more than one
// active pod.
func (sync *syncState) repeatedActiveIndexes(active []*corev1.Pod) *indexSet {
	seen, repeated := newIndexSet(len(active)), newIndexSet(0)
	completions := int(*sync.job.Spec.Completions)
	for _, p := range active {
		if ix := indexes.Of(p.Annotations); ix != indexes.Unknown && ix < completions && !seen.set(ix) {
			repeated.set(ix)
		}
	}
	return repeated
}

// indexedDeletionReason says why pod p of an Indexed Job is deleted;
// repeated holds the indexes of more than one active pod (nil for none).
func (sync *syncState) indexedDeletionReason(p *corev1.Pod, surplus string, repeated *indexSet) string {
	ix := indexes.Of(p.Annotations)
	switch {
	case ix == indexes.Unknown:
		return "the pod has no valid completion index"
	case ix >= int(*sync.job.Spec.Completions):
		return fmt.Sprintf("index %d is not below completions (%d)", ix, *sync.job.Spec.Completions)
	case repeated.has(ix):
		return fmt.Sprintf("index %d has more than one active pod", ix)
	}
	return surplus
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
