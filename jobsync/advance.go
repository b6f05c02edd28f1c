package jobsync

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
)

// Memory is what a controller keeps for one Job between syncs: the
// Snapshot's Expectations and Backoff of the next sync.
type Memory struct {
	Expectations expectations.Expectations `json:"expectations"`
	Backoff      backoff.Record            `json:"backoff"`
}

// Progress says how far a plan was carried out.
type Progress struct {
	// Stopped is the first step not carried out: a step that stopped the
	// plan (a failed claim or status write
	// leaves its whole step undone; after failed finalizer removals, the
	// final status is the first step not done), or the step a crash or a
	// cancellation came before. Empty when the plan was carried out to its
	// end.
	Stopped StepKind `json:"stopped,omitempty"`
	// Pods says which calls of the pod step failed, once it was carried
	// out.
	Pods PodFailures `json:"pods,omitzero"`
	// FailedRemovals are the pods whose finalizer removal failed, once the
	// finalizer step was carried out. A pod found gone is not a failure.
	FailedRemovals []types.UID `json:"failedRemovals,omitempty"`
}

// Done reports whether the step k was carried out.
func (p Progress) Done(k StepKind) bool {
	return p.Stopped == "" || stepIndex(k) < stepIndex(p.Stopped)
}

func stepIndex(k StepKind) int {
	order := stepOrder()
	for i, o := range order {
		if o == k {
			return i
		}
	}
	return len(order)
}

// Advance returns the memory to keep after plan, decided on s (or, after
// failed pod calls, returned by Resume), was carried out as far as p says.
// The plan's Expectations and Backoff assume every step succeeded; what was
// not done is taken back, as upstream takes it back:
//
//   - each creation and deletion that failed or was not sent lowers the
//     expected creations and deletions, but only when the plan set those
//     counts (a finishing Job's deletions expect nothing, so their failure
//     lowers nothing); a deletion that found its pod gone lowers them too,
//     since the informer may never show that deletion;
//   - each finalizer removal that failed or was not sent leaves the
//     expected removals;
//   - the plan's Backoff, which counts the failures its interim status
//     records, is kept only once that status is written (or when the plan
//     has none); until then the snapshot's stays, and the next sync counts
//     those failures again;
//   - JobFinished is kept only once the final status, which carries the
//     terminal condition, is written.
//
// A controller whose informer lowers the memory while the plan is carried
// out keeps the plan's memory before its first call and then lowers it by
// the difference between Advance with every step done and Advance with p
// (controller/memory does so).
func Advance(s Snapshot, plan Plan, p Progress) Memory {
	before, exp := s.Expectations, plan.Expectations
	countsSet := before.Creations != exp.Creations || before.Deletions != exp.Deletions || !before.SetAt.Equal(exp.SetAt)
	if countsSet {
		creations, deletions := p.Pods.Creations, len(p.Pods.Deletions)
		if !p.Done(StepPods) {
			creations, deletions = len(plan.Creations), len(plan.Deletions)
		}
		exp.Creations -= int64(creations)
		exp.Deletions -= int64(deletions)
	}
	if !p.Done(StepFinalizers) {
		for _, r := range plan.FinalizerRemovals {
			exp = exp.FinalizerRemovalObserved(r.Pod.UID)
		}
	} else {
		for _, u := range p.FailedRemovals {
			exp = exp.FinalizerRemovalObserved(u)
		}
	}
	if plan.Status != nil && !p.Done(StepStatus) {
		exp.JobFinished = before.JobFinished
	}
	kept := plan.Backoff
	if plan.InterimStatus != nil && !p.Done(StepInterimStatus) {
		kept = s.Backoff
	}
	return Memory{Expectations: exp, Backoff: copyBackoff(kept)}
}
