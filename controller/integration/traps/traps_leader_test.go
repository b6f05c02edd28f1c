package traps

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// TestLeaderElectionHandsOver: of two replicas, one leads and runs the
// Job; when it shuts down it releases the Lease after its controller has
// stopped, and the other takes over and finishes the Job.
func TestLeaderElectionHandsOver(t *testing.T) {
	ctx := context.Background()
	srv := apiservertest.Start(t)
	le := jobcontroller.LeaderElection{LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 200 * time.Millisecond}

	type replica struct {
		stop context.CancelFunc
		done chan error
	}
	start := func(identity string) replica {
		client, err := kubernetes.NewForConfig(srv.Config)
		if err != nil {
			t.Fatal(err)
		}
		c, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: controllerName})
		if err != nil {
			t.Fatal(err)
		}
		_, rctx := ktesting.NewTestContext(t)
		rctx, cancel := context.WithCancel(rctx)
		r := replica{stop: cancel, done: make(chan error, 1)}
		cfg := le
		cfg.Identity = identity
		go func() { r.done <- c.RunLeaderElected(rctx, cfg) }()
		t.Cleanup(func() {
			cancel()
			select {
			case <-r.done:
			case <-time.After(30 * time.Second):
				t.Errorf("replica %s did not stop", identity)
			}
		})
		return r
	}
	leaseName := jobcontroller.LeaseNameFor(controllerName)
	holder := func() string {
		lease, err := srv.Client.CoordinationV1().Leases("default").Get(ctx, leaseName, metav1.GetOptions{})
		if err != nil || lease.Spec.HolderIdentity == nil {
			return ""
		}
		return *lease.Spec.HolderIdentity
	}

	a := start("replica-a")
	eventually(t, 20*time.Second, "replica-a holds the Lease", func() (bool, error) { return holder() == "replica-a", nil })
	start("replica-b")

	job, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob("pi", 2, 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := waitPods(t, ctx, srv.Client, job, 1)
	finishPod(t, ctx, srv.Client, first[0], 0)
	waitPods(t, ctx, srv.Client, job, 2)

	a.stop()
	select {
	case err := <-a.done:
		if err != nil {
			t.Errorf("replica-a after a shutdown: %v", err)
		}
		a.done <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("replica-a did not stop")
	}
	eventually(t, 20*time.Second, "replica-b takes the Lease over", func() (bool, error) { return holder() == "replica-b", nil })

	pods, err := podsOf(ctx, srv.Client, job)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		if p.Status.Phase == "" || p.Status.Phase == "Pending" {
			finishPod(t, ctx, srv.Client, p, 0)
		}
	}
	eventually(t, 30*time.Second, "replica-b completes the Job", func() (bool, error) {
		j, err := srv.Client.BatchV1().Jobs("default").Get(ctx, "pi", metav1.GetOptions{})
		return err == nil && hasCondition(j, batchv1.JobComplete), err
	})
	if pods, _ := podsOf(ctx, srv.Client, job); len(pods) != 2 {
		t.Errorf("%d pods for a Job of 2 completions run one at a time, want 2", len(pods))
	}
}
