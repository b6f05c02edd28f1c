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

// Ranked is a pod with everything the deletion order reads of it, read in
// one walk of the pod: Compare ranks both pods at every call, and a sort of
// n pods makes n log n comparisons, so FirstForRemoval ranks each pod once
// and compares ranks, rather than walking a Job of 10,000 pods' conditions
// some thirty times each. A caller that reads its pods anyway (to count
// the ready ones, say) can rank them in the same pass with Rank or
// RankIndexed, and order the ranks with CompareRanked.
//
// Only the fields that order pods of distinct creation times are copied.
// The tie-breaks after them (adoption, name, UID) are read from the pod
// when two ranks tie that far, which is rare: copying them for every pod
// would cost more than reading them for the few ties.
//
// The zero Ranked has no pod; its methods are safe but it must not be
// compared.
type Ranked struct {
	// The fields are laid out for size: 56 bytes, so that a caller's
	// record of a rank and a word of its own fills one cache line.
	pod                    *corev1.Pod
	readySec, createdSec   int64 // Unix seconds; readySec only when ready
	index                  int   // completion index (RankIndexed), else 0
	readyNsec, createdNsec int32
	restarts, sidecar      int32
	// class packs the first three rules into one byte that orders as they
	// do: assigned to a node (bit 3), the phase's rank (bits 1-2), ready
	// (bit 0).
	class                  uint8
	readyZero, createdZero bool // the zero time, which counts as the latest
}

const readyBit = 1

func classOf(assigned bool, phase int8, ready bool) uint8 {
	c := uint8(phase) << 1
	if assigned {
		c |= 1 << 3
	}
	if ready {
		c |= readyBit
	}
	return c
}

// Rank reads what the deletion order reads of p: node assignment, phase,
// the Ready condition and its last transition (in one walk of the
// conditions), the containers' restart counts and the creation time.
func Rank(p *corev1.Pod) Ranked {
	r := Ranked{pod: p}
	r.createdSec, r.createdNsec, r.createdZero = instantOf(p.CreationTimestamp)
	ready := false
	for i := range p.Status.Conditions {
		if c := &p.Status.Conditions[i]; c.Type == corev1.PodReady {
			// The first Ready condition decides, as IsReady reads it.
			if c.Status == corev1.ConditionTrue {
				ready = true
				r.readySec, r.readyNsec, r.readyZero = instantOf(c.LastTransitionTime)
			}
			break
		}
	}
	r.class = classOf(p.Spec.NodeName != "", phaseRank(p.Status.Phase), ready)
	r.restarts, r.sidecar = maxRestarts(p)
	return r
}

// RankIndexed is Rank for a pod of an Indexed Job, whose completion index
// breaks ties as FirstForRemovalIndexed does. index is the pod's completion
// index as indexes.Of reads it from the pod's annotations (indexes.Unknown
// for none): a caller that has parsed it already passes it on, and the
// annotations are not read again.
func RankIndexed(p *corev1.Pod, index int) Ranked {
	r := Rank(p)
	r.index = index
	return r
}

// Pod returns the ranked pod, the caller's own pointer.
func (r Ranked) Pod() *corev1.Pod { return r.pod }

// Ready reports whether the pod's Ready condition is True, as IsReady does.
func (r Ranked) Ready() bool { return r.class&readyBit != 0 }

// instantOf splits a time for laterFirst; zero says it is the zero time.
func instantOf(t metav1.Time) (sec int64, nsec int32, zero bool) {
	if t.IsZero() {
		return 0, 0, true
	}
	return t.Unix(), int32(t.Nanosecond()), false
}

// laterFirst orders times as Compare does, later first, the zero time
// counting as later than any other: negative when a is later than b.
func laterFirst(aSec int64, aNsec int32, aZero bool, bSec int64, bNsec int32, bZero bool) int {
	if aZero != bZero {
		if aZero {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(bSec, aSec); c != 0 {
		return c
	}
	return cmp.Compare(bNsec, aNsec)
}

func rankOf(p *corev1.Pod, indexed bool) Ranked {
	if indexed {
		return RankIndexed(p, indexes.Of(p.Annotations))
	}
	return Rank(p)
}

// CompareRanked is the deletion order on ranks (see Less for its rules):
// negative when a's pod goes before b's. Both must come from Rank, or both
// from RankIndexed.
func CompareRanked(a, b *Ranked) int {
	// Rules 1 to 3: node assignment, phase, readiness.
	if a.class != b.class {
		return int(a.class) - int(b.class)
	}
	if a.class&readyBit != 0 {
		// Rule 4, written out rather than through laterFirst: a sort of
		// the ranks of a suspended Job's pods decides most comparisons
		// here, and a call would cost more than the comparison.
		if a.readyZero != b.readyZero {
			if a.readyZero {
				return -1
			}
			return 1
		}
		if a.readySec != b.readySec {
			if a.readySec > b.readySec {
				return -1
			}
			return 1
		}
		if a.readyNsec != b.readyNsec {
			if a.readyNsec > b.readyNsec {
				return -1
			}
			return 1
		}
	}
	if a.restarts != b.restarts {
		return cmp.Compare(b.restarts, a.restarts)
	}
	if a.sidecar != b.sidecar {
		return cmp.Compare(b.sidecar, a.sidecar)
	}
	if c := laterFirst(a.createdSec, a.createdNsec, a.createdZero, b.createdSec, b.createdNsec, b.createdZero); c != 0 {
		return c
	}
	// Ties, in upstream's listing order, which its sort keeps among pods it
	// ranks equal (a sort of up to 12 pods is an insertion sort, stable).
	if a.index != b.index {
		return cmp.Compare(a.index, b.index)
	}
	return compareTied(a.pod, b.pod)
}

// compareTied breaks the last ties from the pods themselves: the Job's own
// pods (with a controller reference) before adopted ones, then name and UID.
func compareTied(a, b *corev1.Pod) int {
	aAdopted, bAdopted := metav1.GetControllerOfNoCopy(a) == nil, metav1.GetControllerOfNoCopy(b) == nil
	if aAdopted != bAdopted {
		if !aAdopted {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

// firstByRank returns the ranks of at least the n first pods in the
// deletion order, first to last, for 0 < n <= len(pods). Each pod is read once into its rank. When few pods are
// wanted (a scale-down takes at most 500 of a Job of any size) a bounded
// max-heap of n ranks keeps the first ones seen so far: O(len(pods) log n),
// and a pod that does not make the cut costs one comparison with the
// heap's root. Otherwise (suspension deletes every pod) the ranks are
// sorted, through pointers: a swap moves 8 bytes rather than a rank's 56.
func firstByRank(pods []*corev1.Pod, n int, indexed bool) []*Ranked {
	heapOnly := n <= len(pods)/8
	kept := len(pods)
	if heapOnly {
		kept = n
	}
	ranks := make([]Ranked, kept)
	ptrs := make([]*Ranked, kept)
	for i, p := range pods[:kept] {
		ranks[i] = rankOf(p, indexed)
		ptrs[i] = &ranks[i]
	}
	if heapOnly {
		later := func(a, b *Ranked) int { return CompareRanked(b, a) }
		heap.Init(ptrs, later)
		for _, p := range pods[n:] {
			if r := rankOf(p, indexed); CompareRanked(&r, ptrs[0]) < 0 {
				*ptrs[0] = r
				heap.Down(ptrs, 0, later)
			}
		}
	}
	slices.SortFunc(ptrs, CompareRanked)
	return ptrs
}
