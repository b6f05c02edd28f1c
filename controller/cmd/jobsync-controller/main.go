// Command jobsync-controller is an external Job controller built on
// jobsync: it runs the Jobs whose spec.managedBy is its --controller-name,
// deciding every sync as Kubernetes' own Job controller would, and leaves
// every other Job alone.
//
//	jobsync-controller --kubeconfig ~/.kube/config --controller-name example.com/jobsync
//
// With --leader-elect, only the holder of a Lease (in
// --leader-elect-namespace) runs the controller, so several replicas can
// be deployed. SIGINT or SIGTERM stops it: no new sync starts, the syncs
// under way are abandoned and no API call is sent any more, then the Lease
// is released and the command exits 0. A replica that loses the Lease (or
// passes its renew deadline) without being asked to stop stops the same
// way and exits 1, so that its supervisor starts it afresh.
//
// It serves its metrics (upstream's job_controller_* names, with the
// workqueue, client-go and leader-election metrics) at
// --metrics-bind-address/metrics and its probes at
// --health-probe-bind-address/healthz and /readyz; --feature-gates sets
// the gates the Job controller consults. With --metrics-secure the metrics
// are served over HTTPS (a self-signed certificate unless
// --metrics-cert-path holds one) to the callers the API server
// authenticates and allows to get /metrics.
//
// On a cluster without kube-controller-manager (envtest, an API server
// started by tests, a KWOK-style cluster), --act-as-builtin-job-controller
// makes it run the Jobs the built-in Job controller would run instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"
)

func main() {
	klog.InitFlags(nil)
	cfg := defaultConfig()
	cfg.bind(flag.CommandLine)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx = klog.NewContext(ctx, klog.Background().WithName("jobsync-controller"))
	if err := run(ctx, cfg); err != nil {
		klog.FromContext(ctx).Error(err, "jobsync-controller failed")
		klog.Flush()
		fmt.Fprintln(os.Stderr, "jobsync-controller:", err)
		os.Exit(1)
	}
	klog.Flush()
}
