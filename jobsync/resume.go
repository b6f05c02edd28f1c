package jobsync

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// PodFailures says which calls of a plan's pod step (StepPods) did not
// succeed.
type PodFailures struct {
	// Creations is the number of the plan's creations that failed or were
	// never sent (a slow-start batch after a failed one). Which ones does
	// not matter: the pods were never made.
	Creations int `json:"creations,omitempty"`
	// Deletions are the deletions that did not go through as planned.
	Deletions []DeletionFailure `json:"deletions,omitempty"`
}

// DeletionFailure is one deletion of a plan that failed, or found its pod
// gone.
type DeletionFailure struct {
	// Pod is the UID of the pod, as in PodDeletion.Pod.
	Pod types.UID `json:"pod"`
	// Finalizer says the tracking-finalizer patch sent before the delete
	// (PodDeletion.RemoveFinalizer) failed, so the delete was never sent.
	Finalizer bool `json:"finalizer,omitempty"`
	// Gone says the API server answered that the pod does not exist: the
	// pod counts as deleted, but the informer may never show its deletion.
	Gone bool `json:"gone,omitempty"`
}

// None reports whether no call failed.
func (f PodFailures) None() bool { return f.Creations == 0 && len(f.Deletions) == 0 }

// Resume returns the plan to go on with once the pod step of plan, which
// Reconcile returned for s and opts, was carried out with the failures f.
//
// Upstream keeps the error of a failed pod creation or deletion, writes the
// status for what was done and removes the finalizers it can, and only then
// returns the error for a rate-limited retry. The status it writes counts
// the pods as they are: a creation that failed is not active, a deletion
// that failed leaves its pod active (and, as upstream counts, out of the
// ready count once its delete call was sent), and a Job whose active pods
// could not all be deleted is not declared finished yet. A Job whose every
// pod creation is refused (a quota, an admission webhook) thus still gets
// its startTime, and its activeDeadlineSeconds can fail it.
//
// The returned plan has the same claims, deletions, creations and
// expectation counts as plan (those steps are over); its interim status,
// finalizer removals, final status, events and the rest of its memory are
// decided again. With no failure, it is plan itself. It
// fails if plan is not the plan of s and opts.
func Resume(s Snapshot, opts Options, plan Plan, f PodFailures) (Plan, error) {
	if f.None() {
		return plan, nil
	}
	if f.Creations < 0 || f.Creations > len(plan.Creations) {
		return Plan{}, inputErr("podFailures.creations", f.Creations, fmt.Sprintf("must be from 0 to the plan's %d creations", len(plan.Creations)))
	}
	// A count per UID: each deletion fails at most once (a snapshot may
	// give one UID to two pods).
	planned := make(map[types.UID]int, len(plan.Deletions))
	for _, d := range plan.Deletions {
		planned[d.Pod.UID]++
	}
	for i, d := range f.Deletions {
		if planned[d.Pod] == 0 {
			return Plan{}, inputErr(fmt.Sprintf("podFailures.deletions[%d].pod", i), d.Pod, "is not a deletion of the plan (or fails twice)")
		}
		planned[d.Pod]--
	}
	rest, err := reconcile(s, opts, &f)
	if err != nil {
		return Plan{}, err
	}
	if !samePodSteps(plan, rest) {
		return Plan{}, inputErr("plan", plan.Skipped, "is not the plan Reconcile returns for this snapshot and these options")
	}
	return rest, nil
}

// samePodSteps reports whether a and b make the same calls up to the pod
// step, as two plans of one snapshot do.
func samePodSteps(a, b Plan) bool {
	return len(a.Releases) == len(b.Releases) && len(a.Adoptions) == len(b.Adoptions) &&
		slices.EqualFunc(a.Deletions, b.Deletions, func(x, y PodDeletion) bool { return x.Pod == y.Pod && x.RemoveFinalizer == y.RemoveFinalizer }) &&
		len(a.Creations) == len(b.Creations) &&
		a.Expectations.Creations == b.Expectations.Creations && a.Expectations.Deletions == b.Expectations.Deletions
}

// apply takes the failed calls out of the pod counts c, which assume
// every deletion and creation of the plan went through, as upstream's
// manageJob (managed) or its deletion of a finishing Job's pods counts
// them. It reports whether a deletion failed (a pod found gone counts as
// deleted). A nil f changes nothing.
func (f *PodFailures) apply(c *podCounts, deletions []PodDeletion, managed bool) bool {
	if f == nil {
		return false
	}
	c.active -= int32(f.Creations)
	ready := make(map[types.UID]bool, len(deletions))
	for _, d := range deletions {
		ready[d.Pod.UID] = ready[d.Pod.UID] || d.Ready
	}
	anyFailed := false
	for _, d := range f.Deletions {
		switch {
		case d.Gone && d.Finalizer && managed && ready[d.Pod]:
			// Gone at the finalizer patch: counted deleted, but upstream
			// counts a pod out of ready only once its delete was sent.
			c.ready++
		case d.Gone:
		default:
			anyFailed = true
			c.active++
			c.terminating--
			if d.Finalizer && ready[d.Pod] {
				// Upstream takes a pod out of the ready count once its
				// delete call was sent, whatever the answer; a failed
				// finalizer patch means it was never sent.
				c.ready++
			}
		}
	}
	return anyFailed
}
