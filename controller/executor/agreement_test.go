package executor

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobsync"
)

// TestPropertyExecutorFollowsTheLibrary: for plans of adversarial
// snapshots carried out with calls failed at random, the executor reports
// a progress the library accepts, writes the statuses of exactly the steps
// that progress says were done (the rest of the plan Resume decided, after
// failed pod calls), and the store then keeps what jobsync.Advance says.
func TestPropertyExecutorFollowsTheLibrary(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		snap := adversarial.Snapshot(t)
		opts := jobsync.Options{}
		plan, err := jobsync.Reconcile(snap, opts)
		if err != nil || plan.Skipped != "" {
			t.Skip("no plan to carry out")
		}
		failDelete := map[types.UID]bool{}
		for _, d := range plan.Deletions {
			if rapid.Bool().Draw(t, "deletionFails") {
				failDelete[d.Pod.UID] = true
			}
		}
		failCreate := rapid.IntRange(0, len(plan.Creations)).Draw(t, "failCreation") // the n-th (from 1) fails; 0 none
		failRemove := map[types.UID]bool{}
		for _, r := range plan.FinalizerRemovals {
			if rapid.Bool().Draw(t, "removalFails") {
				failRemove[r.Pod.UID] = true
			}
		}
		failWrite := rapid.IntRange(0, 2).Draw(t, "failWrite") // the n-th status write fails; 0 none

		job := snap.Job.DeepCopy()
		client := fake.NewClientset(job)
		refused := apierrors.NewForbidden(corev1.Resource("pods"), "", errors.New("refused (injected)"))
		var mu sync.Mutex
		creates, writes := 0, 0
		client.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			creates++
			if creates == failCreate {
				return true, nil, refused
			}
			return false, nil, nil
		})
		uidOf := func(name string) types.UID {
			for _, d := range plan.Deletions {
				if d.Pod.Name == name {
					return d.Pod.UID
				}
			}
			for _, r := range plan.FinalizerRemovals {
				if r.Pod.Name == name {
					return r.Pod.UID
				}
			}
			return ""
		}
		client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if failDelete[uidOf(a.(k8stesting.DeleteAction).GetName())] {
				return true, nil, refused
			}
			return true, nil, nil
		})
		client.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			if failRemove[uidOf(a.(k8stesting.PatchAction).GetName())] {
				return true, nil, refused
			}
			return true, &corev1.Pod{}, nil
		})
		client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			writes++
			if writes == failWrite {
				return true, nil, apierrors.NewInternalError(errors.New("refused (injected)"))
			}
			return true, a.(k8stesting.UpdateAction).GetObject(), nil
		})

		store := memory.NewStore()
		x := &Executor{Client: client, Events: events.NewFakeRecorder(1000), TrackingFinalizer: batchv1.JobTrackingFinalizer, Parallelism: 4}
		res, _ := x.Execute(context.Background(), store.Begin(snap, opts, plan))

		carried := plan
		if res.Progress.Done(jobsync.StepPods) && !res.Progress.Pods.None() {
			if carried, err = jobsync.Resume(snap, opts, plan, res.Progress.Pods); err != nil {
				t.Fatalf("the executor reported pod failures the library refuses: %v", err)
			}
		}
		wantWrites := 0
		for _, k := range []jobsync.StepKind{jobsync.StepInterimStatus, jobsync.StepStatus} {
			if !hasStepKind(carried, k) {
				continue
			}
			refused := res.Progress.Stopped == k && (k != jobsync.StepStatus || len(res.Progress.FailedRemovals) == 0)
			if res.Progress.Done(k) || refused {
				wantWrites++ // done, or sent and refused
			}
		}
		if writes != wantWrites {
			t.Fatalf("progress %+v: %d status writes sent, want %d", res.Progress, writes, wantWrites)
		}
		want := jobsync.Advance(snap, carried, res.Progress)
		got, _ := store.Get(snap.Job.Namespace, snap.Job.Name, snap.Job.UID)
		if diff := cmp.Diff(want, jobsync.Memory(got), cmp.Comparer(func(a, b expectations.UIDSet) bool { return a.Equal(b) })); diff != "" {
			t.Fatalf("progress %+v: the store keeps (-library +store):\n%s", res.Progress, diff)
		}
	})
}

func hasStepKind(plan jobsync.Plan, k jobsync.StepKind) bool {
	for _, s := range plan.Steps() {
		if s.Kind == k {
			return true
		}
	}
	return false
}
