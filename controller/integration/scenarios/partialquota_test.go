package scenarios

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var (
	partialQuotaFlag = flag.Bool("sidebyside.partialquota", false, "measure how each controller recovers from a partial quota: a Job of 10 pods, parallelism 5, a quota of 2 running pods (a measurement, not in CI)")
	partialQuotaRuns = flag.Int("sidebyside.partialquota.runs", 3, "runs of the partial-quota measurement")
	partialQuotaLag  = flag.Duration("sidebyside.partialquota.lag", 0, "how long after a pod finishes the partial-quota measurement's quota stops counting it (a slow quota controller)")
)

// A partial quota: the Job wants more pods at once than a ResourceQuota
// admits, so each sync has some creations refused, and the Job advances
// only as its running pods finish and free their place. How soon a
// controller fills a freed place depends on its retry after the refused
// creations, which is what the long form measures.

// partialQuotaScenario is a Job of completions pods, parallelism at once,
// under a quota of quota running pods, each pod running for runTime.
func partialQuotaScenario(name string, completions, parallelism int32, quota int64, runTime time.Duration, q *quotaTracks) scenario {
	return scenario{
		name:    name,
		job:     sizes(completions, parallelism),
		script:  jobsynctest.Script{Default: run(runTime)},
		before:  q.before(quota),
		timeout: 3 * time.Minute,
		want:    expect{finished: batchv1.JobComplete, succeeded: completions},
	}
}

// TestPartialQuota runs a Job under a quota smaller than its parallelism,
// with upstream's controller and ours side by side, and checks that both
// complete alike, that the quota refused creations on both sides, and that
// it held (no more pods running at once than it admits, give or take one
// admitted in the moment between a pod's creation and its count). Timings
// are the long form's business (-sidebyside.partialquota).
func TestPartialQuota(t *testing.T) {
	t.Parallel()
	const quota = 2
	e := newEnv(t)
	up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
	ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
	q := &quotaTracks{}
	sc := partialQuotaScenario("partial-quota", 6, 3, quota, time.Second, q)
	recs := e.runJobs(sc, up, ours)
	if recs == nil {
		return
	}
	for _, d := range compare(recs[0], recs[1], false, time.Hour) {
		t.Errorf("the Jobs ended apart: %v", d)
	}
	for _, rec := range recs {
		if got := finished(&batchv1.Job{Status: batchv1.JobStatus{Conditions: conditionsOf(rec.Outcome)}}); got != batchv1.JobComplete || rec.Outcome.Succeeded != 6 {
			t.Errorf("%s: %s, want Complete with 6 succeeded", rec.Job, describe(rec.Outcome))
		}
		if rec.Events["FailedCreate"] == 0 {
			t.Errorf("%s: no FailedCreate event: the quota refused nothing (events %v)", rec.Job, rec.Events)
		}
		tl := q.timeline(rec.Controller)
		if m := tl.maxRunning(); m > quota+1 {
			t.Errorf("%s: %d pods ran at once under a quota of %d", rec.Job, m, quota)
		}
		t.Logf("%s: %s in %v; longest free quota place %v", rec.Job, describe(rec.Outcome), rec.Wall.Round(100*time.Millisecond),
			tl.longestFree(quota, 6).Round(10*time.Millisecond))
	}
}

// TestPartialQuotaRecovery is the long form: -sidebyside.partialquota.runs
// runs of a Job of 10 pods of 2s, parallelism 5, under a quota of 2, with
// each controller, reporting per run the longest time a place of the quota
// stood free while pods remained to be made, and the Job's time to
// completion.
func TestPartialQuotaRecovery(t *testing.T) {
	if !*partialQuotaFlag {
		t.Skip("a measurement: run with -sidebyside.partialquota")
	}
	const (
		quota       = 2
		completions = 10
	)
	type row struct {
		run            int
		ctl            string
		free, wall     time.Duration
		refused, ran   int
		outcome        string
		maxRunningSeen int
	}
	var rows []row
	for i := 1; i <= *partialQuotaRuns; i++ {
		t.Run(fmt.Sprint("run", i), func(t *testing.T) {
			e := newEnv(t)
			up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
			ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
			q := &quotaTracks{lag: *partialQuotaLag}
			sc := partialQuotaScenario("partial-quota", completions, 5, quota, 2*time.Second, q)
			recs := e.runJobs(sc, up, ours)
			if recs == nil {
				return
			}
			for _, d := range compare(recs[0], recs[1], false, time.Hour) {
				t.Errorf("the Jobs ended apart: %v", d)
			}
			for _, rec := range recs {
				tl := q.timeline(rec.Controller)
				rows = append(rows, row{run: i, ctl: rec.Controller, free: tl.longestFree(quota, completions), wall: rec.Wall,
					refused: rec.Events["FailedCreate"], ran: len(tl.created), outcome: describe(rec.Outcome), maxRunningSeen: tl.maxRunning()})
			}
		})
	}
	var b strings.Builder
	b.WriteString("\n| run | controller | longest free quota place | time to completion | FailedCreate events | pods | most running at once | outcome |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %s | %v | %v | %d | %d | %d | %s |\n", r.run, r.ctl, r.free.Round(10*time.Millisecond), r.wall.Round(100*time.Millisecond),
			r.refused, r.ran, r.maxRunningSeen, r.outcome)
	}
	t.Logf("quota lag %v:%s", *partialQuotaLag, b.String())
}

