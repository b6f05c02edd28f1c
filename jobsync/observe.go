package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
)

// PodEvent is one pod informer event.
type PodEvent struct {
	// Old is the pod before an update; nil for an add or a delete.
	Old *corev1.Pod
	// Pod is the pod as the event shows it (for a delete, as last seen).
	Pod *corev1.Pod
	// Deleted says the pod is gone for good (a delete event).
	Deleted bool
}

// Observation is what one pod event lowers in a Job's expectations.
type Observation struct {
	Creations, Deletions int
	// FinalizerRemovals are the pods whose finalizer removal is observed.
	FinalizerRemovals []types.UID
}

// Lower returns e lowered by o.
func (o Observation) Lower(e expectations.Expectations) expectations.Expectations {
	e.Creations -= int64(o.Creations)
	e.Deletions -= int64(o.Deletions)
	for _, u := range o.FinalizerRemovals {
		e = e.FinalizerRemovalObserved(u)
	}
	return e
}

// Observe returns what ev lowers in the expectations of job, as upstream's
// Job controller lowers its own from its pod informer:
//
//   - a pod added, controlled by job and not being deleted: one creation;
//   - a pod deleted, or seen with a deletion timestamp, controlled by job,
//     while job is not finished: one deletion, and the pod's finalizer
//     removal once it is gone for good or without the tracking finalizer;
//   - a pod updated without the tracking finalizer: its finalizer removal,
//     for job if job controls it now or controlled it before the update.
//
// An update that does not change the resourceVersion (a periodic resync)
// lowers nothing. Lower the expectations of the Job each controller
// reference names (before and after an update): Observe checks that the
// reference is to job, by UID, under the owner kind of opts.
func Observe(job *batchv1.Job, ev PodEvent, opts Options) Observation {
	var o Observation
	pod := ev.Pod
	if job == nil || pod == nil {
		return o
	}
	fin := opts.withDefaults().TrackingFinalizer
	update := ev.Old != nil && !ev.Deleted
	if update && ev.Old.ResourceVersion == pod.ResourceVersion {
		return o
	}
	owner := opts.withDefaults().Owner.Kind
	controlled := controlledByJob(pod, job, owner)
	if ev.Deleted || pod.DeletionTimestamp != nil {
		// A pod first seen already being deleted (after a restart, say) is
		// a deletion, never a creation.
		if controlled && !isFinished(job) {
			o.Deletions = 1
			if ev.Deleted || !hasFinalizer(pod, fin) {
				o.FinalizerRemovals = []types.UID{pod.UID}
			}
		}
		return o
	}
	if !update {
		if controlled {
			o.Creations = 1
		}
		return o
	}
	// Whether the old pod had the finalizer does not matter: a finalizer
	// added and removed again between two events is seen removed.
	if !hasFinalizer(pod, fin) && (controlled || controlledByJob(ev.Old, job, owner)) {
		o.FinalizerRemovals = []types.UID{pod.UID}
	}
	return o
}

// controlledByJob reports whether the pod's controller reference names job
// by UID under the owner kind (see Options.Owner).
func controlledByJob(p *corev1.Pod, job *batchv1.Job, ownerKind string) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && ref.Kind == ownerKind && ref.UID == job.UID
}
