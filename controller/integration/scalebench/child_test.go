package scalebench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	upstream "k8s.io/kubernetes/pkg/controller/job"

	"github.com/jobsync/jobsync/controller/integration/apicalls"
	"github.com/jobsync/jobsync/controller/integration/internal/childproc"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// childEnv names the environment variable that makes the test binary a
// controller process: its value is a childSpec in JSON.
const childEnv = "SCALEBENCH_CHILD"

// oursName is the spec.managedBy value of the Jobs jobcontroller runs here.
const oursName = "jobsync.io/scalebench"

// The kinds of controller measured.
const (
	kindUpstream = "upstream"
	kindOurs     = "ours"      // jobcontroller, pods held by event
	kindOursScan = "ours-scan" // jobcontroller with Options.ScanPods
)

// childSpec is what the parent tells a controller process.
type childSpec struct {
	Kind   string
	Host   string
	TLS    rest.TLSClientConfig
	Token  string
	QPS    float32
	Burst  int
	Output string
	// CPUProfile, if set, is where the controller process writes its CPU
	// profile.
	CPUProfile string
}

// childResult is what the controller process writes when it stops: its
// requests, and its own CPU time and peak RSS (the parent cannot read
// them once the child is reaped, and Linux folds the forking parent's
// peak into the child's ru_maxrss at exec).
type childResult struct {
	Calls map[string]int
	// NotProtobuf counts the requests that did not ask for protobuf
	// first.
	NotProtobuf int
	CPU         time.Duration // user + system, every thread
	PeakRSS     int64         // VmHWM, bytes
}

// runChild runs a controller process when the binary is started as one
// (it never returns then).
func runChild() {
	var cs childSpec
	if !childproc.Spec(childEnv, &cs) {
		return
	}
	calls := &counter{counts: map[string]int{}}
	// Both run as in production: kube-controller-manager's client (and
	// jobsync-controller's, which follows its flags) talks protobuf and
	// turns compression off.
	cfg := &rest.Config{Host: cs.Host, BearerToken: cs.Token, TLSClientConfig: cs.TLS, QPS: cs.QPS, Burst: cs.Burst,
		ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf}, DisableCompression: true}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{calls, rt} })
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	if cs.CPUProfile != "" {
		f, err := os.Create(cs.CPUProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scalebench child:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "scalebench child:", err)
			os.Exit(2)
		}
	}
	wait, err := startController(ctx, cs.Kind, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalebench child:", err)
		os.Exit(2)
	}
	<-ctx.Done()
	wait()
	pprof.StopCPUProfile()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	counts, notProtobuf := calls.snapshot()
	res := childResult{Calls: counts, NotProtobuf: notProtobuf, CPU: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), PeakRSS: childproc.PeakRSS()}
	data, _ := json.Marshal(res)
	if err := os.WriteFile(cs.Output, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// startController starts a controller of kind on cfg until ctx ends; the
// returned function waits until it has stopped. Upstream's runs as its
// own integration tests run it (NewController, five workers).
func startController(ctx context.Context, kind string, cfg *rest.Config) (func(), error) {
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(cfg, kind))
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	switch kind {
	case kindUpstream:
		factory := informers.NewSharedInformerFactory(client, 0)
		jc, err := upstream.NewController(ctx, client, factory.Core().V1().Pods(), factory.Batch().V1().Jobs(), nil, nil)
		if err != nil {
			return nil, err
		}
		factory.Start(ctx.Done())
		factory.WaitForCacheSync(ctx.Done())
		go func() {
			defer close(done)
			jc.Run(ctx, 5)
			factory.Shutdown()
		}()
	case kindOurs, kindOursScan:
		jc, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: oursName, ScanPods: kind == kindOursScan})
		if err != nil {
			return nil, err
		}
		go func() {
			defer close(done)
			if err := jc.Run(ctx); err != nil && ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "jobcontroller.Run")
			}
		}()
	default:
		return nil, fmt.Errorf("no controller of kind %q", kind)
	}
	return func() { <-done }, nil
}

// counter counts requests by verb and resource ("create pods", "update
// jobs/status", "watch pods"), and those whose Accept header does not put
// protobuf first.
type counter struct {
	mu          sync.Mutex
	counts      map[string]int
	notProtobuf int
}

func (c *counter) snapshot() (map[string]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out, c.notProtobuf
}

type countingTransport struct {
	c  *counter
	rt http.RoundTripper
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := apicalls.Name(req)
	t.c.mu.Lock()
	t.c.counts[key]++
	if !strings.HasPrefix(req.Header.Get("Accept"), runtime.ContentTypeProtobuf) {
		t.c.notProtobuf++
	}
	t.c.mu.Unlock()
	return t.rt.RoundTrip(req)
}
