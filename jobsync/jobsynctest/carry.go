package jobsynctest

import (
	"errors"
	"fmt"

	"github.com/jobsync/jobsync/jobsync"
)

var errRefused = errors.New("pods is forbidden: exceeded quota (injected refusal)")

// carrying is one plan being carried out against the fake API server, step
// by step as the library says (jobsync.Plan.Steps, Resume, Advance): a
// failed pod creation or deletion lets the plan go on with the rest
// jobsync.Resume decides, any other failure stops it.
type carrying struct {
	c         *Cluster
	snap      jobsync.Snapshot // what Reconcile read
	seen      jobsync.Snapshot // what the checks read
	plan      jobsync.Plan     // the plan carried out (after Resume, its rest)
	rv        string
	crashAt   int // the number of calls after which the controller crashes; -1 never
	made      int // calls sent
	crashed   bool
	failure   error
	progress  jobsync.Progress
	failedDel map[int]bool // deletions whose finalizer patch failed: the delete is not sent
}

// stepOf is the step of the plan a call belongs to.
func stepOf(kind string) jobsync.StepKind {
	switch kind {
	case "release", "adopt":
		return jobsync.StepClaims
	case "unfinalize-delete", "delete", "create":
		return jobsync.StepPods
	case "interim":
		return jobsync.StepInterimStatus
	case "unfinalize":
		return jobsync.StepFinalizers
	}
	return jobsync.StepStatus
}

// carryOut sends calls in order until the plan ends, stops or the
// controller crashes.
func (r *carrying) carryOut(calls []call) {
	creations, batchEnd, batch := 0, 1, 1
	createFailed := false
	for i := 0; i < len(calls); i++ {
		cl := calls[i]
		step := stepOf(cl.kind)
		if !r.call(calls, &i, &creations, &batchEnd, &batch, &createFailed) {
			return
		}
		if step == jobsync.StepPods && stepOf(next(calls, i)) != jobsync.StepPods && !r.progress.Pods.None() {
			if !r.resume(&calls, i) {
				return
			}
		}
	}
	if r.progress.Stopped == "" && len(r.progress.FailedRemovals) > 0 {
		// The last calls were removals, one of which failed: no final
		// status to hold back, but the plan did not end.
		r.progress.Stopped = jobsync.StepStatus
	}
}

// call carries out calls[*i] (or, for creations past a failed slow-start
// batch, skips them all, moving *i to the last). It reports false when the
// plan stops there.
func (r *carrying) call(calls []call, i *int, creations, batchEnd, batch *int, createFailed *bool) bool {
	cl := calls[*i]
	step := stepOf(cl.kind)
	if step != jobsync.StepFinalizers && len(r.progress.FailedRemovals) > 0 {
		// The removals were all sent, and one failed: what follows (the
		// final status) assumes they all succeeded.
		r.progress.Stopped = step
		return false
	}
	if cl.kind == "create" {
		// Slow start: batches of 1, 2, 4, ...; after a batch with a
		// failure the rest are not sent.
		if *creations == *batchEnd {
			if *createFailed {
				r.progress.Pods.Creations += len(r.plan.Creations) - *creations
				*i = r.skipCreations(calls, *i) - 1
				return true
			}
			*batch *= 2
			*batchEnd += *batch
		}
		*creations++
	}
	if cl.kind == "delete" && r.failedDel[cl.deletion] {
		return true
	}
	if r.made == r.crashAt {
		r.crashed = true
		return false
	}
	r.made++
	gone, err := r.send(cl)
	switch {
	case step == jobsync.StepPods:
		if err != nil {
			r.failure = fmt.Errorf("%s: %w", cl.kind, err)
			*createFailed = *createFailed || cl.kind == "create"
		}
		r.podOutcome(cl, gone, err)
	case err != nil && step == jobsync.StepFinalizers:
		r.failure = fmt.Errorf("%s: %w", cl.kind, err)
		r.progress.FailedRemovals = append(r.progress.FailedRemovals, cl.pod.UID)
	case err != nil:
		r.failure = fmt.Errorf("%s: %w", cl.kind, err)
		r.progress.Stopped = step
		return false
	}
	return true
}

// next is the kind of the call after i, "" at the end.
func next(calls []call, i int) string {
	if i+1 < len(calls) {
		return calls[i+1].kind
	}
	return "end"
}

// skipCreations returns the index of the first call after calls[i] that
// is not a creation.
func (r *carrying) skipCreations(calls []call, i int) int {
	for i < len(calls) && calls[i].kind == "create" {
		i++
	}
	return i
}

// send makes one call, with the faults the configuration injects. gone
// says a deletion found its pod gone.
func (r *carrying) send(cl call) (gone bool, err error) {
	c, f := r.c, &r.c.cfg.Faults
	if f.APIError > 0 && c.rng.Float64() < f.APIError {
		c.result.Faults.APIErrors++
		return false, errAPI
	}
	if cl.kind == "create" && f.RefusedCreation > 0 && c.rng.Float64() < f.RefusedCreation {
		c.result.Faults.Refused++
		return false, errRefused
	}
	if cl.kind == "delete" && c.pods[cl.pod.UID] == nil {
		return true, nil
	}
	return false, c.do(cl, &r.plan, r.seen, &r.rv)
}

// podOutcome notes what a pod call did in the progress.
func (r *carrying) podOutcome(cl call, gone bool, err error) {
	switch {
	case cl.kind == "create" && err != nil:
		r.progress.Pods.Creations++
	case cl.kind == "unfinalize-delete" && err != nil:
		if r.failedDel == nil {
			r.failedDel = map[int]bool{}
		}
		r.failedDel[cl.deletion] = true
		r.progress.Pods.Deletions = append(r.progress.Pods.Deletions, jobsync.DeletionFailure{Pod: cl.pod.UID, Finalizer: true})
	case cl.kind == "delete" && (err != nil || gone):
		r.progress.Pods.Deletions = append(r.progress.Pods.Deletions, jobsync.DeletionFailure{Pod: cl.pod.UID, Gone: gone})
	}
}

// resume replaces the calls after the pod step (which ends at calls[i])
// with those of the rest of the plan the library decides. It reports
// false, with the plan stopped, when the library refuses.
func (r *carrying) resume(calls *[]call, i int) bool {
	rest, err := jobsync.Resume(r.snap, r.c.opts, r.plan, r.progress.Pods)
	if err != nil {
		if r.c.check != nil {
			r.c.check.Violate("reconcile-error", "Resume: %s", err.Error())
		}
		r.failure = err
		r.progress.Stopped = jobsync.StepInterimStatus
		return false
	}
	r.plan = rest
	var after []call
	for _, cl := range planCalls(&r.plan, r.c.finalizersFirst) {
		if s := stepOf(cl.kind); s != jobsync.StepClaims && s != jobsync.StepPods {
			after = append(after, cl)
		}
	}
	*calls = append((*calls)[:i+1:i+1], after...)
	return true
}
