package jobsync_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

func validJob() *batchv1.Job {
	return scenarioJob(batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi"},
		Spec:       batchv1.JobSpec{Completions: ptr(int32(2)), Parallelism: ptr(int32(2))},
	})
}

func TestReconcileRejectsBadInput(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	pod := podFor(validJob(), podShorthand{Name: "pi-a"}, batchv1.JobTrackingFinalizer)
	tests := []struct {
		name      string
		mutate    func(*jobsync.Snapshot)
		wantField string
	}{
		{"nil job", func(s *jobsync.Snapshot) { s.Job = nil }, "job"},
		{"nil parallelism", func(s *jobsync.Snapshot) { s.Job.Spec.Parallelism = nil }, "job.spec.parallelism"},
		{"negative parallelism", func(s *jobsync.Snapshot) { s.Job.Spec.Parallelism = ptr(int32(-1)) }, "job.spec.parallelism"},
		{"nil backoffLimit", func(s *jobsync.Snapshot) { s.Job.Spec.BackoffLimit = nil }, "job.spec.backoffLimit"},
		{"negative backoffLimit", func(s *jobsync.Snapshot) { s.Job.Spec.BackoffLimit = ptr(int32(-3)) }, "job.spec.backoffLimit"},
		{"negative completions", func(s *jobsync.Snapshot) { s.Job.Spec.Completions = ptr(int32(-1)) }, "job.spec.completions"},
		{"indexed without completions", func(s *jobsync.Snapshot) {
			s.Job.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			s.Job.Spec.Completions = nil
		}, "job.spec.completions"},
		{"negative backoffLimitPerIndex", func(s *jobsync.Snapshot) { s.Job.Spec.BackoffLimitPerIndex = ptr(int32(-1)) }, "job.spec.backoffLimitPerIndex"},
		{"negative activeDeadlineSeconds", func(s *jobsync.Snapshot) { s.Job.Spec.ActiveDeadlineSeconds = ptr(int64(-1)) }, "job.spec.activeDeadlineSeconds"},
		{"negative status.succeeded", func(s *jobsync.Snapshot) { s.Job.Status.Succeeded = -1 }, "job.status.succeeded"},
		{"negative status.failed", func(s *jobsync.Snapshot) { s.Job.Status.Failed = -2 }, "job.status.failed"},
		{"negative status.ready", func(s *jobsync.Snapshot) { s.Job.Status.Ready = ptr(int32(-1)) }, "job.status.ready"},
		{"negative status.active", func(s *jobsync.Snapshot) { s.Job.Status.Active = -1 }, "job.status.active"},
		{"negative status.terminating", func(s *jobsync.Snapshot) { s.Job.Status.Terminating = ptr(int32(-1)) }, "job.status.terminating"},
		{"invalid selector", func(s *jobsync.Snapshot) {
			s.Job.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
		}, "job.spec.selector"},
		{"nil pod", func(s *jobsync.Snapshot) { s.Pods = append(s.Pods, nil) }, "pods[1]"},
		{"duplicate UID among pods to count", func(s *jobsync.Snapshot) {
			s.Pods[0].Status.Phase = corev1.PodSucceeded
			dup := s.Pods[0].DeepCopy()
			dup.Name = "pi-b"
			s.Pods = append(s.Pods, dup)
		}, "pods[1].metadata.uid"},
		{"failed count overflows int32 (DEVIATIONS.md D1)", func(s *jobsync.Snapshot) {
			s.Job.Status.Failed = 2147483647
			p := s.Pods[0].DeepCopy()
			p.Status.Phase = corev1.PodFailed
			s.Pods[0] = p
		}, "job.status.failed"},
		{"succeeded count overflows int32", func(s *jobsync.Snapshot) {
			s.Job.Status.Succeeded = 2147483647
			p := s.Pods[0].DeepCopy()
			p.Status.Phase = corev1.PodSucceeded
			s.Pods[0] = p
		}, "job.status.succeeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := jobsync.Snapshot{Job: validJob(), Pods: []*corev1.Pod{pod.DeepCopy()}, Now: now}
			tc.mutate(&s)
			plan, err := jobsync.Reconcile(s, jobsync.Options{})
			var ie *jobsync.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got error %v, want an *InputError", err)
			}
			if ie.Field != tc.wantField {
				t.Errorf("error names field %q, want %q (%v)", ie.Field, tc.wantField, err)
			}
			if d := cmp.Diff(jobsync.Plan{}, plan); d != "" {
				t.Errorf("a failed Reconcile returned half a plan:\n%s", d)
			}
		})
	}
}

// TestReconcileToleratesOddButValidInput pins the documented handling of
// inputs that are not errors.
func TestReconcileToleratesOddButValidInput(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	job := validJob()
	job.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	job.Status.CompletedIndexes = "1,x,0-" // malformed: read leniently, as upstream does
	job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"gone"}}
	other := podFor(job, podShorthand{Name: "elsewhere", Index: ptr(0)}, batchv1.JobTrackingFinalizer)
	other.Namespace = "another"
	bad := podFor(job, podShorthand{Name: "neg", IndexText: "-4"}, batchv1.JobTrackingFinalizer)
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{other, bad}, Now: now}, jobsync.Options{})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if len(plan.Deletions) != 1 || plan.Deletions[0].Pod.Name != "neg" {
		t.Errorf("want the pod with a negative index deleted, got %+v", plan.Deletions)
	}
	if plan.InterimStatus == nil || plan.InterimStatus.CompletedIndexes != "1" {
		t.Errorf("want completedIndexes read leniently as \"1\", got %+v", plan.InterimStatus)
	}
	if plan.InterimStatus != nil && plan.InterimStatus.Succeeded != 1 {
		t.Errorf("for Indexed Jobs succeeded is the number of completed indexes, got %d", plan.InterimStatus.Succeeded)
	}
}

// TestHugeIndexedJob: an Indexed Job with two billion completions and pods
// at far indexes is handled in memory proportional to its pods.
func TestHugeIndexedJob(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	job := validJob()
	job.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	job.Spec.Completions = ptr(int32(2_000_000_000))
	job.Spec.Parallelism = ptr(int32(3))
	pods := []*corev1.Pod{
		podFor(job, podShorthand{Name: "far", Index: ptr(1_999_999_999)}, batchv1.JobTrackingFinalizer),
		podFor(job, podShorthand{Name: "near", Index: ptr(0)}, batchv1.JobTrackingFinalizer),
	}
	allocs := testing.AllocsPerRun(5, func() {
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: now}, jobsync.Options{})
		if err != nil || len(plan.Creations) != 1 || *plan.Creations[0].CompletionIndex != 1 {
			t.Fatalf("want index 1 created, got %+v, %v", plan.Creations, err)
		}
	})
	if allocs > 200 {
		t.Errorf("%v allocations for a 2-pod Job", allocs)
	}
}
