package scenarios

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/jobsync/jobsync/controller/jobcontroller"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var partitionFlag = flag.Bool("sidebyside.partition", false, "run the partitioned-leader fault in its long form (300 Jobs per run, the old leader's requests 0, 10-20 and 10-50ms slower)")

// partitionRun is one run of the partitioned-leader fault.
type partitionRun struct {
	name string
	// jobs is the number of twin pairs created after the partition.
	jobs int
	// minDelay and maxDelay bound the delay added to each request of the
	// old leader.
	minDelay, maxDelay time.Duration
}

func partitionRuns() []partitionRun {
	if *partitionFlag {
		return []partitionRun{
			{name: "partition-300", jobs: 300},
			{name: "partition-300-slow10-20", jobs: 300, minDelay: 10 * time.Millisecond, maxDelay: 20 * time.Millisecond},
			{name: "partition-300-slow10-50", jobs: 300, minDelay: 10 * time.Millisecond, maxDelay: 50 * time.Millisecond},
		}
	}
	return []partitionRun{
		{name: "partition-20", jobs: 20},
		{name: "partition-20-slow10-50", jobs: 20, minDelay: 10 * time.Millisecond, maxDelay: 50 * time.Millisecond},
	}
}

// The Lease timings of the partitioned-leader runs.
var partitionLease = jobcontroller.LeaderElection{LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond}

// TestFaultsPartitionedLeader: two replicas of our controller under leader
// election (Lease 4s, renew deadline 3s, retry 0.5s). The leader's Lease
// requests start hanging until they time out while the rest of its
// traffic flows; 2.5s later Jobs of one completion and backoffLimit 0 are
// created, each with an upstream twin run by upstream's controller,
// fault-free, on the same API server. The old leader must make no
// successful write once the new leader has taken the Lease, no Job may run
// a second pod, every Job must end as its upstream twin, no pod may keep a
// tracking finalizer, and the old leader must return ErrLeaseLost (the
// command exits non-zero with it). CI runs 20 Jobs per run;
// -sidebyside.partition runs 300.
func TestFaultsPartitionedLeader(t *testing.T) {
	for _, pr := range partitionRuns() {
		t.Run(pr.name, func(t *testing.T) {
			t.Parallel()
			runPartition(t, pr)
		})
	}
}

// replica is one replica of our controller under leader election.
type replica struct {
	id   string
	tr   *leaderTransport
	done chan error
}

func startReplica(t *testing.T, e *env, id string, tr *leaderTransport) *replica {
	t.Helper()
	cfg := rest.CopyConfig(e.srv.Config)
	cfg.QPS, cfg.Burst = -1, -1
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { tr.rt = rt; return tr })
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(cfg, "jobsync-controller"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: oursName, Sync: jobsync.Options{BackoffBase: backoffBase}})
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	r := &replica{id: id, tr: tr, done: make(chan error, 1)}
	le := partitionLease
	le.Identity = id
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		r.done <- c.RunLeaderElected(ctx, le)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Errorf("replica %s did not stop within 30s", id)
		}
	})
	return r
}

