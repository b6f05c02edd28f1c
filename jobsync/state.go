package jobsync

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
)

// syncState is the working memory of one Reconcile call, the counterpart of
// upstream's per-sync context. Only status is ever written to, and it is a
// copy.
type syncState struct {
	opts Options
	now  time.Time
	job  *batchv1.Job       // the caller's Job, read only
	st   *batchv1.JobStatus // the status being built, a deep copy
	plan *Plan

	pods []*corev1.Pod // the Job's pods after claiming
	// finishedOrDeleting holds the records of those of pods that are
	// terminal or being deleted, but terminal ones without the tracking
	// finalizer only under a pod failure policy (see scan).
	finishedOrDeleting []podRecord
	active             []*corev1.Pod // built on demand by activePods
	indexed            bool
	perIndex           bool // backoffLimitPerIndex is set (Indexed Jobs only)
	suspended          bool

	// activeIndexes holds the valid indexes of active pods of an Indexed
	// Job; indexTrouble says some active pod has an invalid, out-of-range
	// or repeated index, which calls for deletions (never set for
	// NonIndexed Jobs).
	activeIndexes *indexSet
	indexTrouble  bool

	// uncounted holds the UIDs found in status.uncountedTerminatedPods at the
	// start of the sync.
	uncountedSucceeded, uncountedFailed map[types.UID]bool
	// expectedRemovals holds the UIDs whose finalizer removal is still expected.
	expectedRemovals expectations.UIDSet

	succeeded, failed int32
	ready             int32
	terminating       int32
	activeCount       int32

	// finished is the condition the Job is heading to, when one is decided.
	finished *batchv1.JobCondition

	prevSucceededIndexes indexes.Set
	succeededIndexes     indexes.Set
	failedIndexes        indexes.Set // meaningful only when perIndex
	// delayedRemoval maps an index to the failed pod whose finalizer stays
	// until its replacement carries the index failure count.
	delayedRemoval map[int]*podRecord

	newBackoff backoff.Record

	// podGroup is the PodGroup the Job's new pods join (WorkloadWithJob),
	// empty for default scheduling.
	podGroup string
}

// activePods returns the active pods, built on first use: a steady-state
// sync of a NonIndexed Job never needs the list.
func (x *syncState) activePods() []*corev1.Pod {
	if x.active == nil {
		x.active = make([]*corev1.Pod, 0, x.activeCount)
		for _, p := range x.pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil {
				x.active = append(x.active, p)
			}
		}
	}
	return x.active
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
	for _, x := range p.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}
