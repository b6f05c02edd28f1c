package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// config holds the command line.
type config struct {
	kubeconfig     string
	controllerName string
	workers        int
	qps            float64
	burst          int
	contentType    string
	actAsBuiltIn   bool

	metricsAddr   string
	metricsSecure bool
	metricsCerts  secureMetrics
	probeAddr     string
	featureGates  featureGates

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
		qps:           20,
		burst:         30,
		contentType:   runtime.ContentTypeProtobuf,
		metricsAddr:   ":8080",
		probeAddr:     ":8081",
		metricsCerts:  secureMetrics{certName: defaultCertName, keyName: defaultKeyName},
		featureGates:  newFeatureGate(),
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
	fs.IntVar(&c.workers, "concurrent-job-syncs", c.workers, "number of Jobs synced at once (and of orphan pods released at once)")
	fs.IntVar(&c.workers, "workers", c.workers, "DEPRECATED: use --concurrent-job-syncs")
	fs.Float64Var(&c.qps, "kube-api-qps", c.qps, "queries per second to the API server")
	fs.IntVar(&c.burst, "kube-api-burst", c.burst, "burst of queries to the API server")
	fs.StringVar(&c.contentType, "kube-api-content-type", c.contentType, `content type of requests sent to the API server ("application/json" for JSON)`)
	fs.StringVar(&c.metricsAddr, "metrics-bind-address", c.metricsAddr, `address of the /metrics endpoint, e.g. ":8080" or ":8443" with --metrics-secure; "0" turns it off`)
	fs.BoolVar(&c.metricsSecure, "metrics-secure", c.metricsSecure, "serve the metrics over HTTPS to the callers the API server authenticates (TokenReview) and allows to get /metrics (SubjectAccessReview)")
	fs.StringVar(&c.metricsCerts.certDir, "metrics-cert-path", c.metricsCerts.certDir, "directory of the metrics serving certificate and key; empty means a self-signed certificate made at start")
	fs.StringVar(&c.metricsCerts.certName, "metrics-cert-name", c.metricsCerts.certName, "file name of the metrics serving certificate in --metrics-cert-path")
	fs.StringVar(&c.metricsCerts.keyName, "metrics-cert-key", c.metricsCerts.keyName, "file name of the metrics serving key in --metrics-cert-path")
	fs.StringVar(&c.probeAddr, "health-probe-bind-address", c.probeAddr, `address of the /healthz and /readyz endpoints; "0" turns them off`)
	fs.Var(&gatesFlag{c.featureGates}, "feature-gates", "comma-separated Gate=true|false pairs for the gates the Job controller consults; known gates: "+strings.Join(c.featureGates.KnownFeatures(), ", "))
	fs.BoolVar(&c.leaderElect, "leader-elect", c.leaderElect, "run only while holding a Lease, so that several replicas can be deployed")
	fs.StringVar(&c.leaseNS, "leader-elect-resource-namespace", c.leaseNS, "namespace of the leader election Lease")
	fs.StringVar(&c.leaseNS, "leader-elect-namespace", c.leaseNS, "alias of --leader-elect-resource-namespace")
	fs.StringVar(&c.leaseName, "leader-elect-resource-name", c.leaseName, "name of the leader election Lease; empty means jobcontroller.LeaseNameFor(--controller-name)")
	fs.StringVar(&c.leaseName, "leader-elect-name", c.leaseName, "alias of --leader-elect-resource-name")
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

// clientConfig sets the client side of cfg from the command line, as
// kube-controller-manager sets its own: protobuf by default (client-go's
// typed clients already prefer it for built-in kinds when ContentType is
// unset; the flag makes the choice explicit and lets "application/json"
// turn it off), and no compression (kube-controller-manager turns it off:
// it costs CPU on both ends to save bandwidth a controller near its API
// server does not need).
func clientConfig(cfg *rest.Config, c config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = float32(c.qps), c.burst
	cfg.ContentType = c.contentType
	cfg.DisableCompression = true
	cfg.UserAgent = "jobsync-controller"
	return cfg
}

// run builds the controller and runs it until ctx ends, under leader
// election if asked, serving metrics and probes meanwhile.
func run(ctx context.Context, c config) error {
	return runServing(ctx, c, nil)
}

// runServing is run; it tells serving, when not nil, the addresses of the
// metrics and probe servers once they listen (empty for one turned off).
func runServing(ctx context.Context, c config, serving func(metrics, probes string)) error {
	if c.controllerName == "" && !c.actAsBuiltIn {
		return errors.New("--controller-name is required (or --act-as-builtin-job-controller on a cluster without kube-controller-manager)")
	}
	cfg, err := restConfig(c)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	client, err := kubernetes.NewForConfig(clientConfig(cfg, c))
	if err != nil {
		return err
	}
	opts := jobcontroller.Options{ControllerName: c.controllerName, Workers: c.workers, ActAsBuiltIn: c.actAsBuiltIn}
	opts.Sync = applyGates(c.featureGates, opts.Sync)
	ctrl, err := jobcontroller.New(client, opts)
	if err != nil {
		return err
	}

	live := []healthz.HealthChecker{healthz.PingHealthz}
	ready := []healthz.HealthChecker{healthz.PingHealthz, readyCheck("informers-synced", func() error {
		if c.leaderElect && !ctrl.Started() {
			return nil // standing by for the Lease: ready to take over
		}
		return ctrl.Ready()
	})}
	var watchDog *leaderelection.HealthzAdaptor
	if c.leaderElect {
		// A leader that cannot renew past the lease duration plus this
		// slack fails its liveness check, as kube-controller-manager's.
		watchDog = leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
		live = append(live, watchDog)
		ready = append(ready, watchDog)
	}
	servers, err := listenAll(c, client, live, ready)
	if err != nil {
		return err
	}
	serveCtx, stopServing := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopServing()
	addrs := map[string]string{}
	for _, s := range servers {
		addrs[s.name] = s.Addr()
		wg.Go(func() { s.serve(serveCtx) })
	}
	if serving != nil {
		serving(addrs["metrics"], addrs["probes"])
	}

	if !c.leaderElect {
		return ctrl.Run(ctx)
	}
	return runElected(ctx, c, ctrl, watchDog)
}

// listenAll binds the metrics and probe addresses before anything runs,
// so that a taken port fails the start rather than a scrape later.
func listenAll(c config, client kubernetes.Interface, live, ready []healthz.HealthChecker) ([]*server, error) {
	metrics, metricsTLS := metricsHandler(), (*tls.Config)(nil)
	if c.metricsSecure && c.metricsAddr != "" && c.metricsAddr != disabled {
		var err error
		if metricsTLS, err = c.metricsCerts.tlsConfig(); err != nil {
			return nil, err
		}
		if metrics, err = delegatedAuth(client, metrics); err != nil {
			return nil, err
		}
	}
	var out []*server
	for _, s := range []struct {
		name, addr string
		handler    http.Handler
		tls        *tls.Config
	}{
		{"metrics", c.metricsAddr, metrics, metricsTLS},
		{"probes", c.probeAddr, probeHandler(live, ready), nil},
	} {
		srv, err := listenTLS(s.name, s.addr, s.handler, s.tls)
		if err != nil {
			for _, o := range out {
				_ = o.ln.Close()
			}
			return nil, err
		}
		if srv != nil {
			out = append(out, srv)
		}
	}
	return out, nil
}

func runElected(ctx context.Context, c config, ctrl *jobcontroller.Controller, watchDog *leaderelection.HealthzAdaptor) error {
	return ctrl.RunLeaderElected(ctx, jobcontroller.LeaderElection{
		Namespace:     c.leaseNS,
		Name:          c.leaseName,
		LeaseDuration: c.leaseDuration,
		RenewDeadline: c.renewDeadline,
		RetryPeriod:   c.retryPeriod,
		WatchDog:      watchDog,
	})
}
