package podorder

import (
	"cmp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rank is everything Compare reads from a pod, read once. Compare walks
// conditions and container statuses at every comparison; a sort of n pods
// makes n log n comparisons, so a Job of 10,000 pods read each pod's
// conditions some thirty times. Sorting ranks reads each pod once.
type rank struct {
	assigned  bool
	phase     int
	ready     bool
	readyAt   instant // meaningful only when ready
	restarts  int32
	sidecar   int32
	createdAt instant
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

func rankOf(p *corev1.Pod) rank {
	r := rank{
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
	r.restarts, r.sidecar = maxRestarts(p)
	return r
}

// compareRanks is Compare on ranks; TestRankOrderIsCompare checks that the
// two agree.
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
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	return strings.Compare(a.uid, b.uid)
}

// firstRanks sorts ranks and returns the first n.
func firstRanks(ranks []*rank, n int) []*rank {
	slices.SortFunc(ranks, compareRanks)
	return ranks[:n]
}

// firstByHeap returns the n first pods under Compare, first to last, with a
// bounded max-heap: O(len(pods) log n), and each pod that does not make the
// cut costs one comparison with the heap's root.
func firstByHeap(pods []*corev1.Pod, n int) []*corev1.Pod {
	h := slices.Clone(pods[:n])
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= n {
				return
			}
			m := l
			if r := l + 1; r < n && Compare(h[r], h[l]) > 0 {
				m = r
			}
			if Compare(h[m], h[i]) <= 0 {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, p := range pods[n:] {
		if Compare(p, h[0]) < 0 {
			h[0] = p
			down(0)
		}
	}
	slices.SortFunc(h, Compare)
	return h
}
