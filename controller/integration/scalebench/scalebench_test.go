package scalebench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/integration/internal/childproc"
	"github.com/jobsync/jobsync/controller/kubeletplayer"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var (
	measureFlag     = flag.Bool("scalebench", false, "run TestMeasure: a Job of each -scalebench.sizes per controller of -scalebench.kinds")
	sizesFlag       = flag.String("scalebench.sizes", "10000", "comma-separated completions of the measured Jobs")
	kindsFlag       = flag.String("scalebench.kinds", "upstream,ours,ours-scan", "comma-separated controllers to measure, in this order")
	parallelismFlag = flag.Int("scalebench.parallelism", 0, "parallelism of the measured Jobs; 0 means a tenth of the completions")
	runTimeFlag     = flag.Duration("scalebench.runtime", time.Second, "how long each pod runs")
	qpsFlag         = flag.Float64("scalebench.qps", -1, "the controller's client QPS (burst twice that); negative means unthrottled")
	outFlag         = flag.String("scalebench.out", "", "append the results, a Markdown table, to this file")
	profileFlag     = flag.String("scalebench.cpuprofile", "", "write each measured controller's CPU profile to this directory, as <kind>-<completions>.pprof")
	timeoutFlag     = flag.Duration("scalebench.timeout", 45*time.Minute, "the longest one run may take")
)

func TestMain(m *testing.M) {
	runChild()
	apiservertest.Main(m)
}

// result is one measured run.
type result struct {
	kind        string
	completions int32
	parallelism int32
	wall        time.Duration
	cpu         time.Duration
	peakRSS     int64
	calls       map[string]int
	notProtobuf int    // requests that did not ask for protobuf first
	pods        string // what the Job's pods show at the end
}

// TestSmoke runs a Job of 200 pods through each controller, checks its
// end and that the controller process reported its CPU, memory and
// requests: the measurement's code, at a size every test run affords.
func TestSmoke(t *testing.T) {
	for _, kind := range []string{kindUpstream, kindOurs, kindOursScan} {
		t.Run(kind, func(t *testing.T) {
			r := measure(t, kind, 200, 50, time.Second, -1, 5*time.Minute)
			if r.cpu <= 0 || r.peakRSS <= 0 || r.calls["create pods"] < 200 || r.calls["update jobs/status"] == 0 {
				t.Errorf("the controller process reported CPU %v, peak RSS %d, requests %v", r.cpu, r.peakRSS, r.calls)
			}
			if r.notProtobuf > 0 {
				t.Errorf("%d of the controller's requests did not ask for protobuf first", r.notProtobuf)
			}
			t.Log(row(r))
		})
	}
}

