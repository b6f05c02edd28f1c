package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	// Workqueue, client-go request, informer and leader-election metrics,
	// registered in the legacy registry as kube-controller-manager does.
	_ "k8s.io/component-base/metrics/prometheus/clientgo"

	"github.com/jobsync/jobsync/controller/metrics"
)

// disabled is the bind address that turns a server off, as in
// controller-runtime.
const disabled = "0"

// server is one listener (plain HTTP, or HTTPS for secure metrics) and
// what it serves.
type server struct {
	name string
	ln   net.Listener
	srv  *http.Server
}

// listen binds addr for name, or returns nil for a disabled address.
func listen(name, addr string, handler http.Handler) (*server, error) {
	return listenTLS(name, addr, handler, nil)
}

// listenTLS is listen serving HTTPS with tlsConfig when it is not nil.
func listenTLS(name, addr string, handler http.Handler, tlsConfig *tls.Config) (*server, error) {
	if addr == "" || addr == disabled {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the %s server on %s: %w", name, addr, err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	return &server{name: name, ln: ln, srv: &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}}, nil
}

// Addr is the address the server listens on (the port chosen for ":0").
func (s *server) Addr() string { return s.ln.Addr().String() }

// serve serves until ctx ends, then shuts down, giving requests under way
// a few seconds.
func (s *server) serve(ctx context.Context) {
	logger := klog.FromContext(ctx)
	logger.Info("Serving", "server", s.name, "address", s.Addr())
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = s.srv.Shutdown(shutdown)
	}()
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error(err, "Server failed", "server", s.name)
	}
}

// metricsHandler serves the legacy registry at /metrics: the Job
// controller's metrics, workqueue, client-go and leader-election metrics,
// and the Go and process collectors component-base registers.
func metricsHandler() http.Handler {
	metrics.Register()
	mux := http.NewServeMux()
	mux.Handle("/metrics", legacyregistry.Handler())
	return mux
}

// probeHandler serves /healthz (the process answers; the leader election,
// when on, renews its Lease in time) and /readyz (also: the controller's
// informers have synced), with the per-check /healthz/<name> and
// ?verbose of Kubernetes components.
func probeHandler(live, ready []healthz.HealthChecker) http.Handler {
	mux := http.NewServeMux()
	healthz.InstallHandler(mux, live...)
	healthz.InstallReadyzHandler(mux, ready...)
	return mux
}

// readyCheck is a named readiness check.
func readyCheck(name string, ready func() error) healthz.HealthChecker {
	return healthz.NamedCheck(name, func(*http.Request) error { return ready() })
}
