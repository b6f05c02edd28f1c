package jobsync

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/internal/heap"
)

// listingCompare orders pods as upstream lists them before it sorts any:
// the Job's own pods before adopted ones, each group in the informer's
// arbitrary order, here completion index (Indexed Jobs), creation time,
// name and UID. Upstream's first match among failed pods, which a FailJob
// message names, is taken in this order.
func (sync *syncState) listingCompare(a, b *podRecord) int {
	if c := compareAdopted(a.adopted, b.adopted); c != 0 {
		return c
	}
	if sync.indexed {
		if c := cmp.Compare(a.index, b.index); c != 0 {
			return c
		}
	}
	return compareByAge(a.pod, b.pod)
}

// compareAdopted puts the Job's own pods (false) before adopted ones.
func compareAdopted(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// compareByAge orders pods by creation time, then name and UID, a total
// order for pods with distinct UIDs.
func compareByAge(a, b *corev1.Pod) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

func sortClaims(cs []PodClaim) {
	slices.SortFunc(cs, func(a, b PodClaim) int {
		if c := strings.Compare(a.Pod.Name, b.Pod.Name); c != 0 {
			return c
		}
		return strings.Compare(string(a.Pod.UID), string(b.Pod.UID))
	})
}

// podQueue hands out pod records in canonical order (compareRecords), one
// at a time, for loops that may stop early: the uncounted-pods cap stops the
// release of finished pods after 500, however many there are. Building it
// costs O(n), each pop O(log n); a short list is simply sorted. The records
// hold the keys, so that comparisons read no pod but for ties.
type podQueue struct {
	items  []*podRecord // sorted, or a min-heap
	sorted bool
	next   int
}

// newPodQueue makes a queue of records, which it reorders in place.
func newPodQueue(records []*podRecord) *podQueue {
	q := &podQueue{items: records}
	if len(records) <= 512 {
		slices.SortFunc(records, compareRecords)
		q.sorted = true
		return q
	}
	heap.Init(records, compareRecords)
	return q
}

// pop returns the next record in order, or nil when there is none.
func (q *podQueue) pop() *podRecord {
	if q.sorted {
		if q.next == len(q.items) {
			return nil
		}
		q.next++
		return q.items[q.next-1]
	}
	n := len(q.items)
	if n == 0 {
		return nil
	}
	r := q.items[0]
	q.items[0] = q.items[n-1]
	q.items = q.items[:n-1]
	heap.Down(q.items, 0, compareRecords)
	return r
}

// compareRecords is compareCanonical for pods with records.
func compareRecords(a, b *podRecord) int {
	return compareCanonical(a.index, a.adopted, a.pod, b.index, b.adopted, b.pod)
}

// keyedPod is an active pod (which has no record) with the keys of the
// canonical order that cost a lookup: its completion index (indexes.Unknown
// outside Indexed Jobs) and whether it is adopted.
type keyedPod struct {
	ix      int
	adopted bool
	p       *corev1.Pod
}

// keyed reads the keys of an active pod.
func (sync *syncState) keyed(p *corev1.Pod) keyedPod {
	k := keyedPod{ix: indexes.Unknown, adopted: isAdopted(p), p: p}
	if sync.indexed {
		k.ix = indexes.Of(p.Annotations)
	}
	return k
}

// compareKeyed is compareCanonical for keyed pods.
func compareKeyed(a, b keyedPod) int {
	return compareCanonical(a.ix, a.adopted, a.p, b.ix, b.adopted, b.p)
}

// compareCanonical is the canonical order of pods, for the steps where
// upstream's order is that of its informer cache. Upstream lists the pods
// the Job controls before the orphans it adopts (two lookups in its pod
// index), each group in an arbitrary order, and sorts Indexed Jobs' pods by
// completion index before it records finished ones. So: by completion index
// for Indexed Jobs, then the Job's own pods before adopted ones, then
// creation time, name and UID.
func compareCanonical(aIndex int, aAdopted bool, a *corev1.Pod, bIndex int, bAdopted bool, b *corev1.Pod) int {
	if c := cmp.Compare(aIndex, bIndex); c != 0 {
		return c
	}
	if c := compareAdopted(aAdopted, bAdopted); c != 0 {
		return c
	}
	return compareByAge(a, b)
}

// sortedForPlan returns pods in canonical order, for plan steps whose order
// upstream leaves to chance.
func (sync *syncState) sortedForPlan(pods []*corev1.Pod) []*corev1.Pod {
	// Read each pod's keys once, not at every comparison.
	items := make([]keyedPod, len(pods))
	for i, p := range pods {
		items[i] = sync.keyed(p)
	}
	slices.SortFunc(items, compareKeyed)
	out := make([]*corev1.Pod, len(items))
	for i, it := range items {
		out[i] = it.p
	}
	return out
}
