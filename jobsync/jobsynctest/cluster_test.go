package jobsynctest_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// newJob is a small Job for the table tests; change adjusts its spec.
func newJob(change func(*batchv1.JobSpec)) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "default", UID: "7e57a11d-0000-4000-8000-000000000001"},
		Spec: batchv1.JobSpec{
			Completions: ptr(int32(2)),
			Parallelism: ptr(int32(2)),
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

func run(t *testing.T, job *batchv1.Job, cfg jobsynctest.Config) jobsynctest.Result {
	t.Helper()
	cfg.Check = true
	c, err := jobsynctest.NewCluster(job, cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func conditionReason(j *batchv1.Job, t batchv1.JobConditionType) string {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return c.Reason
		}
	}
	return ""
}

// Scripted lifecycles end as the Job's rules say, with every check holding.
func TestScriptedLifecycles(t *testing.T) {
	ok := jobsynctest.Behavior{StartDelay: time.Second, RunTime: 10 * time.Second}
	fail := func(code int32) jobsynctest.Behavior {
		return jobsynctest.Behavior{StartDelay: time.Second, RunTime: 5 * time.Second, ExitCode: code}
	}
	tests := []struct {
		name    string
		job     *batchv1.Job
		script  jobsynctest.Script
		faults  jobsynctest.Faults
		outcome jobsynctest.Outcome
		reason  string // of the terminal condition
		succ    int32
		failed  int32
	}{{
		name: "all succeed", job: newJob(nil),
		script: jobsynctest.Script{Default: &ok}, outcome: jobsynctest.OutcomeComplete, reason: batchv1.JobReasonCompletionsReached, succ: 2,
	}, {
		name: "backoff limit", job: newJob(func(s *batchv1.JobSpec) { s.BackoffLimit = ptr(int32(1)) }),
		script: jobsynctest.Script{Default: ptr(fail(1))}, outcome: jobsynctest.OutcomeFailed, reason: batchv1.JobReasonBackoffLimitExceeded, failed: 2,
	}, {
		name: "FailJob rule",
		job: newJob(func(s *batchv1.JobSpec) {
			s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
			}}}
		}),
		script:  jobsynctest.Script{Default: &ok, Pods: []jobsynctest.PodRule{{Pod: ptr(0), Behavior: fail(42)}}},
		outcome: jobsynctest.OutcomeFailed, reason: batchv1.JobReasonPodFailurePolicy, failed: 2, // the failed pod and the one still running
	}, {
		name: "Ignore rule: disruptions are not counted",
		job: newJob(func(s *batchv1.JobSpec) {
			s.BackoffLimit = ptr(int32(0))
			s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}},
			}}}
		}),
		script:  jobsynctest.Script{Default: &ok, Pods: []jobsynctest.PodRule{{Pod: ptr(0), Behavior: jobsynctest.Behavior{RunTime: 3 * time.Second, Disruption: true}}}},
		outcome: jobsynctest.OutcomeComplete, reason: batchv1.JobReasonCompletionsReached, succ: 2,
	}, {
		name:    "deadline",
		job:     newJob(func(s *batchv1.JobSpec) { s.ActiveDeadlineSeconds = ptr(int64(30)) }),
		script:  jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true, Shutdown: 2 * time.Second}},
		outcome: jobsynctest.OutcomeFailed, reason: batchv1.JobReasonDeadlineExceeded, failed: 2,
	}, {
		name: "per-index limit and success policy",
		job: newJob(func(s *batchv1.JobSpec) {
			s.CompletionMode = ptr(batchv1.IndexedCompletion)
			s.Completions, s.Parallelism = ptr(int32(3)), ptr(int32(3))
			s.BackoffLimitPerIndex = ptr(int32(1))
			s.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0,2")}}}
		}),
		script: jobsynctest.Script{Default: &ok, Pods: []jobsynctest.PodRule{
			{Index: ptr(1), Behavior: jobsynctest.Behavior{Forever: true}},
			{Index: ptr(2), Attempt: ptr(0), Behavior: fail(3)},
		}},
		outcome: jobsynctest.OutcomeComplete, reason: batchv1.JobReasonSuccessPolicy, succ: 2, failed: 1,
	}, {
		name: "OnFailure restarts reach the backoff limit",
		job: newJob(func(s *batchv1.JobSpec) {
			s.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			s.BackoffLimit = ptr(int32(2))
		}),
		script:  jobsynctest.Script{Default: ptr(fail(1))},
		outcome: jobsynctest.OutcomeFailed, reason: batchv1.JobReasonBackoffLimitExceeded, failed: 2,
	}, {
		name:   "suspended, resumed, deleted",
		job:    newJob(func(s *batchv1.JobSpec) { s.Suspend = ptr(true) }),
		script: jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}},
		faults: jobsynctest.Faults{JobChanges: []jobsynctest.JobChange{
			{At: time.Minute, Suspend: ptr(false)},
			{At: 2 * time.Minute, Delete: true},
		}},
		outcome: jobsynctest.OutcomeDeleted,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, tt.job, jobsynctest.Config{Script: tt.script, Faults: tt.faults})
			if len(res.Violations) > 0 {
				t.Fatalf("violations: %v", res.Violations)
			}
			type summary struct {
				Outcome         jobsynctest.Outcome
				Reason          string
				Succeeded, Fail int32
			}
			var reason string
			switch tt.outcome {
			case jobsynctest.OutcomeComplete:
				reason = conditionReason(res.Job, batchv1.JobComplete)
			case jobsynctest.OutcomeFailed:
				reason = conditionReason(res.Job, batchv1.JobFailed)
			}
			got := summary{res.Outcome, reason, res.Job.Status.Succeeded, res.Job.Status.Failed}
			want := summary{tt.outcome, tt.reason, tt.succ, tt.failed}
			if tt.outcome == jobsynctest.OutcomeDeleted {
				got.Succeeded, got.Fail = 0, 0
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("end of the lifecycle (-want +got):\n%s", d)
			}
		})
	}
}

