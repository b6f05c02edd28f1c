package jobsync_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// TestDocumentedPerIndexExample drives the backoffLimitPerIndex example of
// the Jobs documentation sync by sync: ten indexes, three at a time, one
// retry per index, at most five failed indexes, and every even index
// failing. The documentation gives the status it ends with; this test
// applies each plan as an API server would, lets every running pod finish
// ten seconds later, and checks that exactly that status comes out, with
// FailureTarget written before Failed.
func TestDocumentedPerIndexExample(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "job-backoff-limit-per-index-example", Namespace: "default", UID: "job-uid", CreationTimestamp: metav1.NewTime(start)},
		Spec: batchv1.JobSpec{
			Completions:          ptr(int32(10)),
			Parallelism:          ptr(int32(3)),
			CompletionMode:       ptr(batchv1.IndexedCompletion),
			BackoffLimitPerIndex: ptr(int32(1)),
			MaxFailedIndexes:     ptr(int32(5)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "example", Image: "python"}},
			}},
		},
	})
	if errs := jobspec.Validate(job); len(errs) > 0 {
		t.Fatalf("the documented Job does not validate: %v", errs)
	}

	s := jobsync.Snapshot{Job: job, Now: start}
	sawFailureTargetFirst := false
	created := 0
	for sync := 0; ; sync++ {
		if sync == 300 {
			t.Fatalf("the Job did not finish in %d syncs; status: %+v", sync, s.Job.Status)
		}
		plan, err := jobsync.Reconcile(s, jobsync.Options{})
		if err != nil {
			t.Fatalf("sync %d: %v", sync, err)
		}
		if hasCondition(plan.InterimStatus, batchv1.JobFailureTarget) && !hasCondition(plan.InterimStatus, batchv1.JobFailed) {
			sawFailureTargetFirst = true
		}
		next := applyForTest(s, plan)
		for _, c := range plan.Creations {
			p := c.Pod.DeepCopy()
			created++
			p.Name = fmt.Sprintf("%s%d", p.GenerateName, created)
			p.UID = types.UID(p.Name)
			p.CreationTimestamp = metav1.NewTime(s.Now)
			p.Status.Phase = corev1.PodRunning
			next.Pods = append(next.Pods, p)
		}
		if finished(next.Job.Status) {
			s = next
			break
		}
		// Ten seconds on, every running pod has ended: the even indexes
		// fail, the odd ones succeed, as the documented container does.
		next.Now = s.Now.Add(10 * time.Second)
		for _, p := range next.Pods {
			if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
				continue
			}
			ix, _ := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
			phase, exit := corev1.PodSucceeded, int32(0)
			if ix%2 == 0 {
				phase, exit = corev1.PodFailed, 1
			}
			p.Status.Phase = phase
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "example", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, FinishedAt: metav1.NewTime(next.Now)},
			}}}
		}
		s = next
	}

	got := s.Job.Status
	want := batchv1.JobStatus{
		CompletedIndexes: "1,3,5,7,9",
		FailedIndexes:    ptr("0,2,4,6,8"),
		Succeeded:        5,
		Failed:           10,
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonFailedIndexes, Message: "Job has failed indexes"},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonFailedIndexes, Message: "Job has failed indexes"},
		},
	}
	only := cmpopts.IgnoreFields(batchv1.JobStatus{}, "StartTime", "CompletionTime", "Active", "Ready", "Terminating", "UncountedTerminatedPods")
	noTimes := cmpopts.IgnoreFields(batchv1.JobCondition{}, "LastProbeTime", "LastTransitionTime")
	if d := cmp.Diff(want, got, only, noTimes); d != "" {
		t.Errorf("final status differs from the documentation's (-want +got):\n%s", d)
	}
	if !sawFailureTargetFirst {
		t.Errorf("FailureTarget was never written on its own before Failed")
	}
	if created != 15 {
		t.Errorf("created %d pods, want 15 (one per index, and one retry for each even index)", created)
	}
}

func hasCondition(st *batchv1.JobStatus, ct batchv1.JobConditionType) bool {
	if st == nil {
		return false
	}
	for _, c := range st.Conditions {
		if c.Type == ct && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func finished(st batchv1.JobStatus) bool {
	return hasCondition(&st, batchv1.JobComplete) || hasCondition(&st, batchv1.JobFailed)
}
