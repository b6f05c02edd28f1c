package jobsynctest

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jobsync/jobsync/jobsync"
)

// The controller side, as a controller built on jobsync would be: its work
// queue's timing, a sync and a crash. Its informers are in informers.go,
// the carrying out of plans in execute.go; the other actors of the world
// (the TTL controller, a user changing the Job) in ttl.go and jobchange.go,
// and the dispatch of the events that drive them all in events.go.

const (
	// podBatchPeriod is how long the work queue gathers pod events before
	// a sync, as upstream's controller batches them.
	podBatchPeriod = time.Second
	// retryBase and retryMax bound the rate-limited retry of a failed sync.
	retryBase = time.Second
	retryMax  = time.Minute
)

var (
	errAPI      = errors.New("the API server returned an error (injected)")
	errConflict = errors.New("the Job's resourceVersion is stale (conflict)")
	errNotFound = errors.New("not found")
)

// crash loses the controller's memory; it comes back with a fresh
// informer view (a full list) and syncs at once.
func (c *Cluster) crash() {
	c.result.Faults.Crashes++
	if c.check != nil {
		c.check.Crashed()
	}
	c.mem = memory{}
	c.podStream, c.jobStream = stream{}, stream{}
	c.view = newView(c.job, c.opts, len(c.pods))
	for _, sp := range c.sortedPods() {
		c.view.put(sp.obj)
	}
	c.apiRetries = 0
	c.requestSync(c.now)
}

// sync is one controller sync: Reconcile on the view, then the plan
// carried out call by call until one fails or the controller crashes.
func (c *Cluster) sync() (StepRecord, error) {
	c.result.Syncs++
	rec := StepRecord{Kind: KindSync}
	if c.view.job == nil {
		rec.Detail = "the Job is gone from the informer: nothing to do"
		return rec, nil
	}
	live, held, succeeded, settled := c.view.list()
	snap := jobsync.Snapshot{Job: c.view.job, Pods: live, Active: held, Succeeded: succeeded, SettledPods: settled, Now: c.now, Expectations: c.mem.exp, Backoff: c.mem.backoff}
	c.listed += int64(len(snap.Pods))
	// The checks read the whole view, settled and held pods included: the plan
	// must be the one for every pod the controller sees (beforePlan
	// compares it with Reconcile's plan for them, shuffled).
	seen := snap
	if c.check != nil {
		seen.Pods, seen.Active, seen.Succeeded, seen.SettledPods = c.view.all(), nil, nil, 0
	}
	plan, err := jobsync.Reconcile(snap, c.opts)
	if err != nil {
		if c.check != nil {
			c.check.Violate("reconcile-error", "%s", err.Error())
		}
		c.apiRetries++
		c.requestSync(c.now.Add(c.retryDelay()))
		return rec, fmt.Errorf("jobsynctest: Reconcile at %s: %w", c.now.Format(time.RFC3339), err)
	}
	rec.Plan = &plan
	if c.check != nil {
		c.check.BeforePlan(seen, plan)
	}

	calls := planCalls(&plan, c.finalizersFirst)
	crashAt := -1
	if c.cfg.Faults.Crash > 0 && c.rng.Float64() < c.cfg.Faults.Crash {
		crashAt = c.rng.IntN(len(calls) + 1)
	}
	c.holding = true
	r := carrying{c: c, snap: snap, seen: seen, plan: plan, rv: snap.Job.ResourceVersion, crashAt: crashAt}
	r.carryOut(calls)
	done, failure := r.made, r.failure
	rec.Done, rec.Calls = done, len(calls)
	plan = r.plan

	if r.crashed {
		rec.Interrupted = fmt.Sprintf("the controller crashed after %d of %d calls", done, len(calls))
		c.holding = false
		c.crash()
		rec.Detail = summarize(&plan, done, len(calls))
		return rec, nil
	}

	// Remember what the library says to remember of a plan carried out
	// this far (jobsync.Advance).
	mem := jobsync.Advance(snap, plan, r.progress)
	c.mem.exp, c.mem.backoff = mem.Expectations, mem.Backoff
	if c.check != nil {
		c.check.PlanWritten(&plan, r.progress.Done(jobsync.StepInterimStatus) && plan.InterimStatus != nil)
	}
	c.holding = false
	c.flush()

	rec.Detail = summarize(&plan, done, len(calls))
	if failure != nil {
		rec.Interrupted = failure.Error()
		c.apiRetries++
		c.requestSync(c.now.Add(c.retryDelay()))
		return rec, nil
	}
	c.apiRetries = 0
	if plan.RequeueAfter > 0 {
		c.requestSync(c.now.Add(plan.RequeueAfter))
	}
	return rec, nil
}

// summarize says what a sync did, for people.
func summarize(plan *jobsync.Plan, done, calls int) string {
	if plan.Skipped != "" {
		return "skipped: " + plan.Skipped
	}
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(len(plan.Deletions), "deletions")
	add(len(plan.Creations), "creations")
	add(len(plan.FinalizerRemovals), "finalizer removals")
	if plan.InterimStatus != nil || plan.Status != nil {
		parts = append(parts, "status")
	}
	for _, e := range plan.Events {
		parts = append(parts, "event "+e.Reason)
	}
	if plan.RequeueAfter > 0 {
		parts = append(parts, "requeue after "+plan.RequeueAfter.String())
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to do")
	}
	s := strings.Join(parts, ", ")
	if done < calls {
		s += fmt.Sprintf(" (%d of %d calls done)", done, calls)
	}
	return s
}
