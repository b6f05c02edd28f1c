package jobsync_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
)

// TestPropertyCompletedIndexesOfManySucceededPods: an Indexed Job writes
// every index of its succeeded pods into completedIndexes at once, with
// the ones already there, however many pods succeeded and in whatever
// order, an index succeeded twice counted once. The counts are drawn
// around the point where the succeeded indexes are many enough to be
// sorted with a bitset of the completions rather than compared.
func TestPropertyCompletedIndexesOfManySucceededPods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		completions := rapid.IntRange(1, 2000).Draw(t, "completions")
		job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{
			Parallelism: ptr(int32(completions)), Completions: ptr(int32(completions)),
			CompletionMode: ptr(batchv1.IndexedCompletion),
		}})
		var prev []int
		for ix := range completions {
			if rapid.IntRange(0, 9).Draw(t, "prev") == 0 {
				prev = append(prev, ix)
			}
		}
		job.Status.CompletedIndexes = indexes.Set{}.WithIndexes(prev).String()
		n := rapid.IntRange(0, 200).Draw(t, "succeeded")
		want := slices.Clone(prev)
		var pods []*corev1.Pod
		for k := range n {
			ix := rapid.IntRange(0, completions-1).Draw(t, "index")
			want = append(want, ix)
			pods = append(pods, podFor(job, podShorthand{Name: fmt.Sprintf("p%d", k), Phase: corev1.PodSucceeded, Index: &ix}, batchv1.JobTrackingFinalizer))
		}
		slices.Sort(want)
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}, jobsync.Options{})
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		st := plan.InterimStatus
		if st == nil {
			st = plan.Status
		}
		wantText := indexes.Set{}.WithIndexes(want).String()
		if n == 0 {
			if st != nil && st.CompletedIndexes != wantText {
				t.Fatalf("completedIndexes %q, want %q", st.CompletedIndexes, wantText)
			}
			return
		}
		if st == nil || st.CompletedIndexes != wantText {
			t.Fatalf("completedIndexes %+v, want %q", st, wantText)
		}
	})
}
