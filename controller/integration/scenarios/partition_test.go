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

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/jobsync/jobsync/controller/integration/apicalls"
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
// election (Lease 4s, renew deadline 3s, retry 0.5s), each started afresh
// under a new identity whenever it returns, as a Deployment restarts a
// process that exited. The leader's Lease requests start hanging until
// they time out while the rest of its traffic flows; 2.5s later Jobs of
// one completion and backoffLimit 0 are created, each with an upstream
// twin run by upstream's controller, fault-free, on the same API server.
// The old leader must make no successful write once the new leader has
// taken the Lease (and no instance may write once another holds the
// Lease), no Job may run a second pod, every Job must end as its upstream
// twin, no pod may keep a tracking finalizer, and the old leader must
// return ErrLeaseLost (the command exits non-zero with it). CI runs 20
// Jobs per run; -sidebyside.partition runs 300.
func TestFaultsPartitionedLeader(t *testing.T) {
	for _, pr := range partitionRuns() {
		t.Run(pr.name, func(t *testing.T) {
			if !*partitionFlag {
				// The long form runs one at a time: three API servers
				// with 600 Jobs each starve a 2-core machine.
				t.Parallel()
			}
			runPartition(t, pr)
		})
	}
}

// replica is one replica of our controller under leader election, run
// as a Deployment would run it: each time it returns (ErrLeaseLost), a
// fresh process (a new Controller, its memory empty) starts in its place,
// under a new identity so that each instance's writes can be told apart.
type replica struct {
	name string
	// cut, once set, makes every Lease request of the replica hang until
	// its context ends.
	cut                atomic.Bool
	minDelay, maxDelay time.Duration

	mu        sync.Mutex
	instances []*leaderTransport // one per instance, in order
	exits     []error            // what each instance returned
}

func startReplica(t *testing.T, e *env, name string, minDelay, maxDelay time.Duration) *replica {
	t.Helper()
	r := &replica{name: name, minDelay: minDelay, maxDelay: maxDelay}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for n := 1; ctx.Err() == nil; n++ {
			err := r.runInstance(ctx, e, fmt.Sprintf("%s-%d", name, n), uint64(n))
			r.mu.Lock()
			r.exits = append(r.exits, err)
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Errorf("replica %s did not stop within 30s", name)
		}
	})
	return r
}

func (r *replica) runInstance(ctx context.Context, e *env, identity string, seed uint64) error {
	tr := &leaderTransport{identity: identity, cut: &r.cut, minDelay: r.minDelay, maxDelay: r.maxDelay, rng: newRand(seed)}
	r.mu.Lock()
	r.instances = append(r.instances, tr)
	r.mu.Unlock()
	cfg := rest.CopyConfig(e.srv.Config)
	cfg.QPS, cfg.Burst = -1, -1
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { tr.rt = rt; return tr })
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(cfg, "jobsync-controller"))
	if err != nil {
		return err
	}
	c, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: oursName, Sync: jobsync.Options{BackoffBase: backoffBase}})
	if err != nil {
		return err
	}
	le := partitionLease
	le.Identity = identity
	err = c.RunLeaderElected(ctx, le)
	if ctx.Err() == nil {
		// A process restarted by its supervisor is not back at once.
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return err
}

func (r *replica) transports() []*leaderTransport {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*leaderTransport(nil), r.instances...)
}

func (r *replica) firstExit() (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.exits) == 0 {
		return nil, false
	}
	return r.exits[0], true
}

// leaseHistory records every holder of a Lease with the time it acquired
// it (the Lease's acquireTime, written by the acquirer's clock, which is
// the test's).
type leaseHistory struct {
	mu    sync.Mutex
	terms []leaseTerm
}

type leaseTerm struct {
	holder   string
	acquired time.Time
}

func watchLease(t *testing.T, e *env, name string) *leaseHistory {
	t.Helper()
	h := &leaseHistory{}
	w, err := e.srv.Client.CoordinationV1().Leases("default").Watch(e.ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			l, ok := ev.Object.(*coordinationv1.Lease)
			if !ok || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || l.Spec.AcquireTime == nil {
				continue
			}
			h.mu.Lock()
			if n := len(h.terms); n == 0 || h.terms[n-1].holder != *l.Spec.HolderIdentity || !h.terms[n-1].acquired.Equal(l.Spec.AcquireTime.Time) {
				h.terms = append(h.terms, leaseTerm{*l.Spec.HolderIdentity, l.Spec.AcquireTime.Time})
			}
			h.mu.Unlock()
		}
	}()
	return h
}

// holderAt returns who held the Lease at t, by the history.
func (h *leaseHistory) holderAt(t time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	holder := ""
	for _, term := range h.terms {
		if !term.acquired.After(t) {
			holder = term.holder
		}
	}
	return holder
}

// next returns the first term that began after t, if any.
func (h *leaseHistory) next(after time.Time, holder string) (leaseTerm, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, term := range h.terms {
		if term.acquired.After(after) && term.holder != holder {
			return term, true
		}
	}
	return leaseTerm{}, false
}

// termsAfter counts the terms that began after t.
func (h *leaseHistory) termsAfter(t time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, term := range h.terms {
		if term.acquired.After(t) {
			n++
		}
	}
	return n
}

