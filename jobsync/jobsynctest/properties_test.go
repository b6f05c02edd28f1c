package jobsynctest_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// lifecycleMaxSyncs bounds every lifecycle of the properties: a Job that
// needs more syncs than this to finish fails the property.
const lifecycleMaxSyncs = 1500

// tally sums what the lifecycles of one property saw, for the fault matrix.
type tally struct {
	mu        sync.Mutex
	runs      int
	outcomes  map[jobsynctest.Outcome]int
	faults    jobsynctest.FaultCounts
	syncs     int
	created   int
	withFault int // lifecycles in which at least one fault struck
	tolerated map[string]int
}

func (s *tally) tolerate(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tolerated == nil {
		s.tolerated = map[string]int{}
	}
	s.tolerated[what]++
}

func (s *tally) add(r jobsynctest.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outcomes == nil {
		s.outcomes = map[jobsynctest.Outcome]int{}
	}
	s.runs++
	s.outcomes[r.Outcome]++
	f := r.Faults
	s.faults.APIErrors += f.APIErrors
	s.faults.Refused += f.Refused
	s.faults.Conflicts += f.Conflicts
	s.faults.Rejections += f.Rejections
	s.faults.Crashes += f.Crashes
	s.faults.Stalls += f.Stalls
	s.faults.PodDeletes += f.PodDeletes
	s.faults.Disruptions += f.Disruptions
	s.faults.JobChanges += f.JobChanges
	if f.APIErrors+f.Refused+f.Conflicts+f.Crashes+f.Stalls+f.PodDeletes+f.JobChanges > 0 {
		s.withFault++
	}
	if len(r.Tolerated) > 0 {
		if s.tolerated == nil {
			s.tolerated = map[string]int{}
		}
		s.tolerated["upstream race listed in Result.Tolerated"]++
	}
	s.syncs += r.Syncs
	s.created += r.Created
}

func (s *tally) String() string {
	var outs []string
	for o, n := range s.outcomes {
		outs = append(outs, fmt.Sprintf("%s %d", o, n))
	}
	sort.Strings(outs)
	f := s.faults
	var tol []string
	for what, n := range s.tolerated {
		tol = append(tol, fmt.Sprintf("%s %d", what, n))
	}
	sort.Strings(tol)
	return fmt.Sprintf("tolerated [%s]; ", strings.Join(tol, ", ")) + fmt.Sprintf("%d lifecycles (%s), %d with faults; %d syncs, %d pods; API errors %d, refused creations %d, conflicts %d, crashes %d, stalls %d, pod deletions %d, disruptions %d, Job changes %d",
		s.runs, strings.Join(outs, ", "), s.withFault, s.syncs, s.created, f.APIErrors, f.Refused, f.Conflicts, f.Crashes, f.Stalls, f.PodDeletes, f.Disruptions, f.JobChanges)
}

// safetyRules are the rules that hold even under skewed views.
var safetyRules = map[string]bool{
	"reconcile-error": true, "pod-order": true, "parallelism": true, "suspended": true,
	"deadline": true, "backoff": true, "write-ahead": true, "released-active": true,
}

// runLifecycleChecking runs one random Job with the given faults, with
// every check on. With only nil, it fails the property on any violation or
// on a Job that does not finish; with only set, only the violations of
// those rules fail it, and the Job need not finish.
func runLifecycleChecking(t *rapid.T, kinds faultKinds, s *tally, only map[string]bool) jobsynctest.Result {
	job := genJob(t)
	cfg := jobsynctest.Config{
		Seed:         rapid.Int64().Draw(t, "seed"),
		Faults:       genFaults(t, job, kinds),
		MaxSyncs:     lifecycleMaxSyncs,
		Check:        true,
		DiscardSteps: true,
	}
	cluster, err := jobsynctest.NewCluster(job, cfg)
	if err != nil {
		t.Fatalf("NewCluster: %v", err)
	}
	if *sabotage {
		jobsynctest.SabotageWriteAhead(cluster)
	}
	res, err := cluster.Run()
	s.add(res)
	failed := err != nil
	for _, v := range res.Violations {
		if only == nil || only[v.Rule] {
			failed = true
		} else {
			s.tolerate(v.Rule)
		}
	}
	finished := res.Outcome == jobsynctest.OutcomeComplete || res.Outcome == jobsynctest.OutcomeFailed || res.Outcome == jobsynctest.OutcomeDeleted
	if !finished {
		if only == nil {
			failed = true
		} else {
			s.tolerate("unfinished")
		}
	}
	if failed {
		// Run again with the steps kept, to show what happened.
		again, _ := jobsynctest.NewCluster(job, withSteps(cfg))
		if *sabotage {
			jobsynctest.SabotageWriteAhead(again)
		}
		full, _ := again.Run()
		t.Fatalf("%s", explain(full, err))
	}
	return res
}