func runPartition(t *testing.T, pr partitionRun) {
	e := newEnv(t)
	up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
	a := startReplica(t, e, "replica-a", &leaderTransport{minDelay: pr.minDelay, maxDelay: pr.maxDelay, rng: newRand(uint64(pr.jobs))})
	leaseName := jobcontroller.LeaseNameFor(oursName)
	lease := func() (holder string, acquired time.Time) {
		l, err := e.srv.Client.CoordinationV1().Leases("default").Get(e.ctx, leaseName, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return "", time.Time{}
		}
		if l.Spec.AcquireTime != nil {
			acquired = l.Spec.AcquireTime.Time
		}
		return *l.Spec.HolderIdentity, acquired
	}
	waitFor(t, 30*time.Second, "replica-a leads", func() bool { h, _ := lease(); return h == "replica-a" })
	startReplica(t, e, "replica-b", &leaderTransport{})
	// Let replica-a run a while and replica-b see its renewals.
	time.Sleep(2 * time.Second)

	partitioned := time.Now()
	a.tr.partition()
	time.Sleep(2500 * time.Millisecond)

	ours := &controller{kind: "ours", managedBy: oursName, finalizer: jobcontroller.TrackingFinalizerFor(oursName), calls: newAPICalls()}
	script := jobsynctest.Script{Default: &jobsynctest.Behavior{StartDelay: 200 * time.Millisecond, RunTime: time.Second}}
	var runs []*jobRun
	for i := range pr.jobs {
		for _, c := range []*controller{up, ours} {
			job := baseJob(fmt.Sprintf("p%d-%s", i, c.kind))
			job.Spec.BackoffLimit = ptr(int32(0))
			if c.managedBy != "" {
				job.Spec.ManagedBy = ptr(c.managedBy)
			}
			runs = append(runs, &jobRun{ctl: c, name: job.Name, job: job})
		}
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(runs); i = int(next.Add(1)) - 1 {
				r := runs[i]
				created, err := e.srv.Client.BatchV1().Jobs(ns).Create(e.ctx, r.job, metav1.CreateOptions{})
				if err != nil {
					t.Errorf("creating Job %s: %v", r.name, err)
					return
				}
				r.job, r.created = created, time.Now()
				e.player.Play(created, script)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	byName := map[string]*jobRun{}
	for _, r := range runs {
		byName[r.name] = r
	}
	deadline := time.Now().Add(time.Duration(60+pr.jobs/2) * time.Second)
	for {
		list, err := e.srv.Client.BatchV1().Jobs(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		left := 0
		for i := range list.Items {
			if r := byName[list.Items[i].Name]; r != nil {
				r.last = &list.Items[i]
				if finished(r.last) == "" {
					left++
				}
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Jobs not finished within %v", left, time.Until(deadline)+time.Duration(60+pr.jobs/2)*time.Second)
		}
		time.Sleep(500 * time.Millisecond)
	}

	holder, takeover := lease()
	if holder != "replica-b" {
		t.Fatalf("the Lease is held by %q, want replica-b", holder)
	}
	select {
	case err := <-a.done:
		if !errors.Is(err, jobcontroller.ErrLeaseLost) {
			t.Errorf("the old leader returned %v, want ErrLeaseLost", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("the old leader still runs 30s after the Jobs finished")
	}

	// Let finalizer removals land, then look at every pod.
	pods := settlePods(t, e, 30*time.Second, ours.finalizer, up.finalizer)
	seen := map[types.UID][]*corev1.Pod{}
	e.seenMu.Lock()
	for _, p := range e.seen {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			seen[ref.UID] = append(seen[ref.UID], p)
		}
	}
	e.seenMu.Unlock()

	afterPartition, afterTakeover := a.tr.successfulWrites(partitioned), a.tr.successfulWrites(takeover)
	twice, differ := 0, 0
	for _, r := range runs {
		if r.ctl != ours {
			continue
		}
		if n := len(seen[r.job.UID]); n > 1 {
			twice++
			if twice <= 5 {
				t.Errorf("Job %s ran %d pods", r.name, n)
			}
		}
		twin := byName[strings.TrimSuffix(r.name, "-ours")+"-upstream"]
		diffs := compare(&record{Job: twin.name, Outcome: outcomeOf(twin.last, false)}, &record{Job: r.name, Outcome: outcomeOf(r.last, false)}, false, faultTolerance)
		if len(diffs) > 0 {
			differ++
			if differ <= 5 {
				t.Errorf("Job %s ended apart from its upstream twin: %v", r.name, diffs)
			}
		}
	}
	for _, p := range pods {
		for _, f := range p.Finalizers {
			if f == ours.finalizer || f == up.finalizer {
				t.Errorf("pod %s keeps the finalizer %s", p.Name, f)
			}
		}
	}
	t.Logf("%s: the new leader took the Lease %v after the partition; the old leader made %d successful writes after the partition, %d after the takeover%s; %d of %d Jobs ran two pods or more; %d ended apart from their upstream twins",
		pr.name, takeover.Sub(partitioned).Round(10*time.Millisecond), len(afterPartition), len(afterTakeover), describeWrites(afterTakeover),
		twice, pr.jobs, differ)
	if len(afterTakeover) > 0 {
		t.Errorf("the old leader made %d successful writes after the new leader took the Lease, want none", len(afterTakeover))
	}
	if twice > 0 {
		t.Errorf("%d Jobs of one completion ran two pods or more, want none", twice)
	}
}

// settlePods waits until no pod holds one of the finalizers (or timeout)
// and returns the pods then.
func settlePods(t *testing.T, e *env, timeout time.Duration, finalizers ...string) []corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		list, err := e.srv.Client.CoreV1().Pods(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		held := false
		for _, p := range list.Items {
			for _, f := range p.Finalizers {
				for _, g := range finalizers {
					held = held || f == g
				}
			}
		}
		if !held || time.Now().After(deadline) {
			return list.Items
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// describeWrites summarizes writes by what they were, " (create pods 3,
// ...)", or "" for none.
func describeWrites(ws []loggedWrite) string {
	if len(ws) == 0 {
		return ""
	}
	counts := map[string]int{}
	for _, w := range ws {
		counts[w.what]++
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within %v", what, timeout)
}

// leaderTransport is a replica's transport: it can cut the replica off its
// Lease (every request for a Lease hangs until its context ends, as a
// request that times out), delays each request by a random time in
// [minDelay, maxDelay], and logs the writes other than the Lease's.
type leaderTransport struct {
	minDelay, maxDelay time.Duration
	rng                *rand.Rand

	rt     http.RoundTripper
	cut    atomic.Bool
	mu     sync.Mutex
	writes []loggedWrite
}

// loggedWrite is one write, as "create pods", with when it was answered
// and whether it succeeded.
type loggedWrite struct {
	what       string
	answered   time.Time
	successful bool
}

func (tr *leaderTransport) partition() { tr.cut.Store(true) }

// successfulWrites returns the writes answered with success after t.
func (tr *leaderTransport) successfulWrites(t time.Time) []loggedWrite {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []loggedWrite
	for _, w := range tr.writes {
		if w.successful && w.answered.After(t) {
			out = append(out, w)
		}
	}
	return out
}

func (tr *leaderTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	lease := strings.Contains(req.URL.Path, "/apis/coordination.k8s.io/")
	if lease && tr.cut.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if tr.maxDelay > 0 {
		tr.mu.Lock()
		d := tr.minDelay + time.Duration(tr.rng.Int64N(int64(tr.maxDelay-tr.minDelay)+1))
		tr.mu.Unlock()
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if lease || req.Method == http.MethodGet {
		return tr.rt.RoundTrip(req)
	}
	resp, err := tr.rt.RoundTrip(req)
	w := loggedWrite{what: classify(req), answered: time.Now(), successful: err == nil && resp.StatusCode < 300}
	tr.mu.Lock()
	tr.writes = append(tr.writes, w)
	tr.mu.Unlock()
	return resp, err
}
