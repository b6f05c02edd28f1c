package metrics

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// newJob is a defaulted NonIndexed Job wanting two completions, two at once.
func newJob() *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Completions:          ptr(int32(2)),
			Parallelism:          ptr(int32(2)),
			BackoffLimit:         ptr(int32(6)),
			CompletionMode:       ptr(batchv1.NonIndexedCompletion),
			PodReplacementPolicy: ptr(batchv1.TerminatingOrFailed),
			Suspend:              ptr(false),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: "job-uid"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{batchv1.ControllerUidLabel: "job-uid", batchv1.JobNameLabel: "j"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
				},
			},
		},
		Status: batchv1.JobStatus{StartTime: &metav1.Time{Time: now.Add(-time.Minute)}, UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{}},
	}
}

func indexedJob() *batchv1.Job {
	j := newJob()
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	return j
}

// pod is a pod of job in phase, with the tracking finalizer, the index ix
// for an Indexed Job (ix >= 0), and the exit code of a failed container.
func pod(job *batchv1.Job, name string, phase corev1.PodPhase, ix int, exitCode int32) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: job.Namespace, UID: types.UID(name + "-uid"),
			Labels:            map[string]string{batchv1.ControllerUidLabel: string(job.UID)},
			Finalizers:        []string{batchv1.JobTrackingFinalizer},
			CreationTimestamp: metav1.Time{Time: now.Add(-30 * time.Second)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID,
				Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		},
		Spec:   corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever},
		Status: corev1.PodStatus{Phase: phase},
	}
	if ix >= 0 {
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(ix)}
	}
	if phase == corev1.PodFailed {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, FinishedAt: metav1.Time{Time: now.Add(-time.Second)}}}}}
	}
	return p
}

