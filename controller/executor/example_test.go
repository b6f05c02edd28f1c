package executor_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// The shape of one sync carried out by the executor. The fake clientset
// only makes the example compile and run here; it assigns no names, UIDs or
// resourceVersions, so the executor's real behaviour is tested against a
// real kube-apiserver (controller/integration).
func ExampleExecutor_Execute() {
	client := fake.NewClientset()
	store := memory.NewStore()
	x := &executor.Executor{
		Client:            client,
		Recorder:          record.NewFakeRecorder(100),
		TrackingFinalizer: "example.com/jobsync-tracking",
	}
	opts := jobsync.Options{ControllerName: "example.com/jobsync", TrackingFinalizer: x.TrackingFinalizer}

	// listPods lists a Job's pods from the informer cache (controlled pods
	// and orphans matching its selector); here there are none.
	listPods := func(job *batchv1.Job) ([]*corev1.Pod, error) { return nil, nil }

	sync := func(ctx context.Context, job *batchv1.Job) error {
		// The memory is read first, then the pods are listed: Snapshot
		// calls listPods itself, so the order that counts a pod twice
		// cannot be written.
		snap, err := store.Snapshot(job, time.Now(), listPods)
		if err != nil {
			return err
		}
		plan, err := jobsync.Reconcile(snap, opts)
		if err != nil {
			return err
		}
		res, err := x.Execute(ctx, store.Begin(snap, opts, plan))
		var stepErr *executor.Error
		if errors.As(err, &stepErr) {
			// A failed pod creation or deletion still let the status
			// be written; another failure stopped the plan at
			// stepErr.Step. The memory keeps what the library says
			// (jobsync.Advance). Retry with a rate limit.
			return err
		}
		if res.RequeueAfter > 0 {
			fmt.Println("sync again in", res.RequeueAfter)
		}
		return err
	}
	_ = sync
}
