package jobsync

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
)

// podCensus is what the scan finds in its one pass over the snapshot's
// pods, and the steps' only way to the pods: the active, ready and
// terminating counts, the records of finished and deleting pods, the
// active pods ranked for removal (see forRemoval), and the sums of the
// caller's sets. The steps query it and change none of it, so that a
// change to a decision leaves the scan's loop, where the cost of a sync of
// many pods lies, as it is.
type podCensus struct {
	pods []*corev1.Pod // the Job's pods after claiming
	// settled is the number of the Job's pods the caller left out of the
	// snapshot as settled (Snapshot.SettledPods): only neverStarted reads it.
	settled int
	// active is Snapshot.Active, the caller's set of active pods kept out
	// of pods (nil for none); counts and, for Indexed Jobs, indexTrouble
	// include them.
	active *ActivePods
	// succeeded is Snapshot.Succeeded, the caller's set of succeeded pods
	// carrying the tracking finalizer kept out of pods (nil for none); only
	// newlyFinished, succeededPods, track and neverStarted read it.
	succeeded *SucceededPods
	// finishedOrDeleting holds the records of those of pods that are
	// terminal or being deleted, but terminal ones without the tracking
	// finalizer only under a pod failure policy (see scan).
	finishedOrDeleting []podRecord
	// counts are the active, ready and terminating pods found.
	counts podCounts

	// activeIndexes holds the valid indexes of the active pods of an
	// Indexed Job found in pods (hasActiveIndex and activeIndexSet add the
	// held ones); indexTrouble says some active pod, in pods or held, has
	// an invalid, out-of-range or repeated index, which calls for deletions
	// (never set for NonIndexed Jobs).
	activeIndexes *indexSet
	indexTrouble  bool

	// shortlist holds the active pods ranked for deletion, when the sync
	// may delete some (see shortlist.go).
	shortlist shortlist

	// uncountedSucceeded and uncountedFailed hold the UIDs found in
	// status.uncountedTerminatedPods at the start of the sync.
	uncountedSucceeded, uncountedFailed map[types.UID]bool
	// expectedRemovals holds the UIDs whose finalizer removal is still expected.
	expectedRemovals expectations.UIDSet
}

// activePods returns the active pods (neither terminal nor being deleted),
// built when asked for: a steady-state sync of a NonIndexed Job never needs
// the list.
func (census *podCensus) activePods() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, census.counts.active)
	for _, p := range census.pods {
		if isActive(p) {
			out = append(out, p)
		}
	}
	if census.active != nil {
		for i := range census.active.pods {
			out = append(out, census.active.pods[i].pod)
		}
	}
	return out
}

// hasActiveIndex reports whether an active pod, in pods or held, has
// completion index ix.
func (census *podCensus) hasActiveIndex(ix int) bool {
	return census.activeIndexes.has(ix) || census.active.holdsIndex(ix)
}

// activeIndexSet returns the completion indexes of the active pods, in pods
// or held.
func (census *podCensus) activeIndexSet() indexes.Set {
	found := census.activeIndexes.members()
	if census.active.Len() == 0 {
		return found
	}
	return found.Union(census.active.indexes.members())
}

// activeRestarts returns the sum of the container restarts of the held
// active pods, kept as they were put; int32 sums wrap around alike in any
// order.
func (census *podCensus) activeRestarts() int32 {
	if census.active == nil {
		return 0
	}
	return census.active.restarts
}
