package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// config holds the command line.
type config struct {
	kubeconfig     string
	controllerName string
	workers        int
	qps            float64
	burst          int

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
	fs.IntVar(&c.workers, "workers", c.workers, "number of Jobs synced at once")
	fs.Float64Var(&c.qps, "kube-api-qps", c.qps, "queries per second to the API server")
	fs.IntVar(&c.burst, "kube-api-burst", c.burst, "burst of queries to the API server")
	fs.BoolVar(&c.leaderElect, "leader-elect", c.leaderElect, "run only while holding a Lease, so that several replicas can be deployed")
	fs.StringVar(&c.leaseNS, "leader-elect-namespace", c.leaseNS, "namespace of the leader election Lease")
	fs.StringVar(&c.leaseName, "leader-elect-name", c.leaseName, "name of the leader election Lease; empty means one derived from --controller-name")
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
	if c.controllerName == "" {
		return errors.New("--controller-name is required")
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
	ctrl, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: c.controllerName, Workers: c.workers})
	if err != nil {
		return err
	}
	if !c.leaderElect {
		return ctrl.Run(ctx)
	}
	return runElected(ctx, c, client, ctrl)
}

var notLeaseChar = regexp.MustCompile(`[^a-z0-9.-]+`)

// leaseNameFor derives a Lease name from a controller name
// ("example.com/jobsync" gives "jobsync-controller.example.com.jobsync").
func leaseNameFor(controllerName string) string {
	name := "jobsync-controller." + notLeaseChar.ReplaceAllString(strings.ToLower(controllerName), ".")
	return strings.Trim(name[:min(len(name), 253)], ".-")
}

func runElected(ctx context.Context, c config, client kubernetes.Interface, ctrl *jobcontroller.Controller) error {
	logger := klog.FromContext(ctx)
	host, _ := os.Hostname()
	id := host + "_" + string(uuid.NewUUID())
	name := c.leaseName
	if name == "" {
		name = leaseNameFor(c.controllerName)
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, c.leaseNS, name,
		client.CoreV1(), client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		return err
	}
	// The election runs on its own context, cancelled only once the
	// controller has stopped: the Lease is released (ReleaseOnCancel) when
	// no sync of this replica is under way any more, so the next leader
	// never overlaps with it.
	electCtx, endElection := context.WithCancel(context.WithoutCancel(ctx))
	defer endElection()
	var (
		runErr  error
		mu      sync.Mutex
		started bool
	)
	stopped := make(chan struct{})
	// A shutdown before this replica ever led ends the election at once.
	defer context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !started {
			endElection()
		}
	})()
	leaderelection.RunOrDie(electCtx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   c.leaseDuration,
		RenewDeadline:   c.renewDeadline,
		RetryPeriod:     c.retryPeriod,
		ReleaseOnCancel: true,
		Name:            name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				mu.Lock()
				started = true
				mu.Unlock()
				defer close(stopped)
				defer endElection()
				logger.Info("Became the leader", "lease", klog.KRef(c.leaseNS, name), "identity", id)
				// The controller stops on a shutdown or when the lease
				// is lost, whichever comes first.
				runCtx, cancel := context.WithCancel(leading)
				defer cancel()
				defer context.AfterFunc(ctx, cancel)()
				runErr = ctrl.Run(runCtx)
			},
			OnStoppedLeading: func() {
				logger.Info("No longer the leader", "lease", klog.KRef(c.leaseNS, name), "identity", id)
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					logger.Info("Another replica leads", "leader", identity)
				}
			},
		},
	})
	mu.Lock()
	led := started
	mu.Unlock()
	if !led {
		return ctx.Err()
	}
	<-stopped
	if ctx.Err() == nil {
		// The lease was lost while running: a controller runs once, so the
		// process ends and its supervisor starts a fresh one.
		return errors.New("lost the leader election lease")
	}
	return runErr
}
