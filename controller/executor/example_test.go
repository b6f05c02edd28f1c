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

	sync := func(ctx context.Context, job *batchv1.Job, pods []*corev1.Pod) error {
		snap := store.Snapshot(job, pods, time.Now())
		plan, err := jobsync.Reconcile(snap, opts)
		if err != nil {
			return err
		}
		res, err := x.Execute(ctx, store.Begin(snap, plan))
		var stepErr *executor.Error
		if errors.As(err, &stepErr) {
			// The plan stopped at stepErr.Step; the memory was lowered for
			// what was not done. Retry with a rate limit.
			return err
		}
		if res.RequeueAfter > 0 {
			fmt.Println("sync again in", res.RequeueAfter)
		}
		return err
	}
	_ = sync
}
