package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// config holds the command line.
type config struct {
	kubeconfig     string
	controllerName string
	workers        int
	qps            float64
	burst          int
	actAsBuiltIn   bool

	leaderElect   bool
	leaseNS       string
	leaseName     string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
}

func defaultConfig() config {
	return config{
		workers:       jobcontroller.DefaultWorkers,
		qps:           50,
		burst:         100,
		leaseNS:       "default",
		leaseDuration: 15 * time.Second,
		renewDeadline: 10 * time.Second,
		retryPeriod:   2 * time.Second,
	}
}

func (c *config) bind(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", c.kubeconfig, "path to a kubeconfig; empty means the in-cluster configuration")
	fs.StringVar(&c.controllerName, "controller-name", c.controllerName, "the spec.managedBy value of the Jobs to run (required), e.g. example.com/jobsync")
	fs.BoolVar(&c.actAsBuiltIn, "act-as-builtin-job-controller", c.actAsBuiltIn, "run the Jobs of Kubernetes' built-in Job controller (no spec.managedBy, or kubernetes.io/job-controller) with its finalizer; only for clusters without kube-controller-manager (envtest, test API servers, KWOK-style clusters)")
	fs.IntVar(&c.workers, "workers", c.workers, "number of Jobs synced at once")
	fs.Float64Var(&c.qps, "kube-api-qps", c.qps, "queries per second to the API server")
	fs.IntVar(&c.burst, "kube-api-burst", c.burst, "burst of queries to the API server")
	fs.BoolVar(&c.leaderElect, "leader-elect", c.leaderElect, "run only while holding a Lease, so that several replicas can be deployed")
	fs.StringVar(&c.leaseNS, "leader-elect-namespace", c.leaseNS, "namespace of the leader election Lease")
	fs.StringVar(&c.leaseName, "leader-elect-name", c.leaseName, "name of the leader election Lease; empty means jobcontroller.LeaseNameFor(--controller-name)")
	fs.DurationVar(&c.leaseDuration, "leader-elect-lease-duration", c.leaseDuration, "how long a Lease holds without renewal")
	fs.DurationVar(&c.renewDeadline, "leader-elect-renew-deadline", c.renewDeadline, "how long the leader tries to renew before giving up")
	fs.DurationVar(&c.retryPeriod, "leader-elect-retry-period", c.retryPeriod, "how often to try to acquire or renew the Lease")
}

func restConfig(c config) (*rest.Config, error) {
	if c.kubeconfig == "" {
		if cfg, err := rest.InClusterConfig(); err == nil {
			return cfg, nil
		}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = c.kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
}

// run builds the controller and runs it until ctx ends, under leader
// election if asked.
func run(ctx context.Context, c config) error {
	if c.controllerName == "" && !c.actAsBuiltIn {
		return errors.New("--controller-name is required (or --act-as-builtin-job-controller on a cluster without kube-controller-manager)")
	}
	cfg, err := restConfig(c)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(c.qps), c.burst
	cfg.UserAgent = "jobsync-controller"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctrl, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: c.controllerName, Workers: c.workers, ActAsBuiltIn: c.actAsBuiltIn})
	if err != nil {
		return err
	}
	if !c.leaderElect {
		return ctrl.Run(ctx)
	}
	return runElected(ctx, c, ctrl)
}

func runElected(ctx context.Context, c config, ctrl *jobcontroller.Controller) error {
	return ctrl.RunLeaderElected(ctx, jobcontroller.LeaderElection{
		Namespace:     c.leaseNS,
		Name:          c.leaseName,
		LeaseDuration: c.leaseDuration,
		RenewDeadline: c.renewDeadline,
		RetryPeriod:   c.retryPeriod,
	})
}