// TestMeasure runs, for each size of -scalebench.sizes and each
// controller of -scalebench.kinds, one Job on an API server of its own,
// and reports the table.
func TestMeasure(t *testing.T) {
	if !*measureFlag {
		t.Skip("run with -scalebench (controller/integration/README.md)")
	}
	var rows []string
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			t.Fatalf("-scalebench.sizes: %q is not a size", s)
		}
		p := *parallelismFlag
		if p <= 0 {
			p = max(1, n/10)
		}
		for _, kind := range strings.Split(*kindsFlag, ",") {
			kind = strings.TrimSpace(kind)
			t.Run(fmt.Sprintf("%s/n=%d", kind, n), func(t *testing.T) {
				r := measure(t, kind, int32(n), int32(p), *runTimeFlag, float32(*qpsFlag), *timeoutFlag)
				rows = append(rows, row(r))
				t.Log(row(r))
			})
		}
	}
	report := fmt.Sprintf("\n%s, nproc %d, load average at the end %s, QPS %v, pods run %v\n\n%s\n%s\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), nproc(), loadAverage(), *qpsFlag, *runTimeFlag, header, strings.Join(rows, "\n"))
	t.Log(report)
	if *outFlag != "" {
		f, err := os.OpenFile(*outFlag, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(report); err != nil {
			t.Fatal(err)
		}
	}
}

const header = "| controller | completions | parallelism | wall | CPU | peak RSS | requests | by verb | pods at the end |\n|---|--:|--:|--:|--:|--:|--:|---|---|"

func row(r result) string {
	return fmt.Sprintf("| %s | %d | %d | %.0fs | %.1fs | %d MiB | %d | %s | %s |", r.kind, r.completions, r.parallelism,
		r.wall.Seconds(), r.cpu.Seconds(), r.peakRSS>>20, total(r.calls), byVerb(r.calls), r.pods)
}

// measure runs one Job of n completions and parallelism p, whose pods run
// for runTime, through a controller of kind in a child process, on an API
// server of its own, and checks how it ended.
func measure(t *testing.T, kind string, n, p int32, runTime time.Duration, qps float32, timeout time.Duration) result {
	srv := apiservertest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	player := kubeletplayer.New(srv.Client, kubeletplayer.Options{Concurrency: 32})
	played := make(chan error, 1)
	go func() { played <- player.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-played; err != nil {
			t.Errorf("kubelet player: %v", err)
		}
	}()

	out := filepath.Join(t.TempDir(), "result.json")
	burst := int(2 * qps)
	if qps < 0 {
		burst = -1
	}
	cs := childSpec{Kind: kind, Host: srv.Config.Host, TLS: srv.Config.TLSClientConfig, Token: srv.Config.BearerToken, QPS: qps, Burst: burst, Output: out}
	if *profileFlag != "" && *measureFlag {
		cs.CPUProfile = filepath.Join(*profileFlag, fmt.Sprintf("%s-%d.pprof", kind, n))
	}
	stop := childproc.Start(t, childEnv, cs)
	defer stop()

	const ns = "default"
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "wide"},
		Spec: batchv1.JobSpec{
			Completions: &n, Parallelism: &p, BackoffLimit: new(int32(0)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "c", Image: "example.com/work"}},
			}},
		},
	}
	if kind != kindUpstream {
		job.Spec.ManagedBy = new(oursName)
	}
	time.Sleep(2 * time.Second) // the child's informers sync
	created, err := srv.Client.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the Job: %v", err)
	}
	player.Play(created, jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: runTime}})
	start := time.Now()
	r := result{kind: kind, completions: n, parallelism: p}
	var last *batchv1.Job
	for deadline := start.Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		got, err := srv.Client.BatchV1().Jobs(ns).Get(ctx, job.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading the Job: %v", err)
		}
		last = got
		if finished(got) != "" {
			r.wall = time.Since(start)
			break
		}
	}
	stop()
	if r.wall == 0 {
		t.Errorf("%s: the Job did not finish within %v (succeeded %d)", kind, timeout, last.Status.Succeeded)
	} else if c := finished(last); c != batchv1.JobComplete || last.Status.Succeeded != n {
		t.Errorf("%s: the Job ended %s with %d succeeded, want Complete with %d", kind, c, last.Status.Succeeded, n)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the controller process wrote no result: %v", err)
	}
	var res childResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	r.cpu, r.peakRSS, r.calls, r.notProtobuf = res.CPU, res.PeakRSS, res.Calls, res.NotProtobuf
	r.pods = checkPods(t, srv, ctx, created, r.calls)
	return r
}

// checkPods lists the Job's pods at the end and checks that each was
// counted once: status.succeeded is the number of its pods that
// succeeded, none keeps a finalizer, and the controller's creations
// minus deletions are the pods there are.
func checkPods(t *testing.T, srv *apiservertest.Server, ctx context.Context, job *batchv1.Job, calls map[string]int) string {
	t.Helper()
	got, err := srv.Client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
	if err != nil {
		t.Errorf("reading the Job: %v", err)
		return "not checked"
	}
	list, err := srv.Client.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Errorf("listing the pods: %v", err)
		return "not checked"
	}
	var pods, succeeded, finalizers int
	for i := range list.Items {
		p := &list.Items[i]
		if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.UID != job.UID {
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
	if int(got.Status.Succeeded) != succeeded {
		t.Errorf("the Job counts %d succeeded pods, %d of its pods succeeded", got.Status.Succeeded, succeeded)
	}
	if finalizers > 0 {
		t.Errorf("%d pods keep a finalizer", finalizers)
	}
	if want := calls["create pods"] - calls["delete pods"]; pods != want {
		t.Errorf("%d pods of the Job, the controller sent %d creations and %d deletions", pods, calls["create pods"], calls["delete pods"])
	}
	return fmt.Sprintf("%d pods, %d succeeded, %d with a finalizer", pods, succeeded, finalizers)
}

// finished returns the Job's finishing condition type, or "".
func finished(job *batchv1.Job) batchv1.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

func total(calls map[string]int) int {
	n := 0
	for _, v := range calls {
		n += v
	}
	return n
}

// byVerb lists the requests by verb and resource, the most first.
func byVerb(calls map[string]int) string {
	keys := make([]string, 0, len(calls))
	for k := range calls {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if calls[keys[i]] != calls[keys[j]] {
			return calls[keys[i]] > calls[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, calls[k])
	}
	return strings.Join(parts, ", ")
}

func nproc() int { return runtime.NumCPU() }

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