// conditionsOf turns an outcome's conditions back into the API's form.
func conditionsOf(o outcome) []batchv1.JobCondition {
	var out []batchv1.JobCondition
	for _, c := range o.Conditions {
		out = append(out, batchv1.JobCondition{Type: c.Type, Status: c.Status, Reason: c.Reason})
	}
	return out
}

// quotaTracks runs, for each controller's Job, a quota like
// quotaPerController's whose used count also falls as pods finish, as the
// quota controller of kube-controller-manager (which these tests do not
// run) would have it: a pod counts while it is not Succeeded or Failed.
// It keeps the times at which it saw each pod appear and finish. With a
// lag, a finished pod goes on counting that long, as with a quota
// controller slower than the Job controller's one-second pod batching.
type quotaTracks struct {
	// lag is how long after a pod is seen finished it stops counting.
	lag   time.Duration
	mu    sync.Mutex
	lines map[string]*timeline
}

// timeline is when each pod of one controller's Job was first seen, and
// when it was first seen finished, as polled every pollEvery.
type timeline struct {
	created  map[string]time.Time
	finished map[string]time.Time
}

const pollEvery = 20 * time.Millisecond

func (q *quotaTracks) timeline(kind string) *timeline {
	q.mu.Lock()
	defer q.mu.Unlock()
	tl := q.lines[kind]
	if tl == nil {
		return &timeline{created: map[string]time.Time{}, finished: map[string]time.Time{}}
	}
	// A copy: the poller may still be running.
	c := &timeline{created: map[string]time.Time{}, finished: map[string]time.Time{}}
	for k, v := range tl.created {
		c.created[k] = v
	}
	for k, v := range tl.finished {
		c.finished[k] = v
	}
	return c
}

// before sets up the quota of n pods for the run's controller and starts
// the poller that lowers its used count as pods finish.
func (q *quotaTracks) before(n int64) func(e *env, r *jobRun) {
	return func(e *env, r *jobRun) {
		quotaPerController(n)(e, r)
		kind := r.ctl.kind
		tl := &timeline{created: map[string]time.Time{}, finished: map[string]time.Time{}}
		q.mu.Lock()
		if q.lines == nil {
			q.lines = map[string]*timeline{}
		}
		q.lines[kind] = tl
		q.mu.Unlock()
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-e.ctx.Done():
					return
				case <-time.After(pollEvery):
				}
				q.poll(e, kind, tl)
			}
		}()
		e.t.Cleanup(func() { close(stop); <-done })
	}
}

// poll notes new and finished pods of kind's Job and lowers the quota's
// used count to the pods still running. It reads the quota before it lists
// the pods and writes it with the version read, so that a pod admitted in
// between (admission raising the count) makes the write conflict instead
// of being forgotten. Only a pod admitted but not yet stored when the list
// is read can slip through: the real quota controller has the same window.
func (q *quotaTracks) poll(e *env, kind string, tl *timeline) {
	ctx, c := e.ctx, e.srv.Client
	quota, err := c.CoreV1().ResourceQuotas(ns).Get(ctx, "quota-"+kind, metav1.GetOptions{})
	if err != nil {
		return // the env is ending
	}
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	now := time.Now()
	running := int64(0)
	q.mu.Lock()
	for _, p := range pods.Items {
		if p.Spec.PriorityClassName != "jobsync-"+kind {
			continue
		}
		if _, ok := tl.created[p.Name]; !ok {
			tl.created[p.Name] = now
		}
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			if _, ok := tl.finished[p.Name]; !ok {
				tl.finished[p.Name] = now
			}
			if now.Sub(tl.finished[p.Name]) >= q.lag {
				continue
			}
		}
		running++
	}
	q.mu.Unlock()
	used := quota.Status.Used[corev1.ResourcePods]
	if used.Value() <= running {
		return
	}
	quota.Status.Used = corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(running, resource.DecimalSI)}
	if _, err := c.CoreV1().ResourceQuotas(ns).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
		return // a conflict: the next poll reads again
	}
}

// maxRunning is the most pods seen running (created, not finished) at once.
func (tl *timeline) maxRunning() int {
	most, running := 0, 0
	for _, ev := range tl.events() {
		running += ev.delta
		most = max(most, running)
	}
	return most
}

// longestFree is the longest time, from the first pod's creation on, that
// fewer than quota pods were running while fewer than completions had
// been made: a place of the quota stood free and the controller had not
// filled it yet.
func (tl *timeline) longestFree(quota, completions int) time.Duration {
	var longest time.Duration
	running, made := 0, 0
	var freeSince time.Time
	for _, ev := range tl.events() {
		running += ev.delta
		if ev.delta > 0 {
			made++
		}
		free := running < quota && made < completions
		switch {
		case free && freeSince.IsZero():
			freeSince = ev.at
		case !free && !freeSince.IsZero():
			longest = max(longest, ev.at.Sub(freeSince))
			freeSince = time.Time{}
		}
	}
	return longest
}

type podEvent struct {
	at    time.Time
	delta int // +1 created, -1 finished
}

// events are the timeline's creations and finishes in time order, a
// creation before a finish seen in the same poll.
func (tl *timeline) events() []podEvent {
	var evs []podEvent
	for _, at := range tl.created {
		evs = append(evs, podEvent{at, +1})
	}
	for _, at := range tl.finished {
		evs = append(evs, podEvent{at, -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if !evs[i].at.Equal(evs[j].at) {
			return evs[i].at.Before(evs[j].at)
		}
		return evs[i].delta > evs[j].delta
	})
	return evs
}
