package runner_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/jobsync/jobsync/controller/jobtest"
	runner "github.com/jobsync/jobsync/examples/envtest"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var (
	k8sClient client.Client
	testEnv   *envtest.Environment
	jobs      *jobtest.Env
	cancel    context.CancelFunc
)

func TestRunner(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Runner Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	Expect(os.Getenv("KUBEBUILDER_ASSETS")).NotTo(BeEmpty(),
		"KUBEBUILDER_ASSETS must name a directory holding kube-apiserver and etcd: (cd controller && go run ./cmd/envtest-assets -o DIR)")

	testEnv = &envtest.Environment{}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	var ctx context.Context
	ctx, cancel = context.WithCancel(context.Background())
	// What envtest lacks: a Job controller and kubelets. Pods whose command
	// is "false" fail; the others run 100ms and succeed.
	jobs, err = jobtest.Start(ctx, cfg, jobtest.Options{
		Sync: jobsync.Options{BackoffBase: 100 * time.Millisecond},
		ScriptFor: func(job *batchv1.Job) *jobsynctest.Script {
			if slices.Equal(job.Spec.Template.Spec.Containers[0].Command, []string{"false"}) {
				return &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 50 * time.Millisecond, ExitCode: 1}}
			}
			return nil
		},
	})
	Expect(err).NotTo(HaveOccurred())

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	Expect(err).NotTo(HaveOccurred())
	Expect((&runner.Runner{Client: mgr.GetClient()}).SetupWithManager(mgr)).To(Succeed())
	k8sClient = mgr.GetClient()
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
})

var _ = AfterSuite(func() {
	if cancel != nil {
		cancel()
	}
	if jobs != nil {
		Expect(jobs.Stop()).To(Succeed())
	}
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
