package jobsync_test

import (
	"fmt"
	"reflect"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// Four pods of a NonIndexed Job have succeeded and still carry the
// tracking finalizer; the caller holds them in a SucceededPods. With a
// cap of two recorded pods a sync (upstream's is 500), Reconcile records
// and releases the two created first, reading only them of the set, and
// plans as it would with every pod in Pods.
func ExampleSucceededPods() {
	job := exampleJob()
	job.Spec.Completions, job.Spec.Parallelism = ptr(int32(4)), ptr(int32(4))
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	job.Status = batchv1.JobStatus{
		StartTime: &metav1.Time{Time: start}, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
	}
	opts := jobsync.Options{MaxUncountedPods: 2}

	done := jobsync.NewSucceededPods(job, opts)
	var all []*corev1.Pod
	for i, name := range []string{"pi-d", "pi-b", "pi-a", "pi-c"} {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: job.Namespace, UID: types.UID("uid-" + name),
				// pi-d was created first, pi-c last.
				CreationTimestamp: metav1.NewTime(start.Add(time.Duration(i) * time.Second)),
				Labels:            job.Spec.Template.Labels,
				OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
				Finalizers:        []string{batchv1.JobTrackingFinalizer},
			},
			Status: corev1.PodStatus{Phase: corev1.PodSucceeded},
		}
		all = append(all, p)
		if !done.Put(p) {
			panic("a succeeded pod with the finalizer is not taken")
		}
	}

	now := start.Add(time.Minute)
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Succeeded: done, Now: now}, opts)
	if err != nil {
		panic(err)
	}
	whole, _ := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: all, Now: now}, opts)
	fmt.Println("same plan as with every pod in Pods:", reflect.DeepEqual(plan, whole))
	for _, r := range plan.FinalizerRemovals {
		fmt.Println("release", r.Pod.Name)
	}
	fmt.Println("uncounted succeeded:", plan.InterimStatus.UncountedTerminatedPods.Succeeded)
	fmt.Println("succeeded:", plan.Status.Succeeded)
	// Output:
	// same plan as with every pod in Pods: true
	// release pi-d
	// release pi-b
	// uncounted succeeded: [uid-pi-d uid-pi-b]
	// succeeded: 2
}