// The same Config gives the same run, and the caller's Job is left alone.
func TestDeterministicAndPure(t *testing.T) {
	job := newJob(func(s *batchv1.JobSpec) { s.Completions, s.Parallelism = ptr(int32(5)), ptr(int32(3)) })
	before := job.DeepCopy()
	cfg := jobsynctest.Config{Seed: 42, Faults: jobsynctest.Faults{APIError: 0.1, Crash: 0.1, StaleView: 0.2, SkewedView: 0.1, PodDeletion: 0.1}}
	a := run(t, job, cfg)
	b := run(t, job, cfg)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("two runs of one Config differ:\n%s", d)
	}
	if d := cmp.Diff(before, job); d != "" {
		t.Errorf("the caller's Job changed:\n%s", d)
	}
}

// The API server side: generated names are unique, a deleted pod with the
// tracking finalizer stays, with its deletion timestamp, until the
// finalizer goes.
func TestAPIServerNamesAndFinalizers(t *testing.T) {
	job := newJob(func(s *batchv1.JobSpec) { s.Completions, s.Parallelism = ptr(int32(20)), ptr(int32(20)) })
	c, err := jobsynctest.NewCluster(job, jobsynctest.Config{Check: true, Script: jobsynctest.Script{Default: &jobsynctest.Behavior{Disruption: true, RunTime: time.Minute, Shutdown: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	sawTerminatingWithFinalizer := false
	for range 200 {
		rec, ok, err := c.Step()
		if err != nil || !ok {
			break
		}
		if rec.Kind == jobsynctest.KindPodStopped {
			for _, p := range c.Pods() {
				if p.Name == rec.Pod && p.DeletionTimestamp != nil && slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
					sawTerminatingWithFinalizer = true
				}
			}
		}
	}
	if !sawTerminatingWithFinalizer {
		t.Error("no stopped pod was held by its tracking finalizer")
	}
	names := map[string]bool{}
	uids := map[string]bool{}
	for _, p := range c.Pods() {
		if names[p.Name] || uids[string(p.UID)] {
			t.Errorf("name %s or UID %s given twice", p.Name, p.UID)
		}
		names[p.Name], uids[string(p.UID)] = true, true
	}
}

// NewCluster refuses what it cannot run.
func TestNewClusterErrors(t *testing.T) {
	tests := []struct {
		name string
		job  *batchv1.Job
		cfg  jobsynctest.Config
	}{
		{"nil Job", nil, jobsynctest.Config{}},
		{"invalid Job", newJob(func(s *batchv1.JobSpec) { s.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }), jobsynctest.Config{}},
		{"probability above 1", newJob(nil), jobsynctest.Config{Faults: jobsynctest.Faults{Crash: 2}}},
		{"scale of a NonIndexed Job", newJob(nil), jobsynctest.Config{Faults: jobsynctest.Faults{JobChanges: []jobsynctest.JobChange{{Scale: ptr(int32(3))}}}}},
		{"two changes in one", newJob(nil), jobsynctest.Config{Faults: jobsynctest.Faults{JobChanges: []jobsynctest.JobChange{{Delete: true, Suspend: ptr(true)}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := jobsynctest.NewCluster(tt.job, tt.cfg); err == nil {
				t.Error("NewCluster accepted it")
			}
		})
	}
}

// The wrong write-ahead order (finalizers removed before the status that
// records the pods) is caught by the write-ahead check.
func TestWriteAheadSabotageIsCaught(t *testing.T) {
	c, err := jobsynctest.NewCluster(newJob(nil), jobsynctest.Config{Check: true, Script: jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: time.Minute}}})
	if err != nil {
		t.Fatal(err)
	}
	jobsynctest.SabotageWriteAhead(c)
	res, err := c.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Violations {
		if v.Rule == "write-ahead" {
			t.Logf("caught: %s", v)
			return
		}
	}
	t.Fatalf("the sabotaged order went unnoticed; violations: %v", res.Violations)
}

// A finished Job with ttlSecondsAfterFinished is deleted, with its pods, by
// the TTL-after-finished controller once the TTL has run out; the run keeps
// the Job's outcome and ends when the Job is gone.
func TestTTLAfterFinishedDeletesTheJob(t *testing.T) {
	ok := jobsynctest.Behavior{StartDelay: time.Second, RunTime: 10 * time.Second}
	for _, ttl := range []int32{0, 45} {
		t.Run(fmt.Sprint(ttl), func(t *testing.T) {
			job := newJob(func(s *batchv1.JobSpec) { s.TTLSecondsAfterFinished = ptr(ttl) })
			res := run(t, job, jobsynctest.Config{Script: jobsynctest.Script{Default: &ok}})
			if len(res.Violations) > 0 {
				t.Fatalf("violations: %v", res.Violations)
			}
			if res.Outcome != jobsynctest.OutcomeComplete {
				t.Fatalf("outcome %s, want Complete", res.Outcome)
			}
			if want := res.FinishedAt.Add(time.Duration(ttl) * time.Second); !res.TTLDeletedAt.Equal(want) {
				t.Errorf("deleted at %v, want %v (finished %v + TTL %ds)", res.TTLDeletedAt, want, res.FinishedAt, ttl)
			}
			if len(res.Pods) != 0 || res.Job == nil || res.Job.DeletionTimestamp == nil {
				t.Errorf("the Job and its pods should be gone: %d pods left, Job %v", len(res.Pods), res.Job)
			}
		})
	}
}
