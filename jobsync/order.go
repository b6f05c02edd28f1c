package jobsync

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
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
	return compareByName(a, b)
}

// compareByName orders pods by name, then UID.
func compareByName(a, b *corev1.Pod) int {
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

// podQueue hands out pod records in canonical order (compareCanonical), one
// at a time, for a loop that stops early: track releases finished pods
// until the uncounted-pods cap, and takes only the first few hundred of
// thousands. So the queue first selects the want smallest records (want is
// how many the caller expects to take) in a bounded max-heap, at O(n log
// want), and sorts only those. Should the caller take more (pods whose
// release records nothing do not count towards the cap), every record not
// yet taken is read again and sorted, once.
//
// The entries hold the keys of the canonical order, copied out of the pod,
// and the record's position instead of a pointer: comparisons read no pod
// but for ties on creation time, and moving an entry costs the garbage
// collector nothing.
type podQueue struct {
	src   recordSource
	items []queued // the next records, sorted
	next  int      // position in items of the next pop
	more  bool     // records remain beyond items
}

// recordSource is a set of records: all yields each with its position,
// the same each time it is ranged over, and at returns the record at a
// position. n bounds how many all yields.
type recordSource struct {
	all iter.Seq2[int, *podRecord]
	at  func(pos int) *podRecord
	n   int
}

// queued is a record in the queue: its completion index, whether it is
// adopted, its pod's creation time as seconds and nanoseconds of the Unix
// time (mono says the time has a monotonic reading too), and its position
// in the source. plain says neither adopted nor mono: two plain entries
// of one index are ordered by their seconds when these differ.
type queued struct {
	sec     int64
	index   int
	pos     int
	nsec    int32
	adopted bool
	mono    bool
	plain   bool
}

func queuedOf(r *podRecord, pos int) queued {
	t := r.pod.CreationTimestamp.Time
	mono := t != t.Round(0)
	return queued{
		sec: t.Unix(), nsec: int32(t.Nanosecond()), index: r.index, pos: pos,
		adopted: r.adopted, mono: mono, plain: !r.adopted && !mono,
	}
}

// compare is compareCanonical on the entries' keys: a pod is read only when
// the keys tie, or when both creation times carry a monotonic reading,
// which time.Time.Compare uses then.
func (q *podQueue) compare(a, b queued) int {
	if a.index != b.index {
		return cmp.Compare(a.index, b.index)
	}
	if a.sec != b.sec && a.plain && b.plain {
		return cmp.Compare(a.sec, b.sec)
	}
	return q.slowCompare(&a, &b)
}

// before reports whether a comes before b. The keys that decide most pairs
// are compared here, in few enough steps to be inlined into the heap's
// loop; the rest is slowCompare's.
func (q *podQueue) before(a, b *queued) bool {
	if a.index != b.index {
		return a.index < b.index
	}
	if a.sec != b.sec && a.plain && b.plain {
		return a.sec < b.sec
	}
	return q.slowCompare(a, b) < 0
}

// slowCompare is compare for entries of the same index, when the creation
// seconds tie or an entry is not plain: adoption, the creation time (from
// the keys, or from the pods when both times carry a monotonic reading),
// then name and UID. Only here are the pods read.
func (q *podQueue) slowCompare(a, b *queued) int {
	if c := compareAdopted(a.adopted, b.adopted); c != 0 {
		return c
	}
	if a.mono && b.mono {
		return compareByAge(q.src.at(a.pos).pod, q.src.at(b.pos).pod)
	}
	if c := cmp.Compare(a.sec, b.sec); c != 0 {
		return c
	}
	if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
		return c
	}
	return compareByName(q.src.at(a.pos).pod, q.src.at(b.pos).pod)
}

// newPodQueue makes a queue of src's records for a caller that expects to
// take want of them. The records are not modified.
func newPodQueue(src recordSource, want int) *podQueue {
	if src.n == 0 {
		return nil // pops nothing
	}
	want = max(want, 1)
	q := &podQueue{src: src}
	h := make([]queued, 0, max(min(want, src.n), 0))
	for pos, r := range src.all {
		e := queuedOf(r, pos)
		switch {
		case len(h) < want:
			h = append(h, e)
			if len(h) == want {
				for i := len(h)/2 - 1; i >= 0; i-- {
					q.down(h, i)
				}
			}
		case q.before(&e, &h[0]):
			h[0] = e
			q.down(h, 0)
			q.more = true
		default:
			q.more = true
		}
	}
	slices.SortFunc(h, q.compare)
	q.items = h
	return q
}

// down restores the max-heap order of h (the latest record first) below
// i. It is internal/heap's sift-down written out for the entries, so that
// it calls before directly, inlined, rather than through a function value.
func (q *podQueue) down(h []queued, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && q.before(&h[c], &h[r]) {
			c = r
		}
		if !q.before(&h[i], &h[c]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// pop returns the next record in order, or nil when there is none (and
// from a nil queue, which holds none).
func (q *podQueue) pop() *podRecord {
	if q == nil {
		return nil
	}
	if q.next == len(q.items) {
		if !q.more {
			return nil
		}
		q.takeRest()
	}
	q.next++
	return q.src.at(q.items[q.next-1].pos)
}

// takeRest replaces the taken selection with every record it left out,
// sorted.
func (q *podQueue) takeRest() {
	taken := make(map[int]bool, len(q.items))
	for _, e := range q.items {
		taken[e.pos] = true
	}
	rest := make([]queued, 0, max(q.src.n-len(q.items), 0))
	for pos, r := range q.src.all {
		if !taken[pos] {
			rest = append(rest, queuedOf(r, pos))
		}
	}
	slices.SortFunc(rest, q.compare)
	q.items, q.next, q.more = rest, 0, false
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
