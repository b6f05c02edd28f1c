package main

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The client talks protobuf by default, as kube-controller-manager's
// does, and JSON when --kube-api-content-type says so: the test reads the
// Accept header of the requests the command sends to a stand-in API
// server.
func TestKubeAPIContentType(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "application/vnd.kubernetes.protobuf"},
		{[]string{"--kube-api-content-type", "application/json"}, "application/json"},
	} {
		accepts := make(chan string, 100)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case accepts <- r.Header.Get("Accept"):
			default:
			}
			http.Error(w, "stand-in API server", http.StatusServiceUnavailable)
		}))
		c := defaultConfig()
		fs := flag.NewFlagSet("jobsync-controller", flag.ContinueOnError)
		c.bind(fs)
		args := append([]string{"--controller-name", "example.com/jobsync", "--metrics-bind-address", "0", "--health-probe-bind-address", "0"}, tc.args...)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
		if err := os.WriteFile(c.kubeconfig, []byte(strings.Replace(kubeconfig, "https://127.0.0.1:1", srv.URL, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- run(ctx, c) }()
		select {
		case got := <-accepts:
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("with %q the controller's first request accepts %q, want %q first", tc.args, got, tc.want)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("with %q the controller sent no request in 30s", tc.args)
		}
		cancel()
		<-done
		srv.Close()
	}
}