func withSteps(cfg jobsynctest.Config) jobsynctest.Config {
	cfg.DiscardSteps = false
	return cfg
}

// explain prints a failed lifecycle for a person: the violations and the
// steps that led to them.
func explain(r jobsynctest.Result, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "outcome %s after %d syncs, error %v\n", r.Outcome, r.Syncs, err)
	for i, v := range r.Violations {
		if i == 10 {
			fmt.Fprintf(&b, "... and %d more violations\n", len(r.Violations)-i)
			break
		}
		fmt.Fprintf(&b, "VIOLATION %s\n", v)
	}
	start := jobsynctest.DefaultStart
	// The steps up to the first violation and a few after it.
	steps := r.Steps
	last := len(steps)
	for i, s := range steps {
		if len(s.Violations) > 0 {
			last = min(len(steps), i+10)
			break
		}
	}
	first := max(0, last-150)
	if first > 0 {
		fmt.Fprintf(&b, "... %d steps before\n", first)
	}
	steps = steps[first:last]
	for _, s := range steps {
		st := s.Status
		ready, term := int32(0), int32(0)
		if st.Ready != nil {
			ready = *st.Ready
		}
		if st.Terminating != nil {
			term = *st.Terminating
		}
		var conds []string
		for _, c := range st.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s(%s)", c.Type, c.Status, c.Reason))
		}
		unc := ""
		if u := st.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
			unc = fmt.Sprintf(" uncounted=%d/%d", len(u.Succeeded), len(u.Failed))
		}
		fi := ""
		if st.FailedIndexes != nil {
			fi = " failedIndexes=" + *st.FailedIndexes
		}
		fmt.Fprintf(&b, "%8v %-18s %s %s", s.Time.Sub(start), s.Kind, s.Pod, s.Detail)
		if s.Interrupted != "" {
			fmt.Fprintf(&b, " [%s]", s.Interrupted)
		}
		fmt.Fprintf(&b, " | active=%d ready=%d term=%d succ=%d fail=%d%s ci=%q%s %v\n", st.Active, ready, term, st.Succeeded, st.Failed, unc, st.CompletedIndexes, fi, conds)
		for _, v := range s.Violations {
			fmt.Fprintf(&b, "         ^ VIOLATION %s\n", v)
		}
	}
	return b.String()
}

// The lifecycle properties. Each draws a Job of any completion mode and
// policy and runs it, with its kind of faults, to a terminal condition (or
// to its deletion), checking at every step the invariants of
// jobsynctest.Violation: the status always valid, the same plan for the
// pods in any order, no more pods than parallelism, no creation while
// suspended, after the deadline or before the backoff ran out, no tracking
// finalizer removed before the status holds the pod, terminal conditions
// only once every pod is gone or finished and counted; and at the end every
// pod counted exactly once and the right terminal condition.
func TestPropertyLifecycle(t *testing.T) {
	for _, p := range []struct {
		name  string
		kinds faultKinds
	}{
		{"NoFaults", faultKinds{}},
		{"APIErrors", faultKinds{apiErrors: true}},
		// Admission refusing pod creations (a quota, PodSecurity, a
		// webhook): the status is still written, so deadlines still fire.
		{"RefusedCreations", faultKinds{refused: true}},
		{"Crashes", faultKinds{crashes: true}},
		{"StaleViews", faultKinds{staleViews: true}},
		{"PodDeletions", faultKinds{podDeletions: true}},
		{"JobChanges", faultKinds{jobChanges: true}},
		{"AllFaults", faultKinds{apiErrors: true, refused: true, crashes: true, staleViews: true, podDeletions: true, jobChanges: true}},
		// Under skew between the pod and Job informers upstream's controller
		// (and so jobsync) has races that break liveness and counting (see
		// README.md); the safety rules still hold. The backoff rule holds as
		// judged by the failures the controller could see: a pod view that
		// shows a failed pod released before the Job view records it hides
		// that failure, and the index is retried at once
		// (TestSkewedViewsHiddenIndexFailure).
		{"SkewedViewsSafety", faultKinds{skewedViews: true, apiErrors: true, crashes: true, podDeletions: true, jobChanges: true}},
	} {
		t.Run(p.name, func(t *testing.T) {
			var s tally
			start := time.Now()
			var only map[string]bool
			if p.kinds.skewedViews {
				only = safetyRules
			}
			rapid.Check(t, func(t *rapid.T) { runLifecycleChecking(t, p.kinds, &s, only) })
			t.Logf("%s in %v", &s, time.Since(start).Round(time.Millisecond))
		})
	}
}
