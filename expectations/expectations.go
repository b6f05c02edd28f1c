// Package expectations holds the controller memory that upstream's Job
// controller keeps between syncs about work it has started but not yet seen
// in its informer cache: pod creations, pod deletions and tracking-finalizer
// removals.
//
// Upstream keeps this memory in mutable, mutex-guarded stores. Here it is a
// plain value: Reconcile reads one and returns the next, and the caller
// reports what its informer observed through the methods below, each of which
// returns a new value and leaves the receiver untouched.
package expectations

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// DefaultTimeout is how long pending creations and deletions hold back a
// sync before they are treated as satisfied anyway (upstream's
// ExpectationsTimeout).
const DefaultTimeout = 5 * time.Minute

// Expectations is what a controller still waits to observe for one Job.
// The zero value expects nothing.
type Expectations struct {
	// Creations is the number of pod creations not yet observed.
	Creations int64 `json:"creations,omitempty"`
	// Deletions is the number of pod deletions not yet observed.
	Deletions int64 `json:"deletions,omitempty"`
	// SetAt is when Creations and Deletions were last set. Upstream replaces
	// (not adds to) both counts whenever a sync creates or deletes pods, and
	// the pair expires DefaultTimeout after that moment.
	SetAt time.Time `json:"setAt,omitempty"`
	// FinalizerRemovals holds the UIDs of pods whose tracking finalizer the
	// controller removed (or asked to remove) and has not yet seen gone.
	// These never expire. It is a persistent set: observing one removal
	// takes O(log n) and leaves every earlier Expectations value as it was.
	FinalizerRemovals UIDSet `json:"finalizerRemovals,omitzero"`
	// JobFinished is set once a plan wrote a terminal condition (Complete or
	// Failed). Until a snapshot shows the Job finished, syncs are skipped, so
	// that a lagging view of the Job does not finish it twice.
	JobFinished bool `json:"jobFinished,omitempty"`
}

// Satisfied reports whether pod creations and deletions may be planned:
// every expected creation and deletion was observed, or the expectations
// are older than timeout at now. Finalizer removals do not take part, as
// upstream's do not.
func (e Expectations) Satisfied(now time.Time, timeout time.Duration) bool {
	if e.Creations <= 0 && e.Deletions <= 0 {
		return true
	}
	return now.Sub(e.SetAt) > timeout
}

// ExpectCreations replaces the pending creations and deletions with n
// creations set at now, as upstream's ExpectCreations does.
func (e Expectations) ExpectCreations(n int, now time.Time) Expectations {
	e.Creations, e.Deletions, e.SetAt = int64(n), 0, now
	return e
}

// ExpectDeletions replaces the pending creations and deletions with n
// deletions set at now, as upstream's ExpectDeletions does.
func (e Expectations) ExpectDeletions(n int, now time.Time) Expectations {
	e.Creations, e.Deletions, e.SetAt = 0, int64(n), now
	return e
}

// CreationObserved records that one expected pod creation was seen, or that
// a planned creation failed and will never be seen.
func (e Expectations) CreationObserved() Expectations {
	e.Creations--
	return e
}

// DeletionObserved records that one expected pod deletion was seen (the pod
// got a deletion timestamp or vanished), or that a planned deletion failed.
func (e Expectations) DeletionObserved() Expectations {
	e.Deletions--
	return e
}

// ExpectFinalizerRemovals adds uids to the finalizer removals still to be
// observed.
func (e Expectations) ExpectFinalizerRemovals(uids ...types.UID) Expectations {
	e.FinalizerRemovals = e.FinalizerRemovals.Add(uids...)
	return e
}

// FinalizerRemovalObserved records that the pod with uid was seen without
// its tracking finalizer (or deleted for good), or that the removal failed.
// The pending removals are a set, as upstream's are: a UID expected twice is
// gone after one observation. It takes O(log n) time in the removals
// pending, and none when uid is not among them.
func (e Expectations) FinalizerRemovalObserved(uid types.UID) Expectations {
	e.FinalizerRemovals = e.FinalizerRemovals.Remove(uid)
	return e
}

// ExpectsFinalizerRemoval reports whether uid is among the pending finalizer
// removals.
func (e Expectations) ExpectsFinalizerRemoval(uid types.UID) bool {
	return e.FinalizerRemovals.Has(uid)
}
