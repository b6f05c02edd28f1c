package memory_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// One sync's use of the store: Snapshot (the memory, then the pods),
// Reconcile, Begin before any API call; the informer's observations then
// lower the memory stored.
func Example() {
	store := memory.NewStore()
	parallelism, completions := int32(2), int32(2)
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pi", UID: "0a1b"},
		Spec: batchv1.JobSpec{
			Parallelism: &parallelism, Completions: &completions,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "pi"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "pi", Image: "perl"}}},
			},
		},
	})
	now := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

	// The memory first, then the pods: Snapshot calls the lister itself.
	snap, err := store.Snapshot(job, now, memory.NoPods)
	if err != nil {
		panic(err)
	}
	opts := jobsync.Options{}
	plan, err := jobsync.Reconcile(snap, opts)
	if err != nil {
		panic(err)
	}
	sync := store.Begin(snap, opts, plan) // before the first API call
	_ = sync                              // executor.Execute(ctx, sync) carries the plan out

	mem, _ := store.Get("default", "pi", "0a1b")
	fmt.Println("creations planned:", len(plan.Creations), "expected:", mem.Expectations.Creations)

	// The informer sees the first created pod.
	observer := memory.Observer{Store: store, Finalizer: batchv1.JobTrackingFinalizer,
		Jobs: func(namespace, name string) *batchv1.Job { return job }}
	pod := plan.Creations[0].Pod.DeepCopy()
	pod.Name, pod.UID, pod.ResourceVersion = "pi-x7k2q", "9f", "12"
	observer.PodAdded(pod)
	mem, _ = store.Get("default", "pi", "0a1b")
	fmt.Println("after one observation, expected:", mem.Expectations.Creations)
	// Output:
	// creations planned: 2 expected: 2
	// after one observation, expected: 1
}
