// Package jobstatus_test writes the statuses jobsynctest.Statuses returns
// through a real kube-apiserver's status subresource, beside statuses
// written by hand as test suites used to write them.
package jobstatus_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

func TestMain(m *testing.M) { apiservertest.Main(m) }

// newJob is a Job of two completions, two at a time, whose pods never
// restart, changed by change.
func newJob(name string, change func(*batchv1.JobSpec)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{
			Completions: new(int32(2)),
			Parallelism: new(int32(2)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
	if change != nil {
		change(&j.Spec)
	}
	return j
}

// onExitCode is a pod failure policy of one rule: action on exit code 42.
func onExitCode(action batchv1.PodFailurePolicyAction) *batchv1.PodFailurePolicy {
	return &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      action,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
}

func create(t *testing.T, client kubernetes.Interface, job *batchv1.Job) *batchv1.Job {
	t.Helper()
	got, err := client.BatchV1().Jobs(job.Namespace).Create(t.Context(), job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Job %s: %v", job.Name, err)
	}
	return got
}

// writeStatus replaces the stored Job's status with st through the status
// subresource and returns what the server stored.
func writeStatus(ctx context.Context, client kubernetes.Interface, job *batchv1.Job, st batchv1.JobStatus) (*batchv1.Job, error) {
	j := job.DeepCopy()
	j.Status = st
	return client.BatchV1().Jobs(j.Namespace).UpdateStatus(ctx, j, metav1.UpdateOptions{})
}

func conditionTrue(st *batchv1.JobStatus, ct batchv1.JobConditionType) bool {
	for _, c := range st.Conditions {
		if c.Type == ct && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// TestStatusesAccepted: for each outcome jobsynctest's scripts cover, every
// status Statuses returns for the Job as the server stored it is accepted
// by the status subresource, in order, each over the one before it; the
// server ends with the Job Complete or Failed as the helper said.
func TestStatusesAccepted(t *testing.T) {
	srv := apiservertest.Start(t)
	for _, c := range []struct {
		name   string
		job    *batchv1.Job
		script jobsynctest.Script
		want   batchv1.JobConditionType
	}{
		{"all succeed", newJob("all-succeed", nil), jobsynctest.AllSucceed(), batchv1.JobComplete},
		{"one failure within the backoff limit", newJob("within-limit", func(s *batchv1.JobSpec) { s.BackoffLimit = new(int32(3)) }),
			jobsynctest.FailFirst(1, 1), batchv1.JobComplete},
		{"failures past the backoff limit", newJob("past-limit", func(s *batchv1.JobSpec) { s.BackoffLimit = new(int32(1)); s.Parallelism = new(int32(1)) }),
			jobsynctest.FailFirst(2, 1), batchv1.JobFailed},
		{"a pod failure policy FailJob match", newJob("pfp-failjob", func(s *batchv1.JobSpec) {
			s.PodFailurePolicy = onExitCode(batchv1.PodFailurePolicyActionFailJob)
			s.Parallelism = new(int32(1))
		}), jobsynctest.FailFirst(1, 42), batchv1.JobFailed},
		{"a pod failure policy Ignore match", newJob("pfp-ignore", func(s *batchv1.JobSpec) {
			s.PodFailurePolicy = onExitCode(batchv1.PodFailurePolicyActionIgnore)
			s.BackoffLimit = new(int32(0))
		}), jobsynctest.FailFirst(1, 42), batchv1.JobComplete},
		{"a deadline", newJob("deadline", func(s *batchv1.JobSpec) { s.ActiveDeadlineSeconds = new(int64(30)) }),
			jobsynctest.RunForever(), batchv1.JobFailed},
		{"per-index limits", newJob("per-index", func(s *batchv1.JobSpec) {
			s.CompletionMode = new(batchv1.IndexedCompletion)
			s.BackoffLimitPerIndex = new(int32(0))
		}), jobsynctest.FailFirst(1, 1), batchv1.JobFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			stored := create(t, srv.Client, c.job)
			all, err := jobsynctest.Statuses(stored, c.script)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) < 2 {
				t.Fatalf("%d statuses, want the first sync's and the end's at least", len(all))
			}
			for i, st := range all {
				stored, err = writeStatus(t.Context(), srv.Client, stored, st)
				if err != nil {
					t.Fatalf("status %d of %d refused: %v\nstatus: %+v", i+1, len(all), err, st)
				}
			}
			if !conditionTrue(&stored.Status, c.want) {
				t.Fatalf("the server holds conditions %v, want %s=True", stored.Status.Conditions, c.want)
			}
			// The final status alone, on a new Job of the same spec: what a
			// test does that writes only FinalStatus.
			fresh := c.job.DeepCopy()
			fresh.Name += "-final"
			fresh = create(t, srv.Client, fresh)
			final, err := jobsynctest.FinalStatus(fresh, c.script)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := writeStatus(t.Context(), srv.Client, fresh, final); err != nil {
				t.Fatalf("the final status refused on a new Job: %v", err)
			}
		})
	}
}

// TestHandWrittenStatuses: the statuses test suites wrote by hand before
// the API server validated Job statuses. A Complete condition alone (no
// SuccessCriteriaMet, startTime or completionTime) is refused, with or
// without a succeeded count; the server does not compare succeeded with
// completions, so the impossible "one of two completions succeeded, Job
// Complete" is accepted once the conditions and times are as a controller
// writes them.
func TestHandWrittenStatuses(t *testing.T) {
	srv := apiservertest.Start(t)
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	complete := func(ct batchv1.JobConditionType) batchv1.JobCondition {
		return batchv1.JobCondition{Type: ct, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now}
	}
	for i, c := range []struct {
		name     string
		status   batchv1.JobStatus
		accepted bool
		refusal  string // in the server's error when refused
	}{
		{"Complete alone", batchv1.JobStatus{Conditions: []batchv1.JobCondition{complete(batchv1.JobComplete)}}, false,
			"startTime is required for finished job"},
		{"Complete alone, succeeded 1 of 2", batchv1.JobStatus{Succeeded: 1, Conditions: []batchv1.JobCondition{complete(batchv1.JobComplete)}}, false,
			"completionTime is required for Complete jobs"},
		{"Complete with times but without SuccessCriteriaMet", batchv1.JobStatus{
			Succeeded: 2, StartTime: &now, CompletionTime: &now,
			Conditions: []batchv1.JobCondition{complete(batchv1.JobComplete)},
		}, false, "without the SuccessCriteriaMet=true condition"},
		{"succeeded 1 of 2, SuccessCriteriaMet, Complete and times", batchv1.JobStatus{
			Succeeded: 1, StartTime: &now, CompletionTime: &now,
			Conditions: []batchv1.JobCondition{complete(batchv1.JobSuccessCriteriaMet), complete(batchv1.JobComplete)},
		}, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := create(t, srv.Client, newJob(fmt.Sprintf("hand-%d", i), nil))
			stored, err := writeStatus(t.Context(), srv.Client, job, c.status)
			switch {
			case c.accepted && err != nil:
				t.Fatalf("refused: %v", err)
			case c.accepted:
				if stored.Status.Succeeded != 1 || !conditionTrue(&stored.Status, batchv1.JobComplete) {
					t.Fatalf("stored %+v", stored.Status)
				}
			case err == nil:
				t.Fatalf("accepted: %+v", stored.Status)
			case !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.refusal):
				t.Fatalf("refused, but not as invalid for %q: %v", c.refusal, err)
			default:
				t.Logf("refused as expected: %v", err)
			}
		})
	}
}