func reconcile(t *testing.T, s jobsync.Snapshot) jobsync.Plan {
	t.Helper()
	if s.Now.IsZero() {
		s.Now = now
	}
	plan, err := jobsync.Reconcile(s, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// allWritten is the outcome of a plan carried out in full.
func allWritten(plan jobsync.Plan) Outcome {
	return Outcome{Created: len(plan.Creations), InterimStatusWritten: plan.InterimStatus != nil, StatusWritten: plan.Status != nil}
}

func TestForSync(t *testing.T) {
	const nonIndexed, indexed = "NonIndexed", "Indexed"
	succeeded := func(j *batchv1.Job) *batchv1.Job {
		j.Status.Active = 0
		return j
	}
	tests := []struct {
		name string
		job  *batchv1.Job
		pods func(*batchv1.Job) []*corev1.Pod
		exp  expectations.Expectations
		// out, when set, replaces the outcome of the plan carried out in full.
		out  func(jobsync.Plan) Outcome
		want Record
	}{{
		name: "a new Job creates its pods",
		job:  newJob(),
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionPodsCreated, Adds: []Add{
			{namePodsCreated, []string{CreateNew, Succeeded}, 2},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
		}},
	}, {
		// Upstream counts an attempted creation under status="succeeded"
		// whether or not it succeeded, and a failed one under "failed" too.
		name: "a failed creation stops the plan before the status write",
		job:  newJob(),
		out:  func(jobsync.Plan) Outcome { return Outcome{Err: true, Created: 1, CreateFailed: 1} },
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultError, Action: ActionPodsCreated, Adds: []Add{
			{namePodsCreated, []string{CreateNew, Succeeded}, 2},
			{namePodsCreated, []string{CreateNew, Failed}, 1},
		}},
	}, {
		name: "a failed pod within its backoff: creations wanted, none made",
		job:  newJob(),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			return []*corev1.Pod{pod(j, "a", corev1.PodRunning, -1, 0), pod(j, "b", corev1.PodFailed, -1, 1)}
		},
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionPodsCreated, Adds: []Add{
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 1},
		}},
	}, {
		name: "a failed pod past its backoff is replaced",
		job:  newJob(),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			failed := pod(j, "b", corev1.PodFailed, -1, 1)
			failed.Status.ContainerStatuses[0].State.Terminated.FinishedAt = metav1.Time{Time: now.Add(-time.Minute)}
			return []*corev1.Pod{pod(j, "a", corev1.PodRunning, -1, 0), failed}
		},
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionPodsCreated, Adds: []Add{
			{namePodsCreated, []string{RecreateTerminatingOrFailed, Succeeded}, 1},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 1},
		}},
	}, {
		name: "the pods run: nothing to do but track",
		job:  newJob(),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			return []*corev1.Pod{pod(j, "a", corev1.PodRunning, -1, 0), pod(j, "b", corev1.PodRunning, -1, 0)}
		},
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionTracking, Adds: []Add{
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
		}},
	}, {
		name: "creations still expected: reconciling",
		job:  newJob(),
		exp:  expectations.Expectations{}.ExpectCreations(2, now),
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionReconciling, Adds: []Add{
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
		}},
	}, {
		name: "a suspended Job deletes its pods",
		job: func() *batchv1.Job {
			j := newJob()
			j.Spec.Suspend = ptr(true)
			return j
		}(),
		pods: func(j *batchv1.Job) []*corev1.Pod { return []*corev1.Pod{pod(j, "a", corev1.PodRunning, -1, 0)} },
		out:  func(jobsync.Plan) Outcome { return Outcome{} },
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionPodsDeleted},
	}, {
		name: "both pods succeeded: the Job completes",
		job:  succeeded(newJob()),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			return []*corev1.Pod{pod(j, "a", corev1.PodSucceeded, -1, 0), pod(j, "b", corev1.PodSucceeded, -1, 0)}
		},
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionTracking, Adds: []Add{
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
			{nameJobsFinished, []string{nonIndexed, Succeeded, batchv1.JobReasonCompletionsReached}, 1},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 2},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
		}},
	}, {
		name: "a finished Job is skipped and not counted",
		job: func() *batchv1.Job {
			j := newJob()
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
			return j
		}(),
		want: Record{},
	}, {
		name: "the backoff limit is exceeded: the Job fails without reaching manage",
		job: func() *batchv1.Job {
			j := newJob()
			j.Spec.BackoffLimit = ptr(int32(0))
			return j
		}(),
		pods: func(j *batchv1.Job) []*corev1.Pod { return []*corev1.Pod{pod(j, "b", corev1.PodFailed, -1, 1)} },
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionReconciling, Adds: []Add{
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
			{nameJobsFinished, []string{nonIndexed, Failed, batchv1.JobReasonBackoffLimitExceeded}, 1},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 1},
		}},
	}, {
		name: "failures matched by the pod failure policy, by action",
		job: func() *batchv1.Job {
			j := newJob()
			j.Spec.Completions, j.Spec.Parallelism = ptr(int32(4)), ptr(int32(4))
			j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{Action: batchv1.PodFailurePolicyActionIgnore, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{3}}},
				{Action: batchv1.PodFailurePolicyActionCount, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{4}}},
			}}
			return j
		}(),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			return []*corev1.Pod{
				pod(j, "a", corev1.PodRunning, -1, 0), pod(j, "b", corev1.PodRunning, -1, 0),
				pod(j, "c", corev1.PodFailed, -1, 3), pod(j, "d", corev1.PodFailed, -1, 4), pod(j, "e", corev1.PodFailed, -1, 4),
				pod(j, "f", corev1.PodFailed, -1, 9),
			}
		},
		out: func(p jobsync.Plan) Outcome {
			o := allWritten(p)
			o.Created = 0
			return o
		},
		want: Record{Counted: true, CompletionMode: nonIndexed, Result: ResultSuccess, Action: ActionPodsCreated, Adds: []Add{
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 0},
			{namePodFailuresByPolicy, []string{string(batchv1.PodFailurePolicyActionIgnore)}, 1},
			{namePodFailuresByPolicy, []string{string(batchv1.PodFailurePolicyActionCount)}, 2},
			{namePodsFinished, []string{nonIndexed, Succeeded}, 0},
			{namePodsFinished, []string{nonIndexed, Failed}, 3},
		}},
	}, {
		name: "an Indexed Job counts its finished indexes",
		job:  indexedJob(),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			return []*corev1.Pod{pod(j, "a", corev1.PodSucceeded, 0, 0), pod(j, "b", corev1.PodRunning, 1, 0)}
		},
		want: Record{Counted: true, CompletionMode: indexed, Result: ResultSuccess, Action: ActionTracking, Adds: []Add{
			{nameFinishedIndexes, []string{Succeeded, BackoffGlobal}, 1},
			{namePodsFinished, []string{indexed, Succeeded}, 1},
			{namePodsFinished, []string{indexed, Failed}, 0},
		}},
	}, {
		// Index 0 failed for good, index 1 runs: the Job wants two pods,
		// has one, and no pending index is left to create. Upstream's
		// manage reports pods_created all the same.
		name: "an Indexed Job wanting a pod no pending index can take",
		job: func() *batchv1.Job {
			j := indexedJob()
			j.Spec.BackoffLimitPerIndex = ptr(int32(0))
			j.Spec.BackoffLimit = ptr(int32(2147483647))
			return j
		}(),
		pods: func(j *batchv1.Job) []*corev1.Pod {
			return []*corev1.Pod{pod(j, "a", corev1.PodFailed, 0, 1), pod(j, "b", corev1.PodRunning, 1, 0)}
		},
		want: Record{Counted: true, CompletionMode: indexed, Result: ResultSuccess, Action: ActionPodsCreated, Adds: []Add{
			// The write-ahead status records the failed index, the final
			// one counts the failed pod.
			{nameFinishedIndexes, []string{Succeeded, BackoffPerIndex}, 0},
			{nameFinishedIndexes, []string{Failed, BackoffPerIndex}, 1},
			{namePodsFinished, []string{indexed, Succeeded}, 0},
			{namePodsFinished, []string{indexed, Failed}, 0},
			{nameFinishedIndexes, []string{Succeeded, BackoffPerIndex}, 0},
			{namePodsFinished, []string{indexed, Succeeded}, 0},
			{namePodsFinished, []string{indexed, Failed}, 1},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pods []*corev1.Pod
			if tt.pods != nil {
				pods = tt.pods(tt.job)
			}
			plan := reconcile(t, jobsync.Snapshot{Job: tt.job, Pods: pods, Expectations: tt.exp})
			out := allWritten(plan)
			if tt.out != nil {
				out = tt.out(plan)
			}
			got := ForSync(tt.job, plan, out)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ForSync (-want +got):\n%s\nplan: creations %d deletions %d removals %d interim %v status %v notes %q",
					diff, len(plan.Creations), len(plan.Deletions), len(plan.FinalizerRemovals), plan.InterimStatus != nil, plan.Status != nil, plan.Notes)
			}
		})
	}
}

