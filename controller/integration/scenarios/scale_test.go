package scenarios

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/integration/internal/childproc"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var (
	scaleFlag            = flag.Bool("sidebyside.scale", false, "run the scale runs: a Job of -sidebyside.scale.completions pods per mode, controller and client throttle")
	scaleCompletionsFlag = flag.Int("sidebyside.scale.completions", 10000, "completions of the scale runs' Jobs")
	scaleParallelismFlag = flag.Int("sidebyside.scale.parallelism", 1000, "parallelism of the scale runs' Jobs")
	scaleOnlyFlag        = flag.String("sidebyside.scale.only", "", "run only the scale runs this selects: mode/throttle/controller, leading parts only, each a path.Match pattern (Indexed/qps100 is one pair, */unthrottled/ours four runs)")
)

// childEnv names the environment variable that turns the test binary into
// a controller process for the scale runs (see runChild).
const childEnv = "SCENARIOS_CHILD_CONTROLLER"

// childVerbosityEnv, when set in the test's environment, is the klog
// verbosity of the controller children (default: errors and warnings only).
const childVerbosityEnv = "SCENARIOS_CHILD_V"

// childSpec is what the parent tells a controller child: which controller,
// how to reach the API server, its client rate limits, and where to write
// its API calls when it stops.
type childSpec struct {
	Kind   string
	Host   string
	TLS    rest.TLSClientConfig
	Token  string
	QPS    float32
	Burst  int
	Output string
}

// childResult is what the child writes when it stops.
type childResult struct {
	Calls map[string]int
	// PeakRSS is the process's VmHWM in bytes. The parent cannot use the
	// child's rusage: Linux folds the forking process's own peak into the
	// child's ru_maxrss at exec.
	PeakRSS int64
}

