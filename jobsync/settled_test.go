package jobsync_test

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync"
)

// settledPod is a pod of exampleJob that has succeeded and been counted:
// the one kind of pod a SettledFilter settles.
func settledPod(job *batchv1.Job) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: job.Name + "-done", Namespace: job.Namespace, UID: "p-done",
			Labels:          map[string]string{batchv1.ControllerUidLabel: string(job.UID)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Status: corev1.PodStatus{Phase: corev1.PodSucceeded},
	}
}

func TestSettledFilter(t *testing.T) {
	job := exampleJob()
	other := exampleJob()
	other.UID = "another-job"
	tests := []struct {
		name   string
		job    *batchv1.Job
		change func(p *corev1.Pod)
		opts   jobsync.Options
		want   bool
	}{
		{name: "succeeded, counted, controlled and selected", want: true},
		{name: "failed and counted", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }, want: true},
		{name: "being deleted makes no difference to a terminal pod", change: func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} }, want: true},
		{name: "running", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }},
		{name: "pending", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }},
		{name: "no phase", change: func(p *corev1.Pod) { p.Status.Phase = "" }},
		{name: "still carries the tracking finalizer", change: func(p *corev1.Pod) { p.Finalizers = []string{batchv1.JobTrackingFinalizer} }},
		{name: "carries the caller's own tracking finalizer", opts: jobsync.Options{TrackingFinalizer: "example.com/track"},
			change: func(p *corev1.Pod) { p.Finalizers = []string{"example.com/track"} }},
		{name: "the default finalizer is not the caller's", opts: jobsync.Options{TrackingFinalizer: "example.com/track"},
			change: func(p *corev1.Pod) { p.Finalizers = []string{batchv1.JobTrackingFinalizer} }, want: true},
		{name: "labels no longer selected (to be released)", change: func(p *corev1.Pod) { p.Labels = nil }},
		{name: "orphan (to be adopted or left)", change: func(p *corev1.Pod) { p.OwnerReferences = nil }},
		{name: "non-controller reference to the Job", change: func(p *corev1.Pod) { p.OwnerReferences[0].Controller = nil }},
		{name: "controlled by another Job", job: other},
		{name: "controller reference with the Job's UID under another kind", change: func(p *corev1.Pod) { p.OwnerReferences[0].Kind = "CronJob" }},
		{name: "another namespace", change: func(p *corev1.Pod) { p.Namespace = "elsewhere" }},
		{name: "the Job has a pod failure policy", job: withPodFailurePolicy(exampleJob())},
		{name: "no Job", job: (*batchv1.Job)(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := settledPod(job)
			if tc.change != nil {
				tc.change(p)
			}
			filterJob := job
			if tc.job != nil || tc.name == "no Job" {
				filterJob = tc.job
			}
			if got := jobsync.NewSettledFilter(filterJob, tc.opts).Settled(p); got != tc.want {
				t.Errorf("Settled = %v, want %v", got, tc.want)
			}
		})
	}
	if jobsync.NewSettledFilter(job, jobsync.Options{}).Settled(nil) {
		t.Error("a nil pod is settled; Reconcile must see it to report it")
	}
}

func withPodFailurePolicy(job *batchv1.Job) *batchv1.Job {
	job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
	}}}
	return job
}

// TestPropertySettledPodsLeftOut: for any generated snapshot, leaving out
// the pods a SettledFilter settles (and counting them in SettledPods) gives
// the same plan. It also asserts that the generator reaches snapshots with
// settled pods beside others, since a property no case exercises proves
// nothing.
func TestPropertySettledPodsLeftOut(t *testing.T) {
	var cases, withSettled int
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		var opts jobsync.Options
		cases++
		plan, err := jobsync.Reconcile(s, opts)
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		without, settled := withoutSettled(s)
		if settled == 0 {
			return
		}
		withSettled++
		got, err := jobsync.Reconcile(without, opts)
		if err != nil {
			t.Fatalf("Reconcile without the %d settled pods: %v", settled, err)
		}
		if d := diffIfUnequal(plan, got); d != "" {
			t.Fatalf("leaving out %d settled pods changes the plan:\n%s", settled, d)
		}
	})
	if withSettled*10 < cases {
		t.Errorf("only %d of %d snapshots have a settled pod: the generator does not reach the property", withSettled, cases)
	}
	t.Logf("%d of %d snapshots had settled pods", withSettled, cases)
}

// TestSettledPodsNegative: a negative count is an input error.
func TestSettledPodsNegative(t *testing.T) {
	_, err := jobsync.Reconcile(jobsync.Snapshot{Job: exampleJob(), SettledPods: -1, Now: time.Unix(0, 0)}, jobsync.Options{})
	if err == nil || err.Error() != "settledPods: must not be negative (got -1)" {
		t.Fatalf("err = %v, want the negative count refused", err)
	}
}

// A controller that keeps its pods by event tests each pod once, when it
// changes, and hands Reconcile only the pods that can still change a
// decision. Here 1,000 counted pods of a finished part of the Job stay out
// of the snapshot; the plan is the one for the whole list.
func ExampleSettledFilter() {
	job := exampleJob()
	job.Spec.Completions = ptr(int32(1002))
	job.Status.Succeeded = 1000
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	job.Status.StartTime = &metav1.Time{Time: now.Add(-time.Hour)}

	settled := jobsync.NewSettledFilter(job, jobsync.Options{})
	var live []*corev1.Pod
	left := 0
	for i := range 1000 { // as the informer's events deliver them
		p := settledPod(job)
		p.Name, p.UID = fmt.Sprintf("pi-%d", i), types.UID(fmt.Sprintf("uid-%d", i))
		if settled.Settled(p) {
			left++
			continue
		}
		live = append(live, p)
	}
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: live, SettledPods: left, Now: now}, jobsync.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("pods handed over:", len(live), "settled:", left)
	fmt.Println("creations:", len(plan.Creations))
	// Output:
	// pods handed over: 0 settled: 1000
	// creations: 2
}
