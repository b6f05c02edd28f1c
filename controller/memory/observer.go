package memory

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// JobLookup finds a Job in the caller's informer cache; it returns nil
// when there is none of that name.
type JobLookup func(namespace, name string) *batchv1.Job

// Observer lowers a Store's memory from informer events, where upstream's
// Job controller lowers its own expectations:
//
//   - a pod added with a controller reference to a known Job: one creation
//     observed;
//   - a pod seen with a deletion timestamp, or deleted, whose Job is known
//     and not finished: one deletion observed, and its finalizer removal
//     observed once it is gone for good or has lost the tracking finalizer;
//   - a pod updated without the tracking finalizer: its finalizer removal
//     observed for its Job, and for its previous Job if its controller
//     reference changed;
//   - a Job deleted: its memory forgotten.
//
// Updates that do not change the resourceVersion (periodic resyncs) are
// ignored. The handlers only lower memory; waking the Jobs up is the
// caller's business.
type Observer struct {
	Store *Store
	// Finalizer is the tracking finalizer of the controller.
	Finalizer string
	// Jobs finds Jobs in the informer cache.
	Jobs JobLookup
}

// PodAdded handles a pod informer add event.
func (o Observer) PodAdded(pod *corev1.Pod) {
	if pod.DeletionTimestamp != nil {
		// A pod first seen already being deleted (after a restart, say) is
		// a deletion, never a creation.
		o.podGone(pod, false)
		return
	}
	if job := o.controllerOf(pod); job != nil {
		o.Store.update(keyOf(job), job.UID, func(e *entry) { e.exp = e.exp.CreationObserved() })
	}
}

// PodUpdated handles a pod informer update event.
func (o Observer) PodUpdated(old, cur *corev1.Pod) {
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	if cur.DeletionTimestamp != nil {
		o.podGone(cur, false)
		return
	}
	// Whether the old pod had the finalizer does not matter: a finalizer
	// added and removed again between two events is seen removed.
	if o.hasFinalizer(cur) {
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	if oldRef != nil && (curRef == nil || curRef.UID != oldRef.UID) {
		if job := o.resolve(old.Namespace, oldRef); job != nil {
			o.removalObserved(job, cur.UID)
		}
	}
	if job := o.resolve(cur.Namespace, curRef); job != nil {
		o.removalObserved(job, cur.UID)
	}
}

// PodDeleted handles a pod informer delete event; obj is a *corev1.Pod or
// a cache.DeletedFinalStateUnknown holding one.
func (o Observer) PodDeleted(obj any) {
	if pod := PodFrom(obj); pod != nil {
		o.podGone(pod, true)
	}
}

// JobDeleted handles a Job informer delete event; obj is a *batchv1.Job or
// a cache.DeletedFinalStateUnknown holding one.
func (o Observer) JobDeleted(obj any) {
	if job := JobFrom(obj); job != nil {
		o.Store.forgetUID(keyOf(job), job.UID)
	}
}

func (o Observer) podGone(pod *corev1.Pod, final bool) {
	job := o.controllerOf(pod)
	if job == nil || isFinished(job) {
		return
	}
	o.Store.update(keyOf(job), job.UID, func(e *entry) {
		e.exp = e.exp.DeletionObserved()
		if final || !o.hasFinalizer(pod) {
			e.exp = e.exp.FinalizerRemovalObserved(pod.UID)
		}
	})
}

func (o Observer) removalObserved(job *batchv1.Job, uid types.UID) {
	o.Store.update(keyOf(job), job.UID, func(e *entry) { e.exp = e.exp.FinalizerRemovalObserved(uid) })
}

func (o Observer) controllerOf(pod *corev1.Pod) *batchv1.Job {
	return o.resolve(pod.Namespace, metav1.GetControllerOfNoCopy(pod))
}

// resolve returns the Job a controller reference names, if the cache holds
// it with the same UID.
func (o Observer) resolve(namespace string, ref *metav1.OwnerReference) *batchv1.Job {
	if ref == nil || ref.Kind != "Job" {
		return nil
	}
	job := o.Jobs(namespace, ref.Name)
	if job == nil || job.UID != ref.UID {
		return nil
	}
	return job
}

func (o Observer) hasFinalizer(pod *corev1.Pod) bool {
	return slices.Contains(pod.Finalizers, o.Finalizer)
}

func isFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// PodFrom returns the pod an informer delete event carries, unwrapping a
// tombstone, or nil if it carries none.
func PodFrom(obj any) *corev1.Pod {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, _ := obj.(*corev1.Pod)
	return pod
}

// JobFrom returns the Job an informer delete event carries, unwrapping a
// tombstone, or nil if it carries none.
func JobFrom(obj any) *batchv1.Job {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	job, _ := obj.(*batchv1.Job)
	return job
}

// forgetUID drops the memory of key if it belongs to uid.
func (s *Store) forgetUID(key types.NamespacedName, uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[key]; e != nil && e.uid == uid {
		delete(s.jobs, key)
	}
}
