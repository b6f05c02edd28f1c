package jobsync_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// exampleJob is a defaulted Job, as an informer would hand it over.
func exampleJob() *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: "3d8c1a7e"},
		Spec: batchv1.JobSpec{
			Completions:          ptr(int32(2)),
			Parallelism:          ptr(int32(2)),
			BackoffLimit:         ptr(int32(6)),
			CompletionMode:       ptr(batchv1.NonIndexedCompletion),
			PodReplacementPolicy: ptr(batchv1.TerminatingOrFailed),
			Suspend:              ptr(false),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: "3d8c1a7e"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{batchv1.ControllerUidLabel: "3d8c1a7e", batchv1.JobNameLabel: "pi"}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "pi", Image: "perl:5.34.0", Command: []string{"perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"}}},
				},
			},
		},
	}
}

// Reconcile on a new Job: the plan creates the pods, expects them, and
// writes the status that says they are active.
func ExampleReconcile() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: exampleJob(), Now: now}, jobsync.Options{})
	if err != nil {
		panic(err)
	}
	for _, c := range plan.Creations {
		fmt.Printf("create %s* (%s)\n", c.Pod.GenerateName, c.Reason)
	}
	fmt.Println("status: active", plan.InterimStatus.Active, "startTime", plan.InterimStatus.StartTime.UTC().Format(time.RFC3339))
	fmt.Println("expecting", plan.Expectations.Creations, "creations")
	// Output:
	// create pi-* (0 pods are active, the Job wants 2)
	// create pi-* (0 pods are active, the Job wants 2)
	// status: active 2 startTime 2026-01-01T12:00:00Z
	// expecting 2 creations
}

// An external controller (spec.managedBy) embeds jobsync in its own loop:
// it answers to its own name, uses its own tracking finalizer, carries plans
// out step by step, and keeps the controller memory between syncs. Here the
// "API" is a map and every step succeeds; a real controller stops at the
// first failed step, lowers the expectations for what it did not do, and
// syncs again.
func Example_externalController() {
	const name = "example.com/batch-controller"
	job := exampleJob()
	job.Spec.ManagedBy = ptr(name)
	opts := jobsync.Options{ControllerName: name, TrackingFinalizer: "example.com/tracking"}

	pods := map[string]*corev1.Pod{}
	exp := expectations.Expectations{}
	var backoffRecord backoff.Record
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sync := func() jobsync.Plan {
		var list []*corev1.Pod
		for _, p := range pods {
			list = append(list, p)
		}
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: list, Now: now, Expectations: exp, Backoff: backoffRecord}, opts)
		if err != nil {
			panic(err)
		}
		for i, c := range plan.Creations { // the API server names and stores the pod
			p := c.Pod.DeepCopy()
			p.Name = fmt.Sprintf("%s%d", p.GenerateName, i)
			p.UID = types.UID("uid-" + p.Name)
			p.CreationTimestamp = metav1.NewTime(now)
			pods[p.Name] = p
		}
		if plan.InterimStatus != nil {
			job.Status = *plan.InterimStatus
		}
		for _, r := range plan.FinalizerRemovals {
			pods[r.Pod.Name].Finalizers = nil
		}
		if plan.Status != nil {
			job.Status = *plan.Status
		}
		exp, backoffRecord = plan.Expectations, plan.Backoff
		for range plan.Creations { // the informer sees the new pods
			exp = exp.CreationObserved()
		}
		for _, r := range plan.FinalizerRemovals { // and the finalizers gone
			exp = exp.FinalizerRemovalObserved(r.Pod.UID)
		}
		return plan
	}

	sync()
	fmt.Println("created:", len(pods), "pods with finalizer", pods["pi-0"].Finalizers)
	now = now.Add(time.Minute) // both pods succeed
	for _, p := range pods {
		p.Status.Phase = corev1.PodSucceeded
	}
	plan := sync()
	fmt.Println("released:", len(plan.FinalizerRemovals), "events:", plan.Events)
	fmt.Println("succeeded:", job.Status.Succeeded, "last condition:", job.Status.Conditions[len(job.Status.Conditions)-1].Type)

	// The built-in controller's name skips this Job.
	skipped, _ := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: now}, jobsync.Options{})
	fmt.Println("built-in controller:", skipped.Skipped)
	// Output:
	// created: 2 pods with finalizer [example.com/tracking]
	// released: 2 events: [{Normal Completed Job completed}]
	// succeeded: 2 last condition: Complete
	// built-in controller: the Job is managed by "example.com/batch-controller", not by "kubernetes.io/job-controller"
}
