package memory

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// Sync is one plan whose memory is stored and which is being carried out.
// It is the only way to lower a Job's memory for steps that failed, and
// the executor takes nothing else, so no API call of a plan can come
// before its memory is stored. A Sync belongs to one goroutine at a time,
// except for the *Failed methods, which may be called concurrently.
type Sync struct {
	store *Store
	key   types.NamespacedName
	snap  jobsync.Snapshot
	plan  jobsync.Plan
	// countsSet says the plan set the creation and deletion counts (upstream
	// replaces them when a sync creates or deletes pods): only then does a
	// failed step lower them.
	countsSet bool
	// finishing says the plan's final status carries a terminal condition:
	// JobFinished is remembered only once that status is written.
	finishing bool
}

// Begin stores the memory of plan, which Reconcile returned for snap, and
// returns the Sync through which the plan is carried out. Call it before the
// first API call of the plan: an observation of a pod the plan creates can
// arrive as soon as the creation is sent, and it must find the plan's
// expectations in place.
//
// The plan's memory is a whole value computed from the snapshot's, and
// observations may have lowered the stored memory since the snapshot was
// taken. Begin keeps them:
//
//   - creation and deletion counts: when the plan set them (creations or
//     deletions planned, or a new expectation time), they replace the
//     stored ones, as upstream's ExpectCreations and ExpectDeletions
//     replace them; otherwise the stored ones stay;
//   - finalizer removals: the UIDs the plan added are added to the stored
//     set, and the UIDs it dropped are dropped; the others stay as stored;
//   - JobFinished: as the plan says, except that a plan finishing the Job
//     has it stored only once StatusWritten reports its final write;
//   - Backoff: stored now if the plan has no interim status, else by
//     InterimStatusWritten.
func (s *Store) Begin(snap jobsync.Snapshot, plan jobsync.Plan) *Sync {
	y := &Sync{store: s, key: keyOf(snap.Job), snap: snap, plan: plan}
	before, after := snap.Expectations, plan.Expectations
	y.countsSet = before.Creations != after.Creations || before.Deletions != after.Deletions || !before.SetAt.Equal(after.SetAt)
	y.finishing = plan.Status != nil && after.JobFinished && !before.JobFinished

	// Most plans keep the snapshot's set of pending removals as it is (the
	// same immutable value), which Equal sees at once; only a plan that
	// changed it is walked, and outside the lock.
	var added, dropped []types.UID
	if !before.FinalizerRemovals.Equal(after.FinalizerRemovals) {
		added, dropped = uidDiff(after.FinalizerRemovals, before.FinalizerRemovals), uidDiff(before.FinalizerRemovals, after.FinalizerRemovals)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.jobs[y.key]
	if e == nil || e.uid != snap.Job.UID {
		// No memory, or the memory of an earlier Job of this name: what
		// the snapshot held is the base.
		e = &entry{uid: snap.Job.UID, exp: before, backoff: cloneBackoff(snap.Backoff)}
		s.jobs[y.key] = e
	}
	if y.countsSet {
		e.exp.Creations, e.exp.Deletions, e.exp.SetAt = after.Creations, after.Deletions, after.SetAt
	}
	for _, u := range dropped {
		e.exp = e.exp.FinalizerRemovalObserved(u)
	}
	e.exp = e.exp.ExpectFinalizerRemovals(added...)
	if after.JobFinished != before.JobFinished && !y.finishing {
		e.exp.JobFinished = after.JobFinished
	}
	if plan.InterimStatus == nil {
		e.backoff = cloneBackoff(plan.Backoff)
	}
	return y
}

// uidDiff returns the UIDs in a that are not in b.
func uidDiff(a, b expectations.UIDSet) []types.UID {
	var out []types.UID
	for u := range a.All() {
		if !b.Has(u) {
			out = append(out, u)
		}
	}
	return out
}

// Job returns the Job of the snapshot the plan was made from.
func (y *Sync) Job() *batchv1.Job { return y.snap.Job }

// Snapshot returns the snapshot the plan was made from.
func (y *Sync) Snapshot() jobsync.Snapshot { return y.snap }

// Plan returns the plan being carried out.
func (y *Sync) Plan() jobsync.Plan { return y.plan }

// CreationFailed lowers the expected creations by one: a planned pod
// creation failed or was skipped, so the informer will never show it.
func (y *Sync) CreationFailed() {
	y.lower(func(e expectations.Expectations) expectations.Expectations { return e.CreationObserved() })
}

// DeletionFailed lowers the expected deletions by one if the plan set
// them: a planned deletion failed or was not attempted. Deletions of a
// finishing Job's pods raise no expectations, so their failure lowers
// none.
func (y *Sync) DeletionFailed() {
	if !y.countsSet {
		return
	}
	y.lower(func(e expectations.Expectations) expectations.Expectations { return e.DeletionObserved() })
}

// FinalizerRemovalFailed drops uid from the expected finalizer removals: the
// removal failed or was not attempted.
func (y *Sync) FinalizerRemovalFailed(uid types.UID) {
	y.lower(func(e expectations.Expectations) expectations.Expectations { return e.FinalizerRemovalObserved(uid) })
}

// InterimStatusWritten reports that the plan's InterimStatus was written:
// the plan's Backoff, which counts the failures that status records, is
// kept from now on. If the write fails, the old record stays, and the next
// sync counts those failures again.
func (y *Sync) InterimStatusWritten() {
	y.store.update(y.key, y.snap.Job.UID, func(e *entry) { e.backoff = cloneBackoff(y.plan.Backoff) })
}

// StatusWritten reports that the plan's final Status was written. If it
// finished the Job, the memory now says so (JobFinished), and syncs are
// skipped until the informer shows the finished Job.
func (y *Sync) StatusWritten() {
	if !y.finishing {
		return
	}
	y.store.update(y.key, y.snap.Job.UID, func(e *entry) { e.exp.JobFinished = true })
}

func (y *Sync) lower(f func(expectations.Expectations) expectations.Expectations) {
	y.store.update(y.key, y.snap.Job.UID, func(e *entry) { e.exp = f(e.exp) })
}
