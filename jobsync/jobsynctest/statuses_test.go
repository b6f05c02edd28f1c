package jobsynctest

import (
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobspec"
)

// statusJob is a Job of two completions, two at a time, whose pods never
// restart, changed by change.
func statusJob(change func(*batchv1.JobSpec)) *batchv1.Job {
	two := int32(2)
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default", UID: "5a7e0000-0000-4000-8000-000000000001"},
		Spec: batchv1.JobSpec{
			Completions: &two,
			Parallelism: &two,
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

func int32p(v int32) *int32 { return &v }

// onExitCode is a pod failure policy of one rule: action on exit code 42.
func onExitCode(action batchv1.PodFailurePolicyAction) *batchv1.PodFailurePolicy {
	return &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      action,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
}

// TestStatuses: for each outcome a test asks for, the statuses end with the
// conditions, reason and counts a real controller leaves; every status is
// one the API server's status validation takes after the one before it,
// and the last one also straight after the empty status of a new Job (what
// a test does when it writes it through a fake client or the status
// subresource); and the same call gives the same statuses.
func TestStatuses(t *testing.T) {
	for _, c := range []struct {
		name      string
		job       *batchv1.Job
		script    Script
		condition batchv1.JobConditionType // True at the end, with reason
		reason    string
		succeeded int32
		failed    int32
		failedIx  string // status.failedIndexes, for per-index limits
	}{
		{"all succeed", statusJob(nil), AllSucceed(),
			batchv1.JobComplete, batchv1.JobReasonCompletionsReached, 2, 0, ""},
		{"one failure within the backoff limit", statusJob(func(s *batchv1.JobSpec) { s.BackoffLimit = int32p(3) }), FailFirst(1, 1),
			batchv1.JobComplete, batchv1.JobReasonCompletionsReached, 2, 1, ""},
		{"failures past the backoff limit", statusJob(func(s *batchv1.JobSpec) { s.BackoffLimit = int32p(1); s.Parallelism = int32p(1) }), FailFirst(2, 1),
			batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, 0, 2, ""},
		{"a pod failure policy FailJob match", statusJob(func(s *batchv1.JobSpec) {
			s.PodFailurePolicy = onExitCode(batchv1.PodFailurePolicyActionFailJob)
			s.Parallelism = int32p(1)
		}), FailFirst(1, 42),
			batchv1.JobFailed, batchv1.JobReasonPodFailurePolicy, 0, 1, ""},
		{"a pod failure policy Ignore match", statusJob(func(s *batchv1.JobSpec) {
			s.PodFailurePolicy = onExitCode(batchv1.PodFailurePolicyActionIgnore)
			s.BackoffLimit = int32p(0)
		}), FailFirst(1, 42),
			batchv1.JobComplete, batchv1.JobReasonCompletionsReached, 2, 0, ""},
		{"a deadline", statusJob(func(s *batchv1.JobSpec) { s.ActiveDeadlineSeconds = ptrTo(int64(30)) }), RunForever(),
			batchv1.JobFailed, batchv1.JobReasonDeadlineExceeded, 0, 2, ""},
		{"per-index limits", statusJob(func(s *batchv1.JobSpec) {
			s.CompletionMode = ptrTo(batchv1.IndexedCompletion)
			s.BackoffLimitPerIndex = int32p(0)
		}), FailFirst(1, 1),
			batchv1.JobFailed, batchv1.JobReasonFailedIndexes, 0, 2, "0,1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := c.job.DeepCopy()
			all, err := Statuses(c.job, c.script)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(before, c.job) {
				t.Fatal("Statuses modified the Job")
			}
			if len(all) < 2 {
				t.Fatalf("%d statuses, want the first sync's and the end's at least", len(all))
			}
			final := all[len(all)-1]
			if got, err := FinalStatus(c.job, c.script); err != nil || !reflect.DeepEqual(got, final) {
				t.Fatalf("FinalStatus = %v, %v; want the last of Statuses, the same every call", err, got.Conditions)
			}
			cond := conditionTrue(&final, c.condition)
			if cond == nil || cond.Reason != c.reason {
				t.Fatalf("final conditions %v, want %s=True reason %s", final.Conditions, c.condition, c.reason)
			}
			if final.Succeeded != c.succeeded || final.Failed != c.failed || final.Active != 0 {
				t.Errorf("final counts active %d succeeded %d failed %d, want 0, %d, %d", final.Active, final.Succeeded, final.Failed, c.succeeded, c.failed)
			}
			if got := ptrDeref(final.FailedIndexes); got != c.failedIx {
				t.Errorf("failedIndexes %q, want %q", got, c.failedIx)
			}
			if final.StartTime == nil || (c.condition == batchv1.JobComplete) != (final.CompletionTime != nil) {
				t.Errorf("startTime %v, completionTime %v", final.StartTime, final.CompletionTime)
			}
			stored := jobspec.Default(c.job)
			for i, st := range all {
				if errs := validateStatusUpdate(stored, &st); len(errs) > 0 {
					t.Fatalf("status %d of %d is refused after the one before it: %s", i+1, len(all), strings.Join(errs, "; "))
				}
				stored = stored.DeepCopy()
				stored.Status = st
			}
			if errs := validateStatusUpdate(jobspec.Default(c.job), &final); len(errs) > 0 {
				t.Errorf("the final status is refused on a new Job: %s", strings.Join(errs, "; "))
			}
		})
	}
}

// A run that cannot end finished is an error that says how it ended, and
// so are a nil Job and an invalid one.
func TestStatusesUnfinished(t *testing.T) {
	suspended := statusJob(func(s *batchv1.JobSpec) { s.Suspend = ptrTo(true) })
	managed := statusJob(func(s *batchv1.JobSpec) { s.ManagedBy = ptrTo("example.com/other") })
	invalid := statusJob(func(s *batchv1.JobSpec) { s.Parallelism = int32p(-1) })
	for _, c := range []struct {
		name   string
		job    *batchv1.Job
		script Script
		want   string
	}{
		{"suspended", suspended, AllSucceed(), "did not finish (outcome Stuck"},
		{"managed by another controller", managed, AllSucceed(), "did not finish (outcome Stuck"},
		{"pods that run forever, no deadline", statusJob(nil), RunForever(), "did not finish"},
		{"no Job", nil, AllSucceed(), "the Job is nil"},
		{"an invalid Job", invalid, AllSucceed(), "invalid Job"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Statuses(c.job, c.script)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			if _, ferr := FinalStatus(c.job, c.script); ferr == nil {
				t.Fatal("FinalStatus took what Statuses refused")
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func ptrDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
