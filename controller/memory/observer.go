package memory

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/jobsync"
)

// JobLookup finds a Job in the caller's informer cache; it returns nil
// when there is none of that name.
type JobLookup func(namespace, name string) *batchv1.Job

// Observer lowers a Store's memory from informer events by what
// jobsync.Observe says each pod event lowers, for the Job each controller
// reference of the pod names (before and after an update), and forgets a
// Job's memory when the Job is deleted.
//
// The handlers only lower memory; waking the Jobs up is the caller's
// business.
type Observer struct {
	Store *Store
	// Finalizer is the tracking finalizer of the controller.
	Finalizer string
	// Jobs finds Jobs in the informer cache (for a custom resource, the
	// resource seen as a Job).
	Jobs JobLookup
	// Owner is the kind that owns the pods (jobsync.Options.Owner): only
	// controller references to this kind are resolved. The zero value
	// means batch/v1 Job.
	Owner schema.GroupVersionKind
}

// PodAdded handles a pod informer add event.
func (o Observer) PodAdded(pod *corev1.Pod) {
	o.observe(jobsync.PodEvent{Pod: pod})
}

// PodUpdated handles a pod informer update event.
func (o Observer) PodUpdated(old, cur *corev1.Pod) {
	o.observe(jobsync.PodEvent{Old: old, Pod: cur})
}

// PodDeleted handles a pod informer delete event; obj is a *corev1.Pod or
// a cache.DeletedFinalStateUnknown holding one.
func (o Observer) PodDeleted(obj any) {
	if pod := PodFrom(obj); pod != nil {
		o.observe(jobsync.PodEvent{Pod: pod, Deleted: true})
	}
}

// JobDeleted handles a Job informer delete event; obj is a *batchv1.Job,
// or any object with metadata (such as the *unstructured.Unstructured of a
// custom resource), or a cache.DeletedFinalStateUnknown holding one.
func (o Observer) JobDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if m, err := meta.Accessor(obj); err == nil {
		o.Store.forgetUID(types.NamespacedName{Namespace: m.GetNamespace(), Name: m.GetName()}, m.GetUID())
	}
}

// observe lowers the memory of the Jobs the pod's controller references
// name, now and (for an update) before.
func (o Observer) observe(ev jobsync.PodEvent) {
	opts := jobsync.Options{TrackingFinalizer: o.Finalizer, Owner: o.Owner}
	cur := o.controllerOf(ev.Pod)
	if cur != nil {
		o.lower(cur, jobsync.Observe(cur, ev, opts))
	}
	if ev.Old != nil {
		if prev := o.controllerOf(ev.Old); prev != nil && (cur == nil || prev.UID != cur.UID) {
			o.lower(prev, jobsync.Observe(prev, ev, opts))
		}
	}
}

func (o Observer) lower(job *batchv1.Job, ob jobsync.Observation) {
	if ob.Creations == 0 && ob.Deletions == 0 && len(ob.FinalizerRemovals) == 0 {
		return
	}
	o.Store.update(keyOf(job), job.UID, func(e *entry) { e.exp = ob.Lower(e.exp) })
}

func (o Observer) controllerOf(pod *corev1.Pod) *batchv1.Job {
	return o.resolve(pod.Namespace, metav1.GetControllerOfNoCopy(pod))
}

// resolve returns the Job a controller reference names, if the cache holds
// it with the same UID.
func (o Observer) resolve(namespace string, ref *metav1.OwnerReference) *batchv1.Job {
	if ref == nil || ref.Kind != o.ownerKind() {
		return nil
	}
	job := o.Jobs(namespace, ref.Name)
	if job == nil || job.UID != ref.UID {
		return nil
	}
	return job
}

// ownerKind is the kind of Owner, Job when unset.
func (o Observer) ownerKind() string {
	if o.Owner.Empty() {
		return jobsync.DefaultOwner().Kind
	}
	return o.Owner.Kind
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
