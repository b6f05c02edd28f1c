package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// DefaultParallelism bounds the concurrent finalizer removals and deletions
// of one plan. Upstream starts one call per pod, and a plan holds at most
// 500 deletions (MaxPodCreateDeletePerSync) and 500 newly uncounted pods
// (MaxUncountedPods); the client's rate limiter is the real bound.
const DefaultParallelism = 500

// Executor carries plans out. Its fields are read only; one Executor may
// carry out plans of many Jobs at once.
type Executor struct {
	// Client is the API server's clientset.
	Client kubernetes.Interface
	// Recorder records the events on the Job.
	Recorder record.EventRecorder
	// TrackingFinalizer is the finalizer that RemoveFinalizer deletions and
	// FinalizerRemovals take away (jobsync.Options.TrackingFinalizer).
	TrackingFinalizer string
	// Parallelism bounds concurrent calls of one step; zero means
	// DefaultParallelism.
	Parallelism int
}

// Result says what the steps of a plan did.
type Result struct {
	// Released, Adopted, Deleted and Created count the claims, deletions
	// and creations done (a pod already gone counts as done, as upstream
	// counts it).
	Released, Adopted, Deleted, Created int
	// FinalizersRemoved counts the finalizer removals done.
	FinalizersRemoved int
	// InterimStatusWritten and StatusWritten say which status writes were
	// made.
	InterimStatusWritten, StatusWritten bool
	// Job is the Job as the last status write returned it, nil if none.
	Job *batchv1.Job
	// RequeueAfter is the plan's: sync the Job again after it (if no event
	// does earlier).
	RequeueAfter time.Duration
}

// Step names a step of a plan.
type Step string

// The steps of a plan, in order.
const (
	StepAdopt            Step = "adopt"
	StepRelease          Step = "release"
	StepDelete           Step = "delete"
	StepCreate           Step = "create"
	StepInterimStatus    Step = "interim status"
	StepRemoveFinalizers Step = "remove finalizers"
	StepStatus           Step = "status"
)

// Error is the failure of a step: the plan stopped there. Result says what
// was done before and during the step; the memory was lowered for the rest.
type Error struct {
	Step   Step
	Result Result
	// Err joins the errors of the step's failed calls.
	Err error
}

// Error says which step failed and why.
func (e *Error) Error() string {
	return fmt.Sprintf("jobsync executor: %s: %v", e.Step, e.Err)
}

// Unwrap returns the step's errors, so that apierrors.IsConflict and
// errors.Is see them.
func (e *Error) Unwrap() error { return e.Err }

// Execute carries out the plan of y, which the caller got from
// memory.Store.Begin. It returns the Result and nil when every step
// succeeded, and otherwise an *Error. A plan that was skipped
// (Plan.Skipped) still has its events recorded.
func (x *Executor) Execute(ctx context.Context, y *memory.Sync) (Result, error) {
	r := run{x: x, y: y, plan: y.Plan(), job: y.Job(), logger: klog.FromContext(ctx)}
	r.res.RequeueAfter = r.plan.RequeueAfter
	err := r.all(ctx)
	return r.res, err
}

type run struct {
	x      *Executor
	y      *memory.Sync
	plan   jobsync.Plan
	job    *batchv1.Job
	res    Result
	logger klog.Logger
}

func (r *run) fail(step Step, errs ...error) error {
	return &Error{Step: step, Result: r.res, Err: errors.Join(errs...)}
}

func (r *run) all(ctx context.Context) error {
	finishing := r.recordEarlyEvents()
	if err := r.claims(ctx); err != nil {
		r.lowerCreations(len(r.plan.Creations))
		r.lowerDeletions(len(r.plan.Deletions))
		r.lowerRemovals(r.plan.FinalizerRemovals)
		return err
	}
	if err := r.deletions(ctx); err != nil {
		r.lowerRemovals(r.plan.FinalizerRemovals)
		return err
	}
	if err := r.creations(ctx); err != nil {
		r.lowerRemovals(r.plan.FinalizerRemovals)
		return err
	}
	if r.plan.InterimStatus != nil {
		job, err := r.writeStatus(ctx, r.job, r.plan.InterimStatus)
		if err != nil {
			r.lowerRemovals(r.plan.FinalizerRemovals)
			return r.fail(StepInterimStatus, err)
		}
		r.res.InterimStatusWritten, r.res.Job = true, job
		r.y.InterimStatusWritten()
	}
	if err := r.removeFinalizers(ctx); err != nil {
		return err
	}
	if r.plan.Status != nil {
		base := r.job
		if r.res.Job != nil {
			// The final write must carry the resourceVersion of the
			// interim one, or the API server refuses it as a conflict.
			base = r.res.Job
		}
		job, err := r.writeStatus(ctx, base, r.plan.Status)
		if err != nil {
			return r.fail(StepStatus, err)
		}
		r.res.StatusWritten, r.res.Job = true, job
		r.y.StatusWritten()
		r.record(finishing)
	}
	return nil
}

// recordEarlyEvents records the events upstream records before its status
// writes (Suspended, Resumed, UnknownCompletionMode) and returns the others,
// which upstream records once the final status is written.
func (r *run) recordEarlyEvents() []jobsync.Event {
	var early, late []jobsync.Event
	for _, ev := range r.plan.Events {
		switch ev.Reason {
		case "Suspended", "Resumed", "UnknownCompletionMode":
			early = append(early, ev)
		default:
			late = append(late, ev)
		}
	}
	if r.plan.Status == nil {
		// No final write to wait for.
		early, late = append(early, late...), nil
	}
	r.record(early)
	return late
}

func (r *run) record(events []jobsync.Event) {
	for _, ev := range events {
		r.x.Recorder.Event(r.job, ev.Type, ev.Reason, ev.Message)
	}
}

func (r *run) parallelism() int {
	if r.x.Parallelism > 0 {
		return r.x.Parallelism
	}
	return DefaultParallelism
}

// parallel runs f(i) for i in [0, n) with at most the executor's
// parallelism at once.
func (r *run) parallel(n int, f func(i int)) {
	sem := make(chan struct{}, r.parallelism())
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}
