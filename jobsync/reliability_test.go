package jobsync_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// The tests in this file pin the defects found by an independent attack on
// the library; each failed on the code before its fix.

var reliabilityNow = time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)

// A work-queue Job (completions unset) whose failed pod carries a
// completion-index annotation, as a template may give it: upstream asks
// whether the Job is Indexed before it reads the index, so the annotation
// is ignored and the pod counted as failed.
func TestWorkQueueJobWithIndexAnnotationIsCounted(t *testing.T) {
	job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(2))}})
	pod := podFor(job, podShorthand{Name: "wq-a", Phase: corev1.PodFailed, IndexText: "0"}, batchv1.JobTrackingFinalizer)
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{pod}, Now: reliabilityNow}, jobsync.Options{})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if plan.InterimStatus == nil || !cmp.Equal(plan.InterimStatus.UncountedTerminatedPods.Failed, []types.UID{pod.UID}) {
		t.Fatalf("want the failed pod recorded as uncounted, got %+v", plan.InterimStatus)
	}
	if plan.Status == nil || plan.Status.Failed != 1 {
		t.Fatalf("want status.failed 1, got %+v", plan.Status)
	}
}

// Counters that the tracking step would push past int32 get an InputError,
// whether the pods are counted when the snapshot is read or only once the
// failing Job turns its running pods into failed ones, and whatever
// duplicates uncountedTerminatedPods holds.
func TestCountersThatWouldWrapAreRefused(t *testing.T) {
	failing := func() *batchv1.Job {
		job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4))}})
		job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue,
			Reason: batchv1.JobReasonBackoffLimitExceeded, Message: "Job has reached the specified backoff limit"}}
		return job
	}
	tests := []struct {
		name  string
		snap  func() jobsync.Snapshot
		field string
	}{{
		name: "running pods of a failing Job counted as failed",
		snap: func() jobsync.Snapshot {
			job := failing()
			job.Status.Failed = 1<<31 - 2
			return jobsync.Snapshot{Job: job, Now: reliabilityNow, Pods: []*corev1.Pod{
				podFor(job, podShorthand{Name: "a"}, batchv1.JobTrackingFinalizer),
				podFor(job, podShorthand{Name: "b"}, batchv1.JobTrackingFinalizer),
			}}
		},
		field: "job.status.failed",
	}, {
		name: "a UID repeated in uncountedTerminatedPods.failed",
		snap: func() jobsync.Snapshot {
			job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), BackoffLimit: ptr(int32(6))}})
			job.Status.Failed = 1<<31 - 2
			job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Failed: []types.UID{"gone", "gone"}}
			return jobsync.Snapshot{Job: job, Now: reliabilityNow}
		},
		field: "job.status.failed",
	}, {
		name: "a UID repeated in uncountedTerminatedPods.succeeded",
		snap: func() jobsync.Snapshot {
			job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(2))}})
			job.Status.Succeeded = 1<<31 - 2
			job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"gone", "gone"}}
			return jobsync.Snapshot{Job: job, Now: reliabilityNow}
		},
		field: "job.status.succeeded",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := jobsync.Reconcile(tc.snap(), jobsync.Options{})
			var ie *jobsync.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got error %v and plan %+v, want an *InputError", err, plan.Status)
			}
			if ie.Field != tc.field {
				t.Errorf("error names %q, want %q (%v)", ie.Field, tc.field, err)
			}
			if d := cmp.Diff(jobsync.Plan{}, plan); d != "" {
				t.Errorf("a failed Reconcile returned half a plan:\n%s", d)
			}
		})
	}
}

// A NonIndexed Job with backoffLimitPerIndex is one the API server never
// stores; upstream would decide it with neither the per-index nor the
// Job-wide pod-failure backoff.
func TestNonIndexedJobWithPerIndexBackoffIsRefused(t *testing.T) {
	for _, mode := range []*batchv1.CompletionMode{nil, ptr(batchv1.NonIndexedCompletion)} {
		job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(1)), Completions: ptr(int32(2)), BackoffLimitPerIndex: ptr(int32(1))}})
		job.Spec.CompletionMode = mode
		_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: reliabilityNow}, jobsync.Options{})
		var ie *jobsync.InputError
		if !errors.As(err, &ie) || ie.Field != "job.spec.backoffLimitPerIndex" {
			t.Errorf("completionMode %v: got %v, want an InputError on job.spec.backoffLimitPerIndex", mode, err)
		}
	}
}

// The plan shares no memory with the snapshot: a caller that keeps both
// (a controller's store does) may change one without the other.
func TestPlanSharesNoMemoryWithSnapshot(t *testing.T) {
	last := reliabilityNow.Add(-5 * time.Second)
	job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(1)), Completions: ptr(int32(3))}})
	job.Status.StartTime = ptr(metav1.NewTime(reliabilityNow.Add(-time.Minute)))
	pod := podFor(job, podShorthand{Name: "a"}, batchv1.JobTrackingFinalizer)
	snaps := map[string]jobsync.Snapshot{
		"synced": {
			Job: job, Pods: []*corev1.Pod{pod}, Now: reliabilityNow,
			Expectations: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("x", "y")},
			Backoff:      backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &last},
		},
		"skipped": {
			Job: func() *batchv1.Job { j := job.DeepCopy(); j.Spec.ManagedBy = ptr("example.com/other"); return j }(),
			Now: reliabilityNow, Expectations: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("x", "y")},
			Backoff: backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &last},
		},
	}
	for name, s := range snaps {
		t.Run(name, func(t *testing.T) {
			before := deepCopySnapshot(s)
			before.Backoff.LastFailureTime = ptr(*s.Backoff.LastFailureTime)
			plan, err := jobsync.Reconcile(s, jobsync.Options{})
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			scribble(&plan)
			if d := cmp.Diff(before, s, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("changing the plan changed the snapshot:\n%s", d)
			}
		})
	}
}

