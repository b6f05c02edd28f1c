package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/jobcontroller"
	"github.com/jobsync/jobsync/jobspec"
)

// get is curl: the status and body of a GET of url.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

// TestServingWithoutAnAPIServer runs the command with an API server that
// never answers: the process is live, not ready (its informers cannot
// sync), and its metrics show the workqueue and client-go request metrics.
func TestServingWithoutAnAPIServer(t *testing.T) {
	c := defaultConfig()
	c.controllerName = "example.com/jobsync"
	c.metricsAddr, c.probeAddr = "127.0.0.1:0", "127.0.0.1:0"
	c.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(c.kubeconfig, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() { done <- runServing(ctx, c, func(m, p string) { addrs <- [2]string{m, p} }) }()
	var metricsAddr, probeAddr string
	select {
	case a := <-addrs:
		metricsAddr, probeAddr = a[0], a[1]
	case err := <-done:
		t.Fatalf("runServing ended before serving: %v", err)
	}

	if code, body := get(t, "http://"+probeAddr+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz: %d %q, want 200 ok", code, body)
	}
	code, body := get(t, "http://"+probeAddr+"/readyz?verbose")
	if code != http.StatusInternalServerError || !strings.Contains(body, "[-]informers-synced failed") || !strings.Contains(body, "[+]ping ok") {
		t.Errorf("/readyz?verbose: %d %q, want 500 with informers-synced failing", code, body)
	}
	// The informers' first lists fail, which client-go counts.
	deadline := time.Now().Add(time.Minute)
	for {
		_, body = get(t, "http://"+metricsAddr+"/metrics")
		if strings.Contains(body, `rest_client_requests_total{code="<error>"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed request counted in /metrics after a minute:\n%s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{`workqueue_depth{name="jobsync"}`, `workqueue_adds_total{name="jobsync_orphan_pod"}`, "# TYPE go_goroutines gauge"} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	cancel()
	// Stopped before its caches synced, the controller returns the
	// context's error.
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("runServing: %v", err)
	}
}

// TestMetricsOfASync runs the controller on a fake clientset through one
// sync of a new Job and reads upstream's metric names, labels and label
// values from the metrics endpoint, as curl would.
func TestMetricsOfASync(t *testing.T) {
	// The registry is the process's: each run of the test has a name of
	// its own and reads how the counters moved.
	name := fmt.Sprintf("example.com/metrics-test-%d", time.Now().UnixNano())
	client := fake.NewClientset()
	// The fake clientset does not generate names, as the API server does.
	var created atomic.Int32
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if pod, ok := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod); ok && pod.Name == "" {
			pod.Name = fmt.Sprintf("%s%d", pod.GenerateName, created.Add(1))
		}
		return false, nil, nil
	})
	ctrl, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: name, Recorder: record.NewFakeRecorder(100)})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := listen("metrics", "127.0.0.1:0", metricsHandler())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go srv.serve(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- ctrl.Run(ctx) }()
	defer func() { cancel(); <-runDone }()

	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Parallelism: new(int32(2)), Completions: new(int32(2)), ManagedBy: new(name),
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			},
		},
	})
	const (
		syncs    = `job_controller_job_syncs_total{action="pods_created",completion_mode="NonIndexed",result="success"}`
		duration = `job_controller_job_sync_duration_seconds_count{action="pods_created",completion_mode="NonIndexed",result="success"}`
		podsNew  = `job_controller_job_pods_creation_total{reason="new",status="succeeded"}`
	)
	external := fmt.Sprintf(`job_controller_jobs_by_external_controller_total{controller_name=%q}`, name)
	_, before := get(t, "http://"+srv.Addr()+"/metrics")
	if _, err := client.BatchV1().Jobs("ns").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wants := map[string]float64{
		syncs:    value(before, syncs) + 1,
		duration: value(before, duration) + 1,
		podsNew:  value(before, podsNew) + 2,
		external: 1,
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, body := get(t, "http://"+srv.Addr()+"/metrics")
		missing := ""
		for series, want := range wants {
			if value(body, series) != want {
				missing = fmt.Sprintf("%s %v (has %v)", series, want, value(body, series))
				break
			}
		}
		if missing == "" {
			if !strings.Contains(body, "# HELP job_controller_job_syncs_total [STABLE] The number of job syncs") {
				t.Errorf("/metrics lacks upstream's help of job_syncs_total")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics lacks %s after a minute:\n%s", missing, grepLines(body, "job_controller_"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// value is the value of series in a Prometheus text exposition, 0 when
// absent.
func value(body, series string) float64 {
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return f
			}
		}
	}
	return 0
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestServerOff(t *testing.T) {
	for _, addr := range []string{"", disabled} {
		if s, err := listen("metrics", addr, metricsHandler()); s != nil || err != nil {
			t.Errorf("listen(%q) = %v, %v; want nothing", addr, s, err)
		}
	}
}