// describe lists the terms, with times from t0.
func (h *leaseHistory) describe(t0 time.Time) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var parts []string
	for _, term := range h.terms {
		parts = append(parts, fmt.Sprintf("%s at %v", term.holder, term.acquired.Sub(t0).Round(10*time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

func (h *leaseHistory) current() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.terms) == 0 {
		return ""
	}
	return h.terms[len(h.terms)-1].holder
}

func runPartition(t *testing.T, pr partitionRun) {
	e := newEnv(t)
	up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
	leases := watchLease(t, e, jobcontroller.LeaseNameFor(oursName))
	a := startReplica(t, e, "replica-a", pr.minDelay, pr.maxDelay)
	waitFor(t, 30*time.Second, "replica-a leads", func() bool { return leases.current() == "replica-a-1" })
	b := startReplica(t, e, "replica-b", 0, 0)
	// Let replica-a run a while and replica-b see its renewals.
	time.Sleep(2 * time.Second)

	partitioned := time.Now()
	a.cut.Store(true)
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
	limit := time.Duration(60+pr.jobs/2) * time.Second
	deadline := time.Now().Add(limit)
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
			t.Fatalf("%d Jobs not finished within %v of their creation", left, limit)
		}
		time.Sleep(500 * time.Millisecond)
	}

	takeover, ok := leases.next(partitioned, "replica-a-1")
	if !ok {
		t.Fatalf("no replica took the Lease over from replica-a-1")
	}
	// The old leader stops writing at its renew deadline, but its elector
	// returns only once its attempt to release the Lease (held up by the
	// partition) has given up: a renew deadline later, at most.
	exitBy := time.Now().Add(2 * partitionLease.RenewDeadline)
	for _, ok := a.firstExit(); !ok && time.Now().Before(exitBy); _, ok = a.firstExit() {
		time.Sleep(100 * time.Millisecond)
	}
	if exit, ok := a.firstExit(); !ok {
		t.Errorf("the partitioned leader still runs %v after the last Job finished", 2*partitionLease.RenewDeadline)
	} else if !errors.Is(exit, jobcontroller.ErrLeaseLost) {
		t.Errorf("the partitioned leader returned %v, want ErrLeaseLost", exit)
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

	// Every successful write of an instance must fall within its own
	// term: answered while it was the last to have acquired the Lease.
	var afterPartition, afterTakeover, overlapping []loggedWrite
	for _, r := range []*replica{a, b} {
		for _, tr := range r.transports() {
			for _, w := range tr.successfulWrites(time.Time{}) {
				if holder := leases.holderAt(w.answered); holder != tr.identity {
					overlapping = append(overlapping, w)
					if len(overlapping) <= 5 {
						t.Errorf("%s: %s answered %v after the Lease went to %s", tr.identity, w.what, w.answered.Sub(partitioned).Round(time.Millisecond), holder)
					}
				}
			}
		}
	}
	for _, w := range a.transports()[0].successfulWrites(partitioned) {
		afterPartition = append(afterPartition, w)
		if w.answered.After(takeover.acquired) {
			afterTakeover = append(afterTakeover, w)
		}
	}
	// Our Jobs start only once a new leader has listed everything and its
	// five workers come to them: a second more per ten Jobs on top of the
	// fault runs' tolerance. A leader that changed again (on a loaded
	// machine, the new leader too can pass its renew deadline, and the
	// next starts cold once more) delays them by as much again each time:
	// then only counts and conditions are compared.
	tolerance := faultTolerance + time.Duration(pr.jobs/10)*time.Second
	if changes := leases.termsAfter(partitioned); changes > 1 {
		t.Logf("the Lease changed hands %d times after the partition: start and completion times are not compared", changes)
		tolerance = time.Hour
	}
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
		diffs := compare(&record{Job: twin.name, Outcome: outcomeOf(twin.last, false)}, &record{Job: r.name, Outcome: outcomeOf(r.last, false)}, false, tolerance)
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
	t.Logf("%s: %s took the Lease %v after the partition; the old leader made %d successful writes after the partition, %d after the takeover%s; %d writes by an instance outside its term; leaders: %s; %d of %d Jobs ran two pods or more; %d ended apart from their upstream twins",
		pr.name, takeover.holder, takeover.acquired.Sub(partitioned).Round(10*time.Millisecond), len(afterPartition), len(afterTakeover), describeWrites(afterTakeover),
		len(overlapping), leases.describe(partitioned), twice, pr.jobs, differ)
	if len(afterTakeover) > 0 {
		t.Errorf("the old leader made %d successful writes after the new leader took the Lease, want none", len(afterTakeover))
	}
	if len(overlapping) > 0 {
		t.Errorf("%d successful writes by an instance after another took the Lease, want none", len(overlapping))
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
	identity           string
	cut                *atomic.Bool
	minDelay, maxDelay time.Duration
	rng                *rand.Rand

	rt     http.RoundTripper
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
	w := loggedWrite{what: apicalls.Name(req), answered: time.Now(), successful: err == nil && resp.StatusCode < 300}
	tr.mu.Lock()
	tr.writes = append(tr.writes, w)
	tr.mu.Unlock()
	return resp, err
}
