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

// A caller that keeps a Job's pods by event (an informer's handlers, a
// simulator) puts every pod it hears of into an ActivePods; the pods Put
// does not take (finished, being deleted, not the Job's) it keeps in a
// list of its own, handed to Reconcile in Snapshot.Pods. Here three pods
// of a Job of four completions run and are held; then one succeeds: its
// new version is not active, so Put lets go of it and the caller keeps it
// in Pods. Reconcile counts it, releases its finalizer and creates a pod
// in its place, reading only the set's sums of the held pods, and plans as
// it would with every pod in Pods.
func ExampleActivePods() {
	job := exampleJob()
	job.Spec.Completions, job.Spec.Parallelism = ptr(int32(4)), ptr(int32(3))
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	job.Status = batchv1.JobStatus{
		StartTime: &metav1.Time{Time: start}, Active: 3, Ready: ptr(int32(3)), Terminating: ptr(int32(0)),
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
	}

	held := jobsync.NewActivePods(job)
	others := map[types.UID]*corev1.Pod{} // the pods held elsewhere than in the set
	// onPod is the handler of a pod's creation or update; a caller calls
	// held.Delete and deletes from others when a pod is gone.
	onPod := func(p *corev1.Pod) {
		if held.Put(p) {
			delete(others, p.UID)
		} else {
			others[p.UID] = p
		}
	}

	running := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: job.Namespace, UID: types.UID("uid-" + name),
				CreationTimestamp: metav1.NewTime(start),
				Labels:            job.Spec.Template.Labels,
				OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
				Finalizers:        []string{batchv1.JobTrackingFinalizer},
			},
			Status: corev1.PodStatus{
				Phase:      corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			},
		}
	}
	a, c := running("pi-a"), running("pi-c")
	for _, p := range []*corev1.Pod{a, running("pi-b"), c} {
		onPod(p)
	}
	// pi-b succeeds: the informer hands over a new object.
	succeeded := running("pi-b")
	succeeded.Status.Phase = corev1.PodSucceeded
	succeeded.Status.Conditions[0].Status = corev1.ConditionFalse
	onPod(succeeded)
	fmt.Println("held:", held.Len(), "others:", len(others))

	var pods []*corev1.Pod
	for _, p := range others {
		pods = append(pods, p)
	}
	now := start.Add(time.Minute)
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Active: held, Now: now}, jobsync.Options{})
	if err != nil {
		panic(err)
	}
	// The same plan as with every pod in Pods.
	whole, _ := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: append(pods, a, c), Now: now}, jobsync.Options{})
	fmt.Println("same plan as with every pod in Pods:", reflect.DeepEqual(plan, whole))
	for _, c := range plan.Creations {
		fmt.Printf("create %s* (%s)\n", c.Pod.GenerateName, c.Reason)
	}
	for _, r := range plan.FinalizerRemovals {
		fmt.Println("release", r.Pod.Name)
	}
	if st := plan.InterimStatus; st != nil {
		fmt.Println("interim status: active", st.Active, "ready", *st.Ready, "uncounted succeeded", st.UncountedTerminatedPods.Succeeded)
	}
	if st := plan.Status; st != nil {
		fmt.Println("status: active", st.Active, "ready", *st.Ready, "succeeded", st.Succeeded)
	}
	// Output:
	// held: 2 others: 1
	// same plan as with every pod in Pods: true
	// create pi-* (2 pods are active, the Job wants 3)
	// release pi-b
	// interim status: active 3 ready 2 uncounted succeeded [uid-pi-b]
	// status: active 3 ready 2 succeeded 1
}
