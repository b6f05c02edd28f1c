package memory_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobsync"
)

// TestPropertyStoreAgreesWithTheLibrary: for every prefix of every plan of
// an adversarial snapshot, with pod calls and finalizer removals failed at
// random, the memory the Store keeps (Begin, Resume, Advance, with no
// observation in between) is the memory jobsync.Advance says to keep. The
// executor tells the store nothing else, and jobsynctest and the
// interaction world call jobsync.Advance themselves, so the four views of a
// partly carried-out plan agree.
func TestPropertyStoreAgreesWithTheLibrary(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		snap := adversarial.Snapshot(t)
		opts := jobsync.Options{}
		plan, err := jobsync.Reconcile(snap, opts)
		if err != nil {
			t.Skip("a snapshot Reconcile refuses")
		}
		steps := plan.Steps()
		var p jobsync.Progress
		if stop := rapid.IntRange(0, len(steps)).Draw(t, "stop"); stop < len(steps) {
			p.Stopped = steps[stop].Kind
		}
		carried := plan
		if p.Done(jobsync.StepPods) {
			p.Pods = drawPodFailures(t, plan)
			if carried, err = jobsync.Resume(snap, opts, plan, p.Pods); err != nil {
				t.Fatalf("Resume refused failures of its own plan: %v", err)
			}
			if p.Stopped != "" && !hasStep(carried, p.Stopped) {
				// The rest of the plan has no such step: it ran to its end.
				p.Stopped = ""
			}
		}
		if p.Done(jobsync.StepFinalizers) && (p.Stopped == jobsync.StepStatus || p.Stopped == "" && carried.Status == nil) {
			for _, r := range carried.FinalizerRemovals {
				if rapid.Bool().Draw(t, "removalFails") {
					p.FailedRemovals = append(p.FailedRemovals, r.Pod.UID)
				}
			}
		}

		want := jobsync.Advance(snap, carried, p)
		store := memory.NewStore()
		y := store.Begin(snap, opts, plan)
		if !p.Pods.None() {
			if _, err := y.Resume(p.Pods); err != nil {
				t.Fatalf("Sync.Resume: %v", err)
			}
		}
		y.Advance(p)
		got, _ := store.Get(snap.Job.Namespace, snap.Job.Name, snap.Job.UID)
		if diff := cmp.Diff(want, jobsync.Memory(got), cmp.Comparer(func(a, b expectations.UIDSet) bool { return a.Equal(b) })); diff != "" {
			t.Fatalf("progress %+v: the store keeps (-library +store):\n%s", p, diff)
		}
	})
}

// drawPodFailures draws failed creations and deletions of plan's pod step.
func drawPodFailures(t *rapid.T, plan jobsync.Plan) jobsync.PodFailures {
	var f jobsync.PodFailures
	f.Creations = rapid.IntRange(0, len(plan.Creations)).Draw(t, "failedCreations")
	for _, d := range plan.Deletions {
		switch rapid.IntRange(0, 3).Draw(t, "deletion") {
		case 1:
			f.Deletions = append(f.Deletions, jobsync.DeletionFailure{Pod: d.Pod.UID})
		case 2:
			f.Deletions = append(f.Deletions, jobsync.DeletionFailure{Pod: d.Pod.UID, Finalizer: d.RemoveFinalizer})
		case 3:
			f.Deletions = append(f.Deletions, jobsync.DeletionFailure{Pod: d.Pod.UID, Gone: true})
		}
	}
	return f
}

func hasStep(plan jobsync.Plan, k jobsync.StepKind) bool {
	for _, s := range plan.Steps() {
		if s.Kind == k {
			return true
		}
	}
	return false
}
