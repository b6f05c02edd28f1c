package podorder

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/internal/heap"
)

// rank is everything the deletion order reads from a pod, read once:
// compareRanks is the order itself, and Compare ranks both pods at every
// call. A sort of n pods makes n log n comparisons, so FirstForRemoval
// ranks each pod once and compares ranks, rather than walking a Job of
// 10,000 pods' conditions some thirty times each.
type rank struct {
	assigned  bool
	phase     int
	ready     bool
	readyAt   instant // meaningful only when ready
	restarts  int32
	sidecar   int32
	createdAt instant
	index     int  // completion index (FirstForRemovalIndexed), else 0
	adopted   bool // no controller reference: an orphan being adopted
	name, uid string
	pod       *corev1.Pod
}

// instant orders times as Compare does: later first, the zero time counting
// as later than any other.
type instant struct {
	zero bool
	sec  int64
	nsec int
}

func instantOf(t metav1.Time) instant {
	if t.IsZero() {
		return instant{zero: true}
	}
	return instant{sec: t.Unix(), nsec: t.Nanosecond()}
}

// compareLaterFirst is negative when a is later than b.
func compareLaterFirst(a, b instant) int {
	if a.zero != b.zero {
		if a.zero {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.sec, a.sec); c != 0 {
		return c
	}
	return cmp.Compare(b.nsec, a.nsec)
}

func rankOf(p *corev1.Pod, indexed bool) rank {
	r := rank{
		adopted:   metav1.GetControllerOfNoCopy(p) == nil,
		assigned:  p.Spec.NodeName != "",
		phase:     phaseRank(p.Status.Phase),
		ready:     IsReady(p),
		createdAt: instantOf(p.CreationTimestamp),
		name:      p.Name,
		uid:       string(p.UID),
		pod:       p,
	}
	if r.ready {
		r.readyAt = instantOf(readyTime(p))
	}
	if indexed {
		r.index = indexes.Of(p.Annotations)
	}
	r.restarts, r.sidecar = maxRestarts(p)
	return r
}

// compareRanks is the deletion order (see Less for its rules).
func compareRanks(a, b *rank) int {
	if a.assigned != b.assigned {
		if !a.assigned {
			return -1
		}
		return 1
	}
	if a.phase != b.phase {
		return a.phase - b.phase
	}
	if a.ready != b.ready {
		if !a.ready {
			return -1
		}
		return 1
	}
	if a.ready {
		if c := compareLaterFirst(a.readyAt, b.readyAt); c != 0 {
			return c
		}
	}
	if a.restarts != b.restarts {
		return cmp.Compare(b.restarts, a.restarts)
	}
	if a.sidecar != b.sidecar {
		return cmp.Compare(b.sidecar, a.sidecar)
	}
	if c := compareLaterFirst(a.createdAt, b.createdAt); c != 0 {
		return c
	}
	// Ties, in upstream's listing order, which its sort keeps among pods it
	// ranks equal (a sort of up to 12 pods is an insertion sort, stable).
	if a.index != b.index {
		return cmp.Compare(a.index, b.index)
	}
	if a.adopted != b.adopted {
		if !a.adopted {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return strings.Compare(a.uid, b.uid)
}

// firstByRank returns the n first pods in the deletion order, first to
// last. Each pod is read once into its rank. When few pods are wanted (a
// scale-down takes at most 500 of a Job of any size) a bounded max-heap of
// n ranks keeps the first ones seen so far: O(len(pods) log n), and a pod
// that does not make the cut costs one comparison with the heap's root.
// Otherwise (suspension deletes every pod) the ranks are sorted.
func firstByRank(pods []*corev1.Pod, n int, indexed bool) []*corev1.Pod {
	heapOnly := n <= len(pods)/8
	kept := len(pods)
	if heapOnly {
		kept = n
	}
	ranks := make([]rank, kept)
	ptrs := make([]*rank, kept)
	for i, p := range pods[:kept] {
		ranks[i] = rankOf(p, indexed)
		ptrs[i] = &ranks[i]
	}
	if heapOnly {
		later := func(a, b *rank) int { return compareRanks(b, a) }
		heap.Init(ptrs, later)
		for _, p := range pods[n:] {
			if r := rankOf(p, indexed); compareRanks(&r, ptrs[0]) < 0 {
				*ptrs[0] = r
				heap.Down(ptrs, 0, later)
			}
		}
	}
	slices.SortFunc(ptrs, compareRanks)
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = ptrs[i].pod
	}
	return out
}
