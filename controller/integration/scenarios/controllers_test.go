package scenarios

import (
	"context"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"
	upstream "k8s.io/kubernetes/pkg/controller/job"
)

// controllerSpec says how to start one Job controller.
type controllerSpec struct {
	// kind is "upstream" or "ours".
	kind string
	// qps and burst are its client's rate limits; qps < 0 means none.
	qps   float32
	burst int
	// failWrites is the share of its writes failed before they are sent.
	failWrites float64
	seed       uint64
	// cutter, if set, can cut the controller's watch streams.
	cutter *watchCutter
}

// controller is a running Job controller: its kind, the spec.managedBy
// value its Jobs carry ("" for upstream's), the tracking finalizer it puts
// on pods, and the API calls it made.
type controller struct {
	kind      string
	managedBy string
	finalizer string
	calls     *apiCalls

	spec  controllerSpec
	cfg   *rest.Config
	mu    sync.Mutex
	stopF func()
	// restarts counts the times it was stopped and started again.
	restarts int
}

// starters start a controller of a kind on cfg (already counted and rate
// limited) until ctx is done; the returned function waits until it has
// stopped. upstream is always there; ours registers itself (ours_test.go).
var starters = map[string]func(ctx context.Context, c *controller) (wait func(), err error){
	"upstream": startUpstream,
}

// identities are the managedBy value and tracking finalizer of each kind.
var identities = map[string][2]string{
	"upstream": {"", batchv1.JobTrackingFinalizer},
}

// startController starts a controller of the kind spec names on srv's
// config; it stops when t ends.
func startController(t *testing.T, cfg *rest.Config, spec controllerSpec) *controller {
	t.Helper()
	id, ok := identities[spec.kind]
	if !ok {
		t.Fatalf("no controller of kind %q in this build", spec.kind)
	}
	c := &controller{kind: spec.kind, managedBy: id[0], finalizer: id[1], calls: newAPICalls(), spec: spec}
	if spec.failWrites > 0 {
		c.calls.failWrites = spec.failWrites
		c.calls.rng = newRand(spec.seed)
	}
	c.cfg = c.calls.config(cfg, spec.qps, spec.burst)
	if spec.cutter != nil {
		c.cfg.Wrap(spec.cutter.wrap)
	}
	c.start(t)
	t.Cleanup(c.stop)
	return c
}

func (c *controller) start(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	wait, err := starters[c.kind](ctx, c)
	if err != nil {
		cancel()
		t.Errorf("starting the %s controller: %v", c.kind, err) // Errorf: restarts run in goroutines
		return
	}
	c.mu.Lock()
	c.stopF = func() { cancel(); wait() }
	c.mu.Unlock()
}

// stop stops the controller and waits until it has.
func (c *controller) stop() {
	c.mu.Lock()
	f := c.stopF
	c.stopF = nil
	c.mu.Unlock()
	if f != nil {
		f()
	}
}

// restart stops the controller and starts a fresh one: all its memory
// (informer caches, expectations, backoff records) is lost.
func (c *controller) restart(t *testing.T) {
	c.stop()
	c.restarts++
	c.start(t)
}

// startUpstream runs kube-controller-manager's Job controller as upstream's
// own integration tests do: NewController on a shared informer factory,
// Run with the default five workers once the caches are synced.
func startUpstream(ctx context.Context, c *controller) (func(), error) {
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(c.cfg, "job-controller"))
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	jc, err := upstream.NewController(ctx, client, factory.Core().V1().Pods(), factory.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	done := make(chan struct{})
	go func() {
		defer close(done)
		jc.Run(ctx, 5)
	}()
	return func() {
		<-done
		factory.Shutdown()
	}, nil
}
