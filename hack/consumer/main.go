//go:build ignore

// A program of a Go user of jobsync, built by hack/outside-check.sh in a
// module of its own outside the tree: one sync of a new Job, decided by
// jobsync and carried out by the controller module's executor (with its
// memory store) against client-go's fake clientset; controller-runtime is
// in the graph, as in most controllers.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// newJob is a Job of two pods, as the API server would store it before
// defaulting.
func newJob() *batchv1.Job {
	two := int32(2)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: "pi-uid", CreationTimestamp: metav1.Now()},
		Spec: batchv1.JobSpec{
			Parallelism: &two, Completions: &two,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: "pi-uid"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{batchv1.ControllerUidLabel: "pi-uid"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "pi", Image: "perl"}}},
			},
		},
	}
}

func main() {
	job := jobspec.Default(newJob())
	opts := jobsync.Options{ControllerName: "example.com/consumer", TrackingFinalizer: "example.com/consumer"}
	store := memory.NewStore()
	// The store reads the Job's memory, then lists its pods (none yet).
	snap, err := store.Snapshot(job, time.Now(), func(*batchv1.Job) ([]*corev1.Pod, error) { return nil, nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, "snapshot:", err)
		os.Exit(1)
	}
	plan, err := jobsync.Reconcile(snap, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reconcile:", err)
		os.Exit(1)
	}
	cs := fake.NewClientset(job)
	// The fake clientset does not generate names, as the API server does.
	created := 0
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if p.Name == "" {
			created++
			p.Name = fmt.Sprintf("%s%d", p.GenerateName, created)
		}
		return false, nil, nil
	})
	x := &executor.Executor{Client: cs, Recorder: record.NewFakeRecorder(100), TrackingFinalizer: opts.TrackingFinalizer}
	res, err := x.Execute(context.Background(), store.Begin(snap, opts, plan))
	if err != nil {
		fmt.Fprintln(os.Stderr, "execute:", err)
		os.Exit(1)
	}
	pods, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pods.Items) != 2 || res.Created != 2 {
		fmt.Fprintf(os.Stderr, "want 2 pods created, got %d (result %+v, error %v)\n", len(pods.Items), res, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d pods created\n", client.ObjectKeyFromObject(job), res.Created)
}