func TestTerminatedEvent(t *testing.T) {
	j := newJob()
	running, done := pod(j, "a", corev1.PodRunning, -1, 0), pod(j, "a", corev1.PodSucceeded, -1, 0)
	released := done.DeepCopy()
	released.Finalizers = nil
	for _, tt := range []struct {
		name     string
		old, cur *corev1.Pod
		want     string
	}{
		{"a pod finishes with the finalizer", running, done, EventAdd},
		{"a finished pod loses the finalizer", done, released, EventDelete},
		{"a finished pod with the finalizer is deleted", done, nil, EventDelete},
		{"a finished pod with the finalizer is first seen", nil, done, EventAdd},
		{"a running pod changes", running, running, ""},
		{"a finished pod without the finalizer is deleted", released, nil, ""},
	} {
		if got := TerminatedEvent(tt.old, tt.cur, batchv1.JobTrackingFinalizer); got != tt.want {
			t.Errorf("%s: TerminatedEvent = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := TerminatedEvent(running, done, "example.com/other"); got != "" {
		t.Errorf("another finalizer: TerminatedEvent = %q, want none", got)
	}
}

func TestExternalController(t *testing.T) {
	j := newJob()
	if _, ok := ExternalController(j); ok {
		t.Error("a Job without managedBy counted as external")
	}
	j.Spec.ManagedBy = ptr(batchv1.JobControllerName)
	if _, ok := ExternalController(j); ok {
		t.Error("a Job managed by the built-in controller counted as external")
	}
	j.Spec.ManagedBy = ptr("example.com/q")
	if name, ok := ExternalController(j); !ok || name != "example.com/q" {
		t.Errorf("ExternalController = %q, %v", name, ok)
	}
}
