package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
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
	// Events records the events on the Job through the events.k8s.io API
	// (k8s.io/client-go/tools/events, which controller-runtime's and
	// Kueue's recorders are). Set Events or Recorder; with both, each
	// event is recorded through both.
	Events events.EventRecorder
	// Recorder records the events on the Job through the core/v1 API
	// (k8s.io/client-go/tools/record).
	Recorder record.EventRecorder
	// TrackingFinalizer is the finalizer that RemoveFinalizer deletions and
	// FinalizerRemovals take away (jobsync.Options.TrackingFinalizer).
	TrackingFinalizer string
	// Parallelism bounds concurrent calls of one step; zero means
	// DefaultParallelism.
	Parallelism int
	// Status writes the status of the Job, or of the custom resource seen
	// as one, and reads it afresh; nil means JobStatusWriter(Client). A
	// controller of a custom resource sets DynamicStatusWriter (or its
	// own) and Owner.
	Status StatusWriter
	// OnPodWrite, if set, is told of each pod as a create or patch
	// returned it, so that a controller can hold its next sync of the Job
	// until its informer shows the write (upstream's pod control tells its
	// consistency store the same). It may be called from several
	// goroutines at once.
	OnPodWrite func(pod *corev1.Pod)
	// Owner is the kind that owns the pods (jobsync.Options.Owner): the
	// events are recorded on the object under this apiVersion and kind.
	// The zero value means batch/v1 Job.
	Owner schema.GroupVersionKind
}

// statusWriter is Status, or the typed Job writer when unset.
func (x *Executor) statusWriter() StatusWriter {
	if x.Status != nil {
		return x.Status
	}
	return JobStatusWriter(x.Client)
}

// EventTarget is job under the owner's apiVersion and kind (Owner), the
// object to record an event of job on, so that the event names the Job or
// the custom resource it stands for: the recorders take the kind from the
// object's TypeMeta. It is a shallow copy: record events on it, do not
// modify it.
func (x *Executor) EventTarget(job *batchv1.Job) *batchv1.Job {
	owner := x.Owner
	if owner.Empty() {
		owner = jobsync.DefaultOwner()
	}
	target := *job
	target.TypeMeta = metav1.TypeMeta{APIVersion: owner.GroupVersion().String(), Kind: owner.Kind}
	return &target
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
	// Progress is how far the plan was carried out, as the memory was
	// told (jobsync.Advance).
	Progress jobsync.Progress
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

// Error is the failure of a step. Result says what was done. When Step is
// StepDelete or StepCreate, the plan went on to its status writes and
// finalizer removals (as upstream does), and Err also holds what failed
// after.
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
// memory.Store.Begin, step by step as jobsync.Plan.Steps lists them,
// records each step's events once it is over, and tells y how far it went
// (memory.Sync.Advance). It returns the Result and nil when every step
// succeeded, and otherwise an *Error. A plan that was skipped
// (Plan.Skipped) still has its events recorded.
func (x *Executor) Execute(ctx context.Context, y *memory.Sync) (Result, error) {
	r := run{x: x, y: y, plan: y.Plan(), job: y.Job(), logger: klog.FromContext(ctx)}
	r.target = x.EventTarget(r.job)
	r.res.RequeueAfter = r.plan.RequeueAfter
	err := r.all(ctx)
	y.Advance(r.progress)
	r.res.Progress = r.progress
	if e, ok := err.(*Error); ok {
		e.Result = r.res
	}
	return r.res, err
}

type run struct {
	x        *Executor
	y        *memory.Sync
	plan     jobsync.Plan
	job      *batchv1.Job
	target   *batchv1.Job // job as the events name it (EventTarget)
	res      Result
	progress jobsync.Progress
	logger   klog.Logger
	mu       sync.Mutex // guards progress during a step's parallel calls
}

func (r *run) fail(step Step, errs ...error) error {
	return &Error{Step: step, Result: r.res, Err: errors.Join(errs...)}
}

// all carries the steps out. A failed pod call does not stop the plan: the
// rest is decided again by the library (Resume) and carried out, and the
// error is returned at the end, as upstream's syncJob writes the status
// and removes finalizers before it returns its pod-management error.
func (r *run) all(ctx context.Context) error {
	r.record(r.plan.EventsAtOnce())
	var podErr *Error
	steps := r.plan.Steps()
	for len(steps) > 0 {
		step := steps[0]
		steps = steps[1:]
		err := r.do(ctx, step.Kind)
		if step.Kind == jobsync.StepPods {
			if !r.progress.Pods.None() {
				rest, rerr := r.y.Resume(r.progress.Pods)
				if rerr != nil {
					// A plan the library cannot resume (not Reconcile's):
					// stop here, as before any status write.
					r.progress.Stopped = jobsync.StepInterimStatus
					return r.fail(r.podStep(), err, rerr)
				}
				r.plan = rest
				steps = rest.StepsAfter(jobsync.StepPods)
				step.Events = eventsAfter(rest, jobsync.StepPods)
			}
			r.record(step.Events)
			if err != nil {
				podErr = err.(*Error)
			}
			continue
		}
		if err != nil {
			r.progress.Stopped = step.Kind
			if step.Kind == jobsync.StepFinalizers {
				// The removals were all sent; the final status, which
				// assumes they succeeded, is the first step not done.
				r.progress.Stopped = jobsync.StepStatus
			}
			if podErr != nil {
				e := err.(*Error)
				e.Err = errors.Join(podErr.Err, e.Err)
			}
			return err
		}
		r.record(step.Events)
	}
	if podErr != nil {
		return podErr
	}
	return nil
}

// podStep names the pod step of the plan for its errors.
func (r *run) podStep() Step {
	if len(r.plan.Deletions) > 0 {
		return StepDelete
	}
	return StepCreate
}

// do carries out the calls of one step of the plan.
func (r *run) do(ctx context.Context, k jobsync.StepKind) error {
	switch k {
	case jobsync.StepClaims:
		return r.claims(ctx)
	case jobsync.StepPods:
		if err := r.deletions(ctx); err != nil {
			return err
		}
		return r.creations(ctx)
	case jobsync.StepInterimStatus:
		job, err := r.writeStatus(ctx, r.job, r.plan.InterimStatus)
		if err != nil {
			return r.fail(StepInterimStatus, err)
		}
		r.res.InterimStatusWritten, r.res.Job = true, job
		return nil
	case jobsync.StepFinalizers:
		return r.removeFinalizers(ctx)
	case jobsync.StepStatus:
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
		return nil
	}
	return fmt.Errorf("jobsync executor: unknown step %q", k)
}

// eventsAfter returns the events plan records once its step k is over.
func eventsAfter(plan jobsync.Plan, k jobsync.StepKind) []jobsync.Event {
	for _, s := range plan.Steps() {
		if s.Kind == k {
			return s.Events
		}
	}
	return nil
}

// record records the plan's events, with the action they follow.
func (r *run) record(evs []jobsync.Event) {
	for _, ev := range evs {
		r.event(ev.Type, ev.Reason, "Sync", "%s", ev.Message)
	}
}

// event records one event on the Job through the recorders set. action
// is the events.k8s.io action the event follows (the core/v1 API has none).
func (r *run) event(eventType, reason, action, format string, args ...any) {
	if r.x.Events != nil {
		r.x.Events.Eventf(r.target, nil, eventType, reason, action, format, args...)
	}
	if r.x.Recorder != nil {
		r.x.Recorder.Eventf(r.target, eventType, reason, format, args...)
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
