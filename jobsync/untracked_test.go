package jobsync_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// untrackedNotes returns the notes of a sync that speak of pods finished
// without the tracking finalizer.
func untrackedNotes(t *testing.T, s jobsync.Snapshot) []string {
	t.Helper()
	plan, err := jobsync.Reconcile(s, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range plan.Notes {
		if strings.Contains(n, "without the tracking finalizer") {
			out = append(out, n)
		}
	}
	return out
}

// TestUntrackedPodsNote: pods of the Job that finished without the tracking
// finalizer get one note when the status cannot have counted them all (a
// pod written by hand, as a test does), naming how many are not counted;
// none when the status counts as many as there are (the usual settled
// pods), when the Job's pod failure policy ignores some failures, or for
// an orphan its adoption is about to count. The caller's settled pods
// count as listed ones, so the note is the same with a SettledFilter.
func TestUntrackedPodsNote(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	untracked := func(job *batchv1.Job, name string, phase corev1.PodPhase) *corev1.Pod {
		p := settledPod(job)
		p.Name, p.UID, p.Status.Phase = name, types.UID("uid-"+name), phase
		return p
	}
	for _, c := range []struct {
		name    string
		change  func(*batchv1.Job)
		pods    func(*batchv1.Job) []*corev1.Pod
		settled int
		want    string // in the one note; "" for none
	}{
		{"a hand-made succeeded pod on a new Job", nil,
			func(j *batchv1.Job) []*corev1.Pod { return []*corev1.Pod{untracked(j, "a", corev1.PodSucceeded)} },
			0, "1 pod of the Job finished without the tracking finalizer, more than status.succeeded, status.failed and uncountedTerminatedPods hold (0): 1 of them is not counted"},
		{"two, one counted", func(j *batchv1.Job) { j.Status.Succeeded = 1 },
			func(j *batchv1.Job) []*corev1.Pod {
				return []*corev1.Pod{untracked(j, "a", corev1.PodSucceeded), untracked(j, "b", corev1.PodFailed)}
			}, 0, "2 pods of the Job finished without the tracking finalizer, more than status.succeeded, status.failed and uncountedTerminatedPods hold (1): 1 of them"},
		{"the same, the caller's settled pods", func(j *batchv1.Job) { j.Status.Succeeded = 1 },
			func(*batchv1.Job) []*corev1.Pod { return nil }, 2,
			"2 pods of the Job finished without the tracking finalizer, more than status.succeeded, status.failed and uncountedTerminatedPods hold (1): 1 of them"},
		{"all counted", func(j *batchv1.Job) { j.Status.Succeeded, j.Status.Failed = 1, 1 },
			func(j *batchv1.Job) []*corev1.Pod {
				return []*corev1.Pod{untracked(j, "a", corev1.PodSucceeded), untracked(j, "b", corev1.PodFailed)}
			}, 0, ""},
		{"recorded as uncounted", func(j *batchv1.Job) {
			j.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"uid-a"}}
		}, func(j *batchv1.Job) []*corev1.Pod { return []*corev1.Pod{untracked(j, "a", corev1.PodSucceeded)} }, 0, ""},
		{"a pod failure policy that ignores", func(j *batchv1.Job) {
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action:      batchv1.PodFailurePolicyActionIgnore,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
			}}}
		}, func(j *batchv1.Job) []*corev1.Pod { return []*corev1.Pod{untracked(j, "a", corev1.PodFailed)} }, 0, ""},
		{"an orphan to adopt", nil, func(j *batchv1.Job) []*corev1.Pod {
			p := untracked(j, "a", corev1.PodFailed)
			p.OwnerReferences = nil
			return []*corev1.Pod{p}
		}, 0, ""},
		{"an Indexed Job's counted pods", func(j *batchv1.Job) {
			j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			j.Status.Succeeded, j.Status.CompletedIndexes = 2, "0,1"
		}, func(j *batchv1.Job) []*corev1.Pod {
			a, b := untracked(j, "a", corev1.PodSucceeded), untracked(j, "b", corev1.PodSucceeded)
			a.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "0"}
			b.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "1"}
			return []*corev1.Pod{a, b}
		}, 0, ""},
		{"a running pod", nil, func(j *batchv1.Job) []*corev1.Pod { return []*corev1.Pod{untracked(j, "a", corev1.PodRunning)} }, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := exampleJob()
			job.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
			job.Status.StartTime = &job.CreationTimestamp
			if c.change != nil {
				c.change(job)
			}
			pods := c.pods(job)
			notes := untrackedNotes(t, jobsync.Snapshot{Job: job, Pods: pods, SettledPods: c.settled, Now: now})
			switch {
			case c.want == "" && len(notes) > 0:
				t.Fatalf("notes %q, want none", notes)
			case c.want != "" && (len(notes) != 1 || !strings.HasPrefix(notes[0], c.want)):
				t.Fatalf("notes %q, want one beginning %q", notes, c.want)
			}
			// Any order of the pods gives the same note.
			slices.Reverse(pods)
			if again := untrackedNotes(t, jobsync.Snapshot{Job: job, Pods: pods, SettledPods: c.settled, Now: now}); !slices.Equal(again, notes) {
				t.Fatalf("pods in reverse: %q, want %q", again, notes)
			}
		})
	}
}
