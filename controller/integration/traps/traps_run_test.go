package traps

import (
	"context"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// TestControllerRunsAJobToCompletion is the smallest end-to-end run: the
// controller creates the pods of a Job managed by it, counts them once
// they succeed, takes its finalizer off and completes the Job, through the
// real status subresource; a Job managed by nobody in particular is left
// alone.
func TestControllerRunsAJobToCompletion(t *testing.T) {
	ctx := context.Background()
	srv := apiservertest.Start(t)
	runController(t, srv.Config, jobcontroller.Options{Workers: 2})

	job, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob("pi", 2, 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := newJob("not-ours", 1, 1)
	other.Spec.ManagedBy = nil
	if other, err = srv.Client.BatchV1().Jobs("default").Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	pods := waitPods(t, ctx, srv.Client, job, 2)
	for _, p := range pods {
		if !slices.Contains(p.Finalizers, finalizer) {
			t.Errorf("pod %s has finalizers %v, want %s", p.Name, p.Finalizers, finalizer)
		}
		finishPod(t, ctx, srv.Client, p, 0)
	}
	eventually(t, 30*time.Second, "the Job completes", func() (bool, error) {
		j, err := srv.Client.BatchV1().Jobs("default").Get(ctx, "pi", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		job = j
		return hasCondition(j, batchv1.JobComplete), nil
	})
	if job.Status.Succeeded != 2 || job.Status.Active != 0 {
		t.Errorf("status: succeeded %d active %d, want 2 and 0", job.Status.Succeeded, job.Status.Active)
	}
	pods, err = podsOf(ctx, srv.Client, job)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if slices.Contains(p.Finalizers, finalizer) {
			t.Errorf("pod %s kept the tracking finalizer after the Job completed", p.Name)
		}
	}
	if left, _ := podsOf(ctx, srv.Client, other); len(left) != 0 {
		t.Errorf("the controller made %d pods for a Job it does not manage", len(left))
	}
}
