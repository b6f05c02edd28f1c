package benchsnap

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// TestShapeFloorsMatchReconcile checks that each shape floor builds what
// Reconcile's plan holds for the same snapshot (the same pods chosen, in the
// same order, with the same records), so that a floor cannot be cheap by
// doing less than the result needs, and that it refuses the snapshots of
// the other shapes rather than answer them wrongly.
func TestShapeFloorsMatchReconcile(t *testing.T) {
	sizes := []int{10, 100, 1000, 10000}
	if testing.Short() {
		sizes = sizes[:3]
	}
	for _, f := range ShapeFloors {
		for _, sh := range Shapes {
			for _, m := range sh.Modes {
				for _, n := range sizes {
					if sh.Name != f.Shape && n != sizes[1] {
						continue
					}
					t.Run(fmt.Sprintf("floor=%s/shape=%s/mode=%s/n=%d", f.Shape, sh.Name, m, n), func(t *testing.T) {
						s := sh.Build(n, m)
						got, ok := f.Run(s)
						if sh.Name != f.Shape {
							// A floor may cover another shape's snapshot only
							// where its own rules apply to it; none does here.
							if ok {
								t.Fatalf("the %s floor answered a %s snapshot", f.Shape, sh.Name)
							}
							return
						}
						if !ok && sh.Name == "ScaleDown" && n < 5000 {
							// Fewer than 500 surplus pods: not the capped
							// shape this floor measures.
							return
						}
						if !ok {
							t.Fatalf("the floor refused its own shape")
						}
						plan, err := jobsync.Reconcile(s, jobsync.Options{})
						if err != nil {
							t.Fatal(err)
						}
						checkFloor(t, s, plan, got)
					})
				}
			}
		}
	}
}

func checkFloor(t *testing.T, s jobsync.Snapshot, plan jobsync.Plan, got any) {
	t.Helper()
	switch r := got.(type) {
	case Deleted:
		if !reflect.DeepEqual(plan.Deletions, r.Deletions) {
			// cmp.Diff only on a difference: it takes seconds on 10,000 deletions.
			diff := cmp.Diff(plan.Deletions, r.Deletions)
			t.Errorf("deletions differ (-plan +floor):\n%s", diff)
		}
		readyDeleted := 0
		for _, d := range r.Deletions {
			if d.Ready {
				readyDeleted++
			}
		}
		checkCounts(t, plan, r.Active-len(r.Deletions), r.Ready-readyDeleted)
	case Created:
		if !reflect.DeepEqual(plan.Creations, r.Creations) {
			// cmp.Diff only on a difference: it takes seconds on 10,000 deletions.
			diff := cmp.Diff(plan.Creations, r.Creations)
			t.Errorf("creations differ (-plan +floor):\n%s", diff)
		}
		checkCounts(t, plan, r.Active+len(r.Creations), r.Ready)
	case Tracked:
		if !reflect.DeepEqual(plan.FinalizerRemovals, r.Removals) {
			// cmp.Diff only on a difference: it takes seconds on 10,000 deletions.
			diff := cmp.Diff(plan.FinalizerRemovals, r.Removals)
			t.Errorf("finalizer removals differ (-plan +floor):\n%s", diff)
		}
		pending := slices.Clone(r.Pending)
		slices.Sort(pending)
		if diff := cmp.Diff(plan.Expectations.FinalizerRemovals.Sorted(), pending); diff != "" {
			t.Errorf("pending removals differ (-plan +floor):\n%s", diff)
		}
		in := plan.InterimStatus
		if in == nil {
			t.Fatal("the plan writes no interim status")
		}
		var uncounted []types.UID
		if in.UncountedTerminatedPods != nil {
			uncounted = in.UncountedTerminatedPods.Succeeded
		}
		if diff := cmp.Diff(uncounted, r.Uncounted); diff != "" {
			t.Errorf("uncounted succeeded pods differ (-plan +floor):\n%s", diff)
		}
		if in.CompletedIndexes != r.CompletedIndexes {
			t.Errorf("completedIndexes: plan %q, floor %q", in.CompletedIndexes, r.CompletedIndexes)
		}
		final := in
		if plan.Status != nil {
			final = plan.Status
		}
		if final.Succeeded != r.Succeeded {
			t.Errorf("succeeded: plan %d, floor %d", final.Succeeded, r.Succeeded)
		}
		if int(in.Active) != r.Active || in.Ready == nil || int(*in.Ready) != r.Ready {
			t.Errorf("active/ready: plan %d/%v, floor %d/%d", in.Active, in.Ready, r.Active, r.Ready)
		}
	default:
		t.Fatalf("unknown floor result %T", got)
	}
}

// checkCounts compares the plan's status counts of active and ready pods,
// once its deletions or creations are carried out, with the floor's.
func checkCounts(t *testing.T, plan jobsync.Plan, active, ready int) {
	t.Helper()
	st := plan.Status
	if st == nil {
		st = plan.InterimStatus
	}
	if st == nil {
		t.Fatal("the plan writes no status")
	}
	if int(st.Active) != active || st.Ready == nil || int(*st.Ready) != ready {
		t.Errorf("active/ready: plan %d/%v, floor %d/%d", st.Active, st.Ready, active, ready)
	}
}
