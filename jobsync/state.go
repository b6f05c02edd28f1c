package jobsync

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// syncState is what every step of one Reconcile call reads, the
// counterpart of upstream's per-sync context: the options, the clock
// reading, the caller's Job (read only) and facts of its spec, all set
// once and only read. What a step decides travels in its results, not in
// here: the status being built is Reconcile's, handed from step to step
// (see newStatus), and a step adds only to its own plan part (see
// assemble.go).
type syncState struct {
	opts Options
	now  time.Time
	job  *batchv1.Job // the caller's Job, read only

	indexed   bool
	perIndex  bool // backoffLimitPerIndex is set (Indexed Jobs only)
	suspended bool
	// satisfied says the expectations of earlier syncs are met (or timed
	// out), and manages that the sync may create and delete pods: it is
	// satisfied and the Job is not being deleted. Decided once here, as
	// both the scan (whether to rank active pods) and Reconcile (whether to
	// run manage) act on it.
	satisfied, manages bool
}

// newSyncState makes the state of one sync of s.Job.
func newSyncState(s Snapshot, opts Options) syncState {
	job := s.Job
	sync := syncState{
		opts:      opts,
		now:       s.Now,
		job:       job,
		indexed:   isIndexed(job),
		suspended: job.Spec.Suspend != nil && *job.Spec.Suspend,
		satisfied: s.Expectations.Satisfied(s.Now, opts.ExpectationsTimeout),
	}
	sync.perIndex = sync.indexed && job.Spec.BackoffLimitPerIndex != nil
	sync.manages = sync.satisfied && job.DeletionTimestamp == nil
	return sync
}

// newStatus returns the status a sync of job builds, a deep copy of the
// Job's with uncountedTerminatedPods never nil. Reconcile owns it and hands
// it to the steps that write it, in turn: the suspend step, setPodCounts,
// then track.
func newStatus(job *batchv1.Job) *batchv1.JobStatus {
	st := job.Status.DeepCopy()
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	return st
}

// podCounts are the Job's active, ready and terminating pods, as the scan
// finds them and as the deletions and creations of the sync change them.
type podCounts struct {
	active, ready, terminating int32
}

// setPodCounts writes the pod counts into st, the status being built, and
// reports whether they differ from the Job's.
func setPodCounts(st *batchv1.JobStatus, c podCounts) bool {
	changed := c.active != st.Active || st.Ready == nil || *st.Ready != c.ready ||
		st.Terminating == nil || *st.Terminating != c.terminating
	st.Active = c.active
	st.Ready = ptrInt32(c.ready)
	st.Terminating = ptrInt32(c.terminating)
	return changed
}

func isIndexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

func ptrTime(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t)
	return &mt
}

func ptrInt32(v int32) *int32 { return &v }

func refOf(p *corev1.Pod) PodRef {
	return PodRef{Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

func hasFinalizer(p *corev1.Pod, f string) bool {
	for _, name := range p.Finalizers {
		if name == f {
			return true
		}
	}
	return false
}

// requeue asks, in part, to look again after d (see requeueDelay).
func (sync *syncState) requeue(part *Plan, d time.Duration, backoff bool) {
	part.requeueAt(sync.requeueDelay(d, backoff))
}

// requeueDelay returns the delay of a request to look again after d. Pod
// failure backoff requeues wait at least MinRequeueDelay, as upstream's do.
func (sync *syncState) requeueDelay(d time.Duration, backoff bool) time.Duration {
	if backoff && d < sync.opts.MinRequeueDelay {
		d = sync.opts.MinRequeueDelay
	}
	if d <= 0 {
		// Upstream adds the Job to its queue at once; zero means "no
		// request" in a plan, so the smallest positive delay stands in.
		d = time.Nanosecond
	}
	return d
}

// appendDoubling is append for the lists a sync builds over thousands of
// pods: it doubles the capacity when the list is full, where append's
// growth slows towards 1.25× for long slices and so allocates about four
// times the final size in all. Every byte a sync allocates is paid again
// by the garbage collector, in proportion to the caller's live heap (the
// pods themselves).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), max(16, 2*cap(s)))
		copy(grown, s)
		s = grown
	}
	return append(s, v)
}
