package crjob_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/jobsync/jobsync/controller/crjob"
	"github.com/jobsync/jobsync/controller/jobtest"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// controllerName is the spec.managedBy of the Jobs crjob runs in the suite.
const controllerName = "example.com/crjob"

// scriptLabel names the behaviour of a Job's pods (scripts).
const scriptLabel = "crjob.test/script"

// scripts are the behaviours the kubelet player gives pods, by the
// scriptLabel of their Job.
var scripts = map[string]*jobsynctest.Script{
	"succeed": {Default: &jobsynctest.Behavior{RunTime: 100 * time.Millisecond}},
	"fail":    {Default: &jobsynctest.Behavior{RunTime: 50 * time.Millisecond, ExitCode: 1}},
	"exit42":  {Default: &jobsynctest.Behavior{RunTime: 50 * time.Millisecond, ExitCode: 42}},
	"forever": {Default: &jobsynctest.Behavior{Forever: true}},
}

// clientset reaches the suite's API server.
var clientset kubernetes.Interface

// TestMain starts a kube-apiserver and etcd (envtest, with the binaries
// KUBEBUILDER_ASSETS names), the controller module's jobtest (jobcontroller
// running the Jobs without spec.managedBy, and the kubelet player running
// every Job's pods), and a controller-runtime Manager running crjob for
// the Jobs managed by controllerName. Each test then creates twin Jobs,
// one for each controller, and compares how they end.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS must name a directory holding kube-apiserver and etcd: (cd controller && go run ./cmd/envtest-assets -o DIR)")
		return 1
	}
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest:", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	jobs, err := jobtest.Start(ctx, cfg, jobtest.Options{
		Sync: jobsync.Options{BackoffBase: 100 * time.Millisecond},
		ScriptFor: func(job *batchv1.Job) *jobsynctest.Script {
			return scripts[job.Labels[scriptLabel]]
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting jobtest:", err)
		return 1
	}
	defer func() {
		if err := jobs.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "jobtest:", err)
		}
	}()
	mgrDone, err := startManager(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the manager:", err)
		return 1
	}
	defer func() {
		cancel()
		if err := <-mgrDone; err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	clientset = kubernetes.NewForConfigOrDie(cfg)
	return m.Run()
}

func startManager(ctx context.Context, cfg *rest.Config) (<-chan error, error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return nil, err
	}
	if _, err := crjob.SetupWithManager(mgr, crjob.Options{
		ControllerName: controllerName,
		Sync:           jobsync.Options{BackoffBase: 100 * time.Millisecond},
	}); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return done, nil
}