// maybeRunChild runs a controller child process when the test binary is
// started as one, and exits; otherwise it returns.
func maybeRunChild() {
	var cs childSpec
	if !childproc.Spec(childEnv, &cs) {
		return
	}
	if v := os.Getenv(childVerbosityEnv); v != "" {
		// The controller's own logs at this klog verbosity, on stderr
		// (the scale runs' log): "Synced Job" lines at 2, say.
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		if err := fs.Set("v", v); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
	}
	cfg := &rest.Config{Host: cs.Host, BearerToken: cs.Token, TLSClientConfig: cs.TLS}
	c := &controller{kind: cs.Kind, calls: newAPICalls()}
	c.cfg = c.calls.config(cfg, cs.QPS, cs.Burst)
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer cancel()
	ctx = klog.NewContext(ctx, klog.Background())
	wait, err := starters[cs.Kind](ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	<-ctx.Done()
	wait()
	data, _ := json.Marshal(childResult{Calls: c.calls.snapshot(), PeakRSS: childproc.PeakRSS()})
	if err := os.WriteFile(cs.Output, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// scaleRun is the result of one scale run.
type scaleRun struct {
	name       string
	kind       string
	wall       time.Duration
	calls      map[string]int
	peakRSS    int64 // bytes, the controller process's maximum resident set
	outcome    string
	finishedOK bool
	// podsCheck says what the Job's pods on the API server show at the
	// end, against its status and the controller's create calls.
	podsCheck string
}

// checkScalePods lists the Job's pods at the end of a scale run and checks
// that nothing was counted twice or lost: the Job's status.succeeded is the
// number of its pods that succeeded, no pod keeps a tracking finalizer, and
// the controller's pod creations are the pods there are (none is deleted
// for good in these runs unless the controller deleted it).
func checkScalePods(t *testing.T, e *env, name string, uid types.UID, calls map[string]int) string {
	t.Helper()
	job, err := e.srv.Client.BatchV1().Jobs(ns).Get(e.ctx, jobNameOf(name), metav1.GetOptions{})
	if err != nil {
		t.Errorf("%s: reading the Job: %v", name, err)
		return "not checked"
	}
	list, err := e.srv.Client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Errorf("%s: listing the pods: %v", name, err)
		return "not checked"
	}
	var pods, succeeded, finalizers int
	for i := range list.Items {
		p := &list.Items[i]
		if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.UID != uid {
			continue
		}
		pods++
		if p.Status.Phase == corev1.PodSucceeded {
			succeeded++
		}
		if len(p.Finalizers) > 0 {
			finalizers++
		}
	}
	if int(job.Status.Succeeded) != succeeded {
		t.Errorf("%s: the Job counts %d succeeded pods, %d of its pods succeeded", name, job.Status.Succeeded, succeeded)
	}
	if finalizers > 0 {
		t.Errorf("%s: %d pods keep a finalizer", name, finalizers)
	}
	if want := calls["create pods"] - calls["delete pods"]; pods != want {
		t.Errorf("%s: %d pods of the Job on the API server, the controller sent %d creations and %d deletions", name, pods, calls["create pods"], calls["delete pods"])
	}
	return fmt.Sprintf("%d pods, %d succeeded, %d with a finalizer", pods, succeeded, finalizers)
}

// jobNameOf is the Job name of the scale run name (mode/throttle/kind).
func jobNameOf(run string) string {
	parts := strings.Split(run, "/")
	return "scale-" + strings.ToLower(parts[0]) + "-" + parts[len(parts)-1]
}

// TestScale runs, for each mode (Indexed, NonIndexed), client throttle
// (QPS 100 / burst 200, and none) and controller, a Job of
// -sidebyside.scale.completions pods with -sidebyside.scale.parallelism on
// an API server of its own, the controller in a child process (so that its
// peak memory is its own), and reports wall time, requests by verb and
// peak memory, ours ÷ upstream.
func TestScale(t *testing.T) {
	if !*scaleFlag {
		t.Skip("run with -sidebyside.scale (about an hour on 2 cores for 10,000 completions)")
	}
	n, p := int32(*scaleCompletionsFlag), int32(*scaleParallelismFlag)
	var runs []scaleRun
	for _, mode := range []string{"Indexed", "NonIndexed"} {
		for _, throttle := range []struct {
			name  string
			qps   float32
			burst int
		}{{"qps100", 100, 200}, {"unthrottled", -1, -1}} {
			for _, kind := range []string{"upstream", "ours"} {
				name := mode + "/" + throttle.name + "/" + kind
				if !selectsRun(*scaleOnlyFlag, name) {
					continue
				}
				t.Run(name, func(t *testing.T) {
					runs = append(runs, scaleOnce(t, name, kind, mode, n, p, throttle.qps, throttle.burst))
				})
			}
		}
	}
	writeScaleReport(t, n, p, runs)
}

// selectsRun reports whether the -sidebyside.scale.only pattern selects
// the run name (mode/throttle/controller): its slash-separated parts match
// the name's leading parts one by one, as path.Match reads them. An empty
// pattern selects every run. (The flag first selected by substring, and
// "Indexed/qps100" also ran NonIndexed/qps100.)
func selectsRun(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	want, got := strings.Split(pattern, "/"), strings.Split(name, "/")
	if len(want) > len(got) {
		return false
	}
	for i, w := range want {
		if ok, err := path.Match(w, got[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

func scaleOnce(t *testing.T, name, kind, mode string, n, p int32, qps float32, burst int) scaleRun {
	e := newEnv(t)
	out := filepath.Join(t.TempDir(), "calls.json")
	cfg := e.srv.Config
	spec := childSpec{Kind: kind, Host: cfg.Host, TLS: cfg.TLSClientConfig, Token: cfg.BearerToken, QPS: qps, Burst: burst, Output: out}
	stop := childproc.Start(t, childEnv, spec)

	job := baseJob(jobNameOf(name))
	job.Spec.Completions, job.Spec.Parallelism = ptr(n), ptr(p)
	if mode == "Indexed" {
		indexed(job)
	}
	if kind == "ours" {
		job.Spec.ManagedBy = ptr(oursName)
	}
	time.Sleep(2 * time.Second) // the child's informers sync
	created, err := e.srv.Client.BatchV1().Jobs(ns).Create(e.ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the Job: %v", err)
	}
	e.player.Play(created, jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: time.Second}})
	start := time.Now()
	run := scaleRun{name: name, kind: kind}
	for deadline := start.Add(45 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		got, err := e.srv.Client.BatchV1().Jobs(ns).Get(e.ctx, job.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the Job: %v", err)
		}
		if c := finished(got); c != "" {
			run.wall = time.Since(start)
			run.outcome = describe(outcomeOf(got, false))
			run.finishedOK = c == batchv1.JobComplete && got.Status.Succeeded == n
			break
		}
	}
	stop()
	if run.wall == 0 {
		t.Errorf("%s: not finished within 45 minutes", name)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Errorf("%s: the controller process wrote no calls: %v", name, err)
	} else {
		var res childResult
		if err := json.Unmarshal(data, &res); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		run.calls, run.peakRSS = res.Calls, res.PeakRSS
	}
	if !run.finishedOK {
		t.Errorf("%s: ended %s", name, run.outcome)
	}
	run.podsCheck = checkScalePods(t, e, name, created.UID, run.calls)
	t.Logf("%s: %s in %v, peak RSS %d MiB, calls %s; pods: %s", name, run.outcome, run.wall.Round(time.Second), run.peakRSS>>20, summary(run.calls, false), run.podsCheck)
	return run
}

// writeScaleReport appends the scale runs and the ratios ours ÷ upstream
// to -scenarios.report.
func writeScaleReport(t *testing.T, n, p int32, runs []scaleRun) {
	if *reportFlag == "" || len(runs) == 0 {
		return
	}
	by := map[string]scaleRun{}
	for _, r := range runs {
		by[r.name] = r
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nscale (%s): %d completions, parallelism %d, pods run 1s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), n, p)
	b.WriteString("| run | controller | wall time | requests (all verbs) | peak RSS | requests by verb | the Job's pods at the end |\n|---|---|---|---|---|---|---|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %s | %s | %.0fs | %d | %d MiB | %s | %s |\n", strings.TrimSuffix(r.name, "/"+r.kind), r.kind, r.wall.Seconds(), total(r.calls), r.peakRSS>>20, summary(r.calls, false), r.podsCheck)
	}
	b.WriteString("\n| run | wall time ours ÷ upstream | requests ours ÷ upstream | peak RSS ours ÷ upstream |\n|---|---|---|---|\n")
	for _, r := range runs {
		if r.kind != "ours" {
			continue
		}
		base := strings.TrimSuffix(r.name, "/ours")
		u, ok := by[base+"/upstream"]
		if !ok || u.wall == 0 || total(u.calls) == 0 || u.peakRSS == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.2f |\n", base, r.wall.Seconds()/u.wall.Seconds(),
			float64(total(r.calls))/float64(total(u.calls)), float64(r.peakRSS)/float64(u.peakRSS))
	}
	appendReport(t, b.String())
}
