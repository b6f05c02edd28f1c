package customresource

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"
	upstream "k8s.io/kubernetes/pkg/controller/job"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/kubeletplayer"
	example "github.com/jobsync/jobsync/examples/customresource"
	"github.com/jobsync/jobsync/jobsync"
)

// env is one API server with the TrainingRun CRD, upstream's Job
// controller, the example's controller and a kubelet player for each
// owner kind.
type env struct {
	ctx  context.Context
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

// restartDelay is the players' crash-loop back-off base.
const restartDelay = 300 * time.Millisecond

func newEnv(t *testing.T) *env {
	t.Helper()
	srv := apiservertest.Start(t)
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	var stops []func()
	t.Cleanup(func() {
		cancel()
		for _, stop := range stops {
			stop()
		}
	})
	e := &env{ctx: ctx, kube: srv.Client}
	var err error
	if e.dyn, err = dynamic.NewForConfig(srv.Config); err != nil {
		t.Fatal(err)
	}
	installCRD(t, ctx, srv.Config)

	// Upstream's Job controller, as its own integration tests run it.
	upClient := kubernetes.NewForConfigOrDie(clientConfig(srv.Config, "job-controller"))
	factory := informers.NewSharedInformerFactory(upClient, 0)
	jc, err := upstream.NewController(ctx, upClient, factory.Core().V1().Pods(), factory.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		t.Fatalf("upstream's Job controller: %v", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	stops = append(stops, goRun(func() { jc.Run(ctx, 5) }), factory.Shutdown)

	// The example's controller, on clients of its own.
	cfg := clientConfig(srv.Config, "trainingrun-controller")
	c, err := example.New(kubernetes.NewForConfigOrDie(cfg), dynamic.NewForConfigOrDie(cfg), jobsync.Options{BackoffBase: backoffBase})
	if err != nil {
		t.Fatalf("the example's controller: %v", err)
	}
	stops = append(stops, goRun(func() { c.Run(ctx, 5) }))
	return e
}

// clientConfig is a copy of cfg for one controller: its user agent, and
// no client-side rate limit for either controller, so that neither waits
// on its own client while the other does not.
func clientConfig(cfg *rest.Config, userAgent string) *rest.Config {
	cfg = rest.AddUserAgent(rest.CopyConfig(cfg), userAgent)
	cfg.QPS, cfg.Burst = -1, -1
	return cfg
}

// player starts a kubelet player for the pods whose controller is of the
// kind opts.Owner names; it stops when t ends and fails t if an API call
// failed.
func (e *env) player(t *testing.T, opts kubeletplayer.Options) *kubeletplayer.Player {
	t.Helper()
	opts.RestartDelay, opts.Concurrency = restartDelay, 32
	p := kubeletplayer.New(e.kube, opts)
	ctx, cancel := context.WithCancel(e.ctx)
	stop := goRun(func() {
		if err := p.Run(ctx); err != nil {
			t.Errorf("kubelet player: %v", err)
		}
	})
	t.Cleanup(func() {
		cancel()
		stop()
		if s := p.Stats(); s.Errors > 0 {
			t.Errorf("kubelet player: %d failed API calls, the last: %v", s.Errors, s.Err)
		}
	})
	return p
}

// goRun runs f in a goroutine and returns a function that waits for it.
func goRun(f func()) func() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	return func() { <-done }
}
