package jobsync

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
)

// syncState is what every step of one Reconcile call reads, the
// counterpart of upstream's per-sync context: the options, the clock
// reading, the caller's Job (read only) and facts of its spec, and the two
// things the steps add to, the status being built (a deep copy) and the
// plan. What a step decides travels in its results, not in here: a step
// reads the caller's Job, never the status copy another step changed (only
// setPodCounts, the suspend step and track, which writes the status,
// touch the copy).
type syncState struct {
	opts Options
	now  time.Time
	job  *batchv1.Job       // the caller's Job, read only
	st   *batchv1.JobStatus // the status being built, a deep copy
	plan *Plan

	indexed   bool
	perIndex  bool // backoffLimitPerIndex is set (Indexed Jobs only)
	suspended bool
	// satisfied says the expectations of earlier syncs are met (or timed
	// out), and manages that the sync may create and delete pods: it is
	// satisfied and the Job is not being deleted. Decided once here, as
	// both the scan (whether to rank active pods) and Reconcile (whether to
	// run manage) act on it.
	satisfied, manages bool
	// expected is the caller's expectations as the sync found them.
	expected expectations.Expectations
}

// newSyncState makes the state of one sync of s.Job: the status copy (with
// uncountedTerminatedPods never nil) that the steps build, and the plan they
// add to.
func newSyncState(s Snapshot, opts Options, plan *Plan) syncState {
	job := s.Job
	st := job.Status.DeepCopy()
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	sync := syncState{
		opts:      opts,
		now:       s.Now,
		job:       job,
		st:        st,
		plan:      plan,
		indexed:   isIndexed(job),
		suspended: job.Spec.Suspend != nil && *job.Spec.Suspend,
		satisfied: s.Expectations.Satisfied(s.Now, opts.ExpectationsTimeout),
		expected:  s.Expectations,
	}
	sync.perIndex = sync.indexed && job.Spec.BackoffLimitPerIndex != nil
	sync.manages = sync.satisfied && job.DeletionTimestamp == nil
	return sync
}

// podView is what the scan makes of the snapshot's pods, read by the steps
// after it and changed by none.
type podView struct {
	pods []*corev1.Pod // the Job's pods after claiming
	// settled is the number of the Job's pods the caller left out of the
	// snapshot as settled (Snapshot.SettledPods): only neverStarted reads it.
	settled int
	// active is Snapshot.Active, the caller's set of active pods kept out
	// of pods (nil for none); counts and, for Indexed Jobs, indexTrouble
	// include them.
	active *ActivePods
	// succeeded is Snapshot.Succeeded, the caller's set of succeeded pods
	// carrying the tracking finalizer kept out of pods (nil for none); only
	// newlyFinished, succeededPods, track and neverStarted read it.
	succeeded *SucceededPods
	// finishedOrDeleting holds the records of those of pods that are
	// terminal or being deleted, but terminal ones without the tracking
	// finalizer only under a pod failure policy (see scan).
	finishedOrDeleting []podRecord
	// counts are the active, ready and terminating pods found.
	counts podCounts

	// activeIndexes holds the valid indexes of the active pods of an
	// Indexed Job found in pods (hasActiveIndex and activeIndexSet add the
	// held ones); indexTrouble says some active pod, in pods or held, has
	// an invalid, out-of-range or repeated index, which calls for deletions
	// (never set for NonIndexed Jobs).
	activeIndexes *indexSet
	indexTrouble  bool

	// shortlist holds the active pods ranked for deletion, when the sync
	// may delete some (see shortlist.go).
	shortlist shortlist

	// uncountedSucceeded and uncountedFailed hold the UIDs found in
	// status.uncountedTerminatedPods at the start of the sync.
	uncountedSucceeded, uncountedFailed map[types.UID]bool
	// expectedRemovals holds the UIDs whose finalizer removal is still expected.
	expectedRemovals expectations.UIDSet
}

// podCounts are the Job's active, ready and terminating pods, as the scan
// finds them and as the deletions and creations of the sync change them.
type podCounts struct {
	active, ready, terminating int32
}

// activePods returns the active pods (neither terminal nor being deleted),
// built when asked for: a steady-state sync of a NonIndexed Job never needs
// the list.
func (view *podView) activePods() []*corev1.Pod {
	out := make([]*corev1.Pod, 0, view.counts.active)
	for _, p := range view.pods {
		if isActive(p) {
			out = append(out, p)
		}
	}
	if view.active != nil {
		for i := range view.active.pods {
			out = append(out, view.active.pods[i].pod)
		}
	}
	return out
}

// hasActiveIndex reports whether an active pod, in pods or held, has
// completion index ix.
func (view *podView) hasActiveIndex(ix int) bool {
	return view.activeIndexes.has(ix) || view.active.holdsIndex(ix)
}

// activeIndexSet returns the completion indexes of the active pods, in pods
// or held.
func (view *podView) activeIndexSet() indexes.Set {
	found := view.activeIndexes.members()
	if view.active.Len() == 0 {
		return found
	}
	return found.Union(view.active.indexes.members())
}

// setPodCounts writes the pod counts into the status and reports whether
// they differ from the Job's.
func (sync *syncState) setPodCounts(c podCounts) bool {
	st := sync.st
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

// requeue asks to look again after d, keeping the earliest request. Pod
// failure backoff requeues wait at least MinRequeueDelay, as upstream's do.
func (sync *syncState) requeue(d time.Duration, backoff bool) {
	if backoff && d < sync.opts.MinRequeueDelay {
		d = sync.opts.MinRequeueDelay
	}
	if d <= 0 {
		// Upstream adds the Job to its queue at once; zero means "no
		// request" in a plan, so the smallest positive delay stands in.
		d = time.Nanosecond
	}
	if sync.plan.RequeueAfter == 0 || d < sync.plan.RequeueAfter {
		sync.plan.RequeueAfter = d
	}
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
