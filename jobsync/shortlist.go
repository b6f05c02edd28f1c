package jobsync

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/internal/heap"
	"github.com/jobsync/jobsync/podorder"
)

// This file ranks the active pods for deletion while the scan reads them.
//
// A sync that deletes active pods must rank every one of them (podorder's
// deletion order reads the node, phase, Ready condition, restart counts
// and creation time of each). Ranking them in a pass of its own walks
// every pod a second time after the scan, and at 100,000 pods (hundreds of
// megabytes) each walk costs a cache miss per pod; so the scan ranks them
// as it reads them, when the sync may delete some. The deletions then take
// each pod's readiness and tracking finalizer from its rank, and read no
// pod again in deletion order.

// candidate is an active pod ranked for deletion, with what its deletion
// records besides the readiness the rank carries.
type candidate struct {
	rank      podorder.Ranked
	finalizer bool // the pod carries the tracking finalizer
}

func (c *candidate) pod() *corev1.Pod { return c.rank.Pod() }

// shortlist ranks the active pods the scan finds, when the sync may delete
// some. A suspended Job deletes them all: every one is kept, to be sorted.
// Otherwise only a surplus is deleted, at most MaxPodCreateDeletePerSync
// pods, and only when there are more active pods than parallelism (the
// most a Job wants), so ranking starts at the first active pod past
// parallelism (catching up on the earlier ones) and keeps the first
// MaxPodCreateDeletePerSync in a bounded max-heap: a steady Job is never
// ranked, and a pod that does not make the cut costs one comparison.
//
// When the sync deletes pods the shortlist did not rank (fewer active pods
// than parallelism but fewer still wanted, as near the last completions),
// forRemoval ranks them in a pass of its own.
type shortlist struct {
	// ranking says every active pod seen so far is in list.
	ranking bool
	// waiting says ranking starts once more than after active pods are seen.
	waiting bool
	after   int32
	// keep bounds list to the first keep candidates (0: no bound); most
	// is how many pods the scan reads, the most list may have to hold.
	keep, most int
	// list holds the candidates; once keep of them are held, heap orders
	// pointers to them as a max-heap, its root the last in deletion order.
	list []candidate
	heap []*candidate

	indexed           bool
	trackingFinalizer string
}

// newShortlist says whether and when the scan of nPods pods ranks the
// active ones: only when manage will run (sync.manages) and may delete.
func (sync *syncState) newShortlist(nPods int) shortlist {
	job := sync.job
	if !sync.manages {
		return shortlist{}
	}
	s := shortlist{indexed: sync.indexed, trackingFinalizer: sync.opts.TrackingFinalizer}
	if sync.suspended {
		s.ranking = true
		s.list = make([]candidate, 0, min(nPods, max(16, int(*job.Spec.Parallelism))))
		return s
	}
	s.waiting = true
	s.after = *job.Spec.Parallelism
	s.keep = sync.opts.MaxPodCreateDeletePerSync
	s.most = nPods
	return s
}

// starts reports whether ranking starts at the active-th active pod, which
// is then the moment to catch up on the earlier ones (see catchUp).
func (s *shortlist) starts(active int32) bool {
	if !s.waiting || active <= s.after {
		return false
	}
	s.waiting = false
	s.ranking = true
	s.list = make([]candidate, 0, min(s.keep, s.most))
	return true
}

// catchUp ranks the active pods among earlier, the pods the scan kept
// before the one at which ranking starts.
func (s *shortlist) catchUp(earlier []*corev1.Pod) {
	for _, p := range earlier {
		if !isActive(p) {
			continue
		}
		ix := 0
		if s.indexed {
			ix = indexes.Of(p.Annotations)
		}
		s.add(p, ix)
	}
}

// add ranks active pod p (ix is its completion index, for Indexed Jobs, as
// indexes.Of reads it) and reports whether it is ready.
func (s *shortlist) add(p *corev1.Pod, ix int) bool {
	c := candidate{finalizer: hasFinalizer(p, s.trackingFinalizer)}
	if s.indexed {
		c.rank = podorder.RankIndexed(p, ix)
	} else {
		c.rank = podorder.Rank(p)
	}
	switch {
	case s.keep == 0 || len(s.list) < s.keep:
		s.list = appendDoubling(s.list, c)
		if len(s.list) == s.keep {
			s.heap = make([]*candidate, s.keep)
			for i := range s.list {
				s.heap[i] = &s.list[i]
			}
			heap.Init(s.heap, laterCandidate)
		}
	case compareCandidates(&c, s.heap[0]) < 0:
		*s.heap[0] = c
		heap.Down(s.heap, 0, laterCandidate)
	}
	return c.rank.Ready()
}

// first returns the first n candidates in deletion order when the
// shortlist holds them (every active pod was ranked, and kept up to n at
// least), in a new slice: the shortlist itself is left as it is.
func (s *shortlist) first(n int) ([]*candidate, bool) {
	if !s.ranking || s.keep > 0 && s.keep < n {
		return nil, false
	}
	ptrs := make([]*candidate, len(s.list))
	for i := range s.list {
		ptrs[i] = &s.list[i]
	}
	slices.SortFunc(ptrs, compareCandidates)
	return ptrs[:min(n, len(ptrs))], true
}

func compareCandidates(a, b *candidate) int { return podorder.CompareRanked(&a.rank, &b.rank) }

func laterCandidate(a, b *candidate) int { return podorder.CompareRanked(&b.rank, &a.rank) }

// candidatesOf makes candidates of pods ranked elsewhere than in the scan.
func (sync *syncState) candidatesOf(ranks []podorder.Ranked) []*candidate {
	list := make([]candidate, len(ranks))
	out := make([]*candidate, len(ranks))
	for i, r := range ranks {
		list[i] = candidate{rank: r, finalizer: hasFinalizer(r.Pod(), sync.opts.TrackingFinalizer)}
		out[i] = &list[i]
	}
	return out
}