// scribble overwrites every piece of memory a plan can hold.
func scribble(p *jobsync.Plan) {
	if t := p.Backoff.LastFailureTime; t != nil {
		*t = time.Time{}
	}
	// p.Expectations.FinalizerRemovals is an immutable set: nothing to
	// scribble on.
	for _, st := range []*batchv1.JobStatus{p.InterimStatus, p.Status} {
		if st == nil {
			continue
		}
		st.Succeeded = -7
		if st.StartTime != nil {
			st.StartTime.Time = time.Time{}
		}
		if st.Ready != nil {
			*st.Ready = -7
		}
		if st.UncountedTerminatedPods != nil {
			for i := range st.UncountedTerminatedPods.Failed {
				st.UncountedTerminatedPods.Failed[i] = "scribbled"
			}
		}
		for i := range st.Conditions {
			st.Conditions[i].Message = "scribbled"
		}
	}
	for _, claims := range [][]jobsync.PodClaim{p.Adoptions, p.Releases} {
		for _, c := range claims {
			*c.OwnerReference.Controller = false
			for i := range c.Patch {
				c.Patch[i] = 'x'
			}
		}
	}
	for _, c := range p.Creations {
		c.Pod.Labels["scribbled"] = "yes"
		c.Pod.Annotations["scribbled"] = "yes"
		c.Pod.Spec.Containers[0].Image = "scribbled"
		c.Pod.OwnerReferences[0].Name = "scribbled"
	}
}

// Plan.DeepCopy gives a plan that shares nothing with the original.
func TestPlanDeepCopy(t *testing.T) {
	last := reliabilityNow.Add(-2 * time.Hour)
	job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(3)), Completions: ptr(int32(3)), CompletionMode: ptr(batchv1.IndexedCompletion)}})
	pods := []*corev1.Pod{
		podFor(job, podShorthand{Name: "a", Index: ptr(0), Phase: corev1.PodFailed, Finished: ptr(metav1.NewTime(reliabilityNow.Add(-time.Hour)))}, batchv1.JobTrackingFinalizer),
		podFor(job, podShorthand{Name: "b", Index: ptr(1)}, batchv1.JobTrackingFinalizer),
		podFor(job, podShorthand{Name: "orphan", Index: ptr(2), Owner: "none"}, batchv1.JobTrackingFinalizer),
	}
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: reliabilityNow,
		Expectations: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("x")},
		Backoff:      backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &last}}, jobsync.Options{})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if len(plan.Creations) == 0 || len(plan.Adoptions) == 0 || plan.InterimStatus == nil || plan.Status == nil || plan.Backoff.LastFailureTime == nil {
		t.Fatalf("the test needs a plan that fills every field, got %+v", plan)
	}
	keep := plan.DeepCopy()
	if d := cmp.Diff(plan, keep); d != "" {
		t.Fatalf("DeepCopy differs from the original:\n%s", d)
	}
	scribble(&plan)
	if d := cmp.Diff(plan, keep); d == "" {
		t.Fatalf("scribbling changed nothing; the test checks nothing")
	}
	again, _ := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: reliabilityNow,
		Expectations: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("x")},
		Backoff:      backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &last}}, jobsync.Options{})
	if d := cmp.Diff(again, keep); d != "" {
		t.Fatalf("changing the original changed the copy:\n%s", d)
	}
}

// A pod template without labels makes the pod control refuse NonIndexed
// pods, but an Indexed Job's pods carry their completion-index label, and
// upstream creates them (found by FuzzDifferential).
func TestIndexedJobWithoutTemplateLabelsCreatesPods(t *testing.T) {
	for _, mode := range []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion} {
		job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(1)), Completions: ptr(int32(1)), CompletionMode: ptr(mode)}})
		job.Spec.Template.Labels = map[string]string{}
		job.Spec.Selector = &metav1.LabelSelector{}
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: reliabilityNow}, jobsync.Options{})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if want := map[batchv1.CompletionMode]int{batchv1.IndexedCompletion: 1}[mode]; len(plan.Creations) != want {
			t.Errorf("%s Job without template labels: %d creations, want %d", mode, len(plan.Creations), want)
		}
	}
}

// Under restartPolicy OnFailure, upstream adds the restart counts of running
// and pending pods in int32: counts near the limit wrap the sum around
// below backoffLimit, and the Job goes on (found by FuzzDifferential).
func TestRestartCountSumWrapsAsUpstream(t *testing.T) {
	job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), BackoffLimit: ptr(int32(4))}})
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	job.Status.StartTime = ptr(metav1.NewTime(reliabilityNow.Add(-time.Minute)))
	pods := []*corev1.Pod{
		podFor(job, podShorthand{Name: "a", Restarts: 1 << 30}, batchv1.JobTrackingFinalizer),
		podFor(job, podShorthand{Name: "b", Restarts: 1 << 30}, batchv1.JobTrackingFinalizer),
	}
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: reliabilityNow}, jobsync.Options{})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if len(plan.Deletions) > 0 || plan.InterimStatus != nil && len(plan.InterimStatus.Conditions) > 0 {
		t.Errorf("2^31 restarts wrap to a negative sum upstream, below backoffLimit; got deletions %v, status %+v", plan.Deletions, plan.InterimStatus)
	}
}
