package memory

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// Sync is one plan whose memory is stored and which is being carried out.
// The executor takes nothing else, so no API call of a plan can come before
// its memory is stored. A Sync belongs to one goroutine.
//
// What to keep after a plan carried out in part is the library's rule
// (jobsync.Advance); a Sync only applies it to the stored memory, which the
// informer lowers meanwhile.
type Sync struct {
	store *Store
	key   types.NamespacedName
	snap  jobsync.Snapshot
	opts  jobsync.Options
	// begun is the plan Begin stored; plan is the plan being carried out
	// (after failed pod calls, the one jobsync.Resume returned).
	begun, plan jobsync.Plan
	// countsSet says the plan set the creation and deletion counts
	// (upstream replaces them when a sync creates or deletes pods).
	countsSet bool
}

// Begin stores the memory of plan, which jobsync.Reconcile returned for
// snap and opts, and returns the Sync through which the plan is carried
// out. Call it before the first API call of the plan: an observation of a
// pod the plan creates can arrive as soon as the creation is sent, and it
// must find the plan's expectations in place.
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
//   - JobFinished and Backoff: as jobsync.Advance says for a plan of which
//     nothing is carried out yet, until Advance reports how far it went.
func (s *Store) Begin(snap jobsync.Snapshot, opts jobsync.Options, plan jobsync.Plan) *Sync {
	y := &Sync{store: s, key: keyOf(snap.Job), snap: snap, opts: opts, begun: plan, plan: plan}
	before, after := snap.Expectations, plan.Expectations
	y.countsSet = before.Creations != after.Creations || before.Deletions != after.Deletions || !before.SetAt.Equal(after.SetAt)
	// Until a step is done, the library keeps the snapshot's Backoff and
	// JobFinished where the plan's wait for a status write.
	pending := jobsync.Advance(snap, plan, jobsync.Progress{Stopped: jobsync.StepClaims})

	added, dropped := removalDiff(before.FinalizerRemovals, after.FinalizerRemovals)
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
	e.exp.JobFinished = pending.Expectations.JobFinished
	e.backoff = cloneBackoff(pending.Backoff)
	return y
}

// removalDiff returns the UIDs in after and not in before, and those in
// before and not in after. Most plans keep the snapshot's set as it is (the
// same immutable value), which Equal sees at once.
func removalDiff(before, after expectations.UIDSet) (added, dropped []types.UID) {
	if before.Equal(after) {
		return nil, nil
	}
	return uidDiff(after, before), uidDiff(before, after)
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

// Options returns the options the plan was decided with.
func (y *Sync) Options() jobsync.Options { return y.opts }

// Plan returns the plan being carried out: the one Begin stored, or after
// Resume the one it returned.
func (y *Sync) Plan() jobsync.Plan { return y.plan }

// Resume returns the rest of the plan after its pod step had the failures
// f (jobsync.Resume), and carries on with it: its finalizer removals
// replace the plan's in the stored memory before any of them is sent.
func (y *Sync) Resume(f jobsync.PodFailures) (jobsync.Plan, error) {
	rest, err := jobsync.Resume(y.snap, y.opts, y.plan, f)
	if err != nil {
		return jobsync.Plan{}, err
	}
	added, dropped := removalDiff(y.plan.Expectations.FinalizerRemovals, rest.Expectations.FinalizerRemovals)
	y.plan = rest
	if len(added)+len(dropped) > 0 {
		y.store.update(y.key, y.snap.Job.UID, func(e *entry) {
			for _, u := range dropped {
				e.exp = e.exp.FinalizerRemovalObserved(u)
			}
			e.exp = e.exp.ExpectFinalizerRemovals(added...)
		})
	}
	return rest, nil
}

// Advance reports how far the plan was carried out, and the stored memory
// becomes what jobsync.Advance says to keep, with the informer's
// observations since Begin kept: the counts are lowered by what Advance
// takes back, the removals Advance no longer expects are dropped, and
// Backoff and JobFinished are Advance's. Call it once, when the plan
// stops or ends.
func (y *Sync) Advance(p jobsync.Progress) {
	full := jobsync.Advance(y.snap, y.plan, jobsync.Progress{})
	want := jobsync.Advance(y.snap, y.plan, p)
	var dropped []types.UID
	for u := range full.Expectations.FinalizerRemovals.All() {
		if !want.Expectations.FinalizerRemovals.Has(u) {
			dropped = append(dropped, u)
		}
	}
	y.store.update(y.key, y.snap.Job.UID, func(e *entry) {
		if y.countsSet {
			e.exp.Creations -= full.Expectations.Creations - want.Expectations.Creations
			e.exp.Deletions -= full.Expectations.Deletions - want.Expectations.Deletions
		}
		for _, u := range dropped {
			e.exp = e.exp.FinalizerRemovalObserved(u)
		}
		e.exp.JobFinished = want.Expectations.JobFinished
		e.backoff = cloneBackoff(want.Backoff)
	})
}
