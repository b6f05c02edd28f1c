package kit

import (
	"reflect"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/jobsync/jobsync/controller/memory"
)

// DefaultBatchPeriod gathers the pod events of a Job into one sync, as
// upstream's controller does.
const DefaultBatchPeriod = time.Second

// Handlers are the informer event handlers of a Job controller. Pod
// events lower the memory (Observer) and wake their Job after
// BatchPeriod, so that a burst of pod changes makes one sync; without
// them a Job stalls until the expectations time out. Job events wake the
// Job at once (a spec change) or after BatchPeriod (a status change). A
// pod carrying the finalizer without a live, unfinished Job of the
// controller is offered to Orphans.
//
// The methods take what client-go's informers give
// (cache.ResourceEventHandlerFuncs); Handlers holds no state of its own,
// so a copy with another Enqueue is as good.
type Handlers struct {
	// Observer lowers the memory.
	Observer memory.Observer
	// Jobs reads the Job cache.
	Jobs JobCache
	// Orphans releases the finalizers no sync will take off.
	Orphans *Orphans
	// Enqueue wakes job after delay.
	Enqueue func(job *batchv1.Job, delay time.Duration)
	// BatchPeriod is the delay of a sync woken by a pod or status change;
	// zero means DefaultBatchPeriod.
	BatchPeriod time.Duration
}

func (h Handlers) batch() time.Duration {
	if h.BatchPeriod > 0 {
		return h.BatchPeriod
	}
	return DefaultBatchPeriod
}

// AddJob handles a Job informer add event.
func (h Handlers) AddJob(obj any) {
	if job := h.Jobs.view(obj); job != nil && h.Jobs.Runs(job) {
		h.Enqueue(job, 0)
	}
}

// UpdateJob handles a Job informer update event.
func (h Handlers) UpdateJob(oldObj, curObj any) {
	old, cur := h.Jobs.view(oldObj), h.Jobs.view(curObj)
	if old == nil || cur == nil || !h.Jobs.Runs(cur) {
		return
	}
	if Finished(cur) {
		// A finished Job's pods keep no finalizer; take off any that a
		// late creation left.
		h.Orphans.OfferSelectedBy(cur)
		// One more sync clears the Job's backoff and lets it be skipped.
		h.Enqueue(cur, h.batch())
		return
	}
	if cur.Generation != old.Generation {
		h.Enqueue(cur, 0)
	} else {
		h.Enqueue(cur, h.batch())
	}
}

// DeleteJob handles a Job informer delete event; obj is a *batchv1.Job or
// a tombstone holding one.
func (h Handlers) DeleteJob(obj any) {
	job := h.Jobs.view(obj)
	if job == nil || !h.Jobs.Runs(job) {
		return
	}
	h.Observer.JobDeleted(obj)
	h.Enqueue(job, 0)
	h.Orphans.OfferSelectedBy(job)
}

// AddPod handles a pod informer add event.
func (h Handlers) AddPod(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	h.Observer.PodAdded(pod)
	if pod.DeletionTimestamp != nil {
		h.podGone(pod)
		return
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if job := h.Jobs.Resolve(pod.Namespace, ref); job != nil {
			h.Enqueue(job, h.batch())
		}
		h.Orphans.Offer(pod)
		return
	}
	h.Orphans.Offer(pod)
	for _, job := range h.jobsSelecting(pod) {
		h.Enqueue(job, h.batch())
	}
}

// UpdatePod handles a pod informer update event.
func (h Handlers) UpdatePod(oldObj, curObj any) {
	old, ok1 := oldObj.(*corev1.Pod)
	cur, ok2 := curObj.(*corev1.Pod)
	if !ok1 || !ok2 || old.ResourceVersion == cur.ResourceVersion {
		return
	}
	h.Observer.PodUpdated(old, cur)
	if cur.DeletionTimestamp != nil {
		h.podGone(cur)
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if job := h.Jobs.Resolve(old.Namespace, oldRef); job != nil {
			h.Enqueue(job, h.batch())
		}
	}
	if curRef != nil {
		if job := h.Jobs.Resolve(cur.Namespace, curRef); job != nil {
			h.Enqueue(job, h.batch())
		}
		h.Orphans.Offer(cur)
		return
	}
	h.Orphans.Offer(cur)
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		for _, job := range h.jobsSelecting(cur) {
			h.Enqueue(job, h.batch())
		}
	}
}

// DeletePod handles a pod informer delete event; obj is a *corev1.Pod or
// a tombstone holding one.
func (h Handlers) DeletePod(obj any) {
	pod := memory.PodFrom(obj)
	if pod == nil {
		return
	}
	h.Observer.PodDeleted(obj)
	h.podGone(pod)
}

// podGone wakes the Job of a pod being deleted or deleted, or offers the
// pod to Orphans when no live, unfinished Job controls it.
func (h Handlers) podGone(pod *corev1.Pod) {
	if job := h.Jobs.Resolve(pod.Namespace, metav1.GetControllerOfNoCopy(pod)); job != nil && !Finished(job) {
		h.Enqueue(job, h.batch())
		return
	}
	h.Orphans.Offer(pod)
}

// jobsSelecting returns the controller's Jobs in the pod's namespace whose
// selector matches the pod, the candidates to adopt it.
func (h Handlers) jobsSelecting(pod *corev1.Pod) []*batchv1.Job {
	if len(pod.Labels) == 0 {
		return nil
	}
	jobs, err := h.Jobs.List(pod.Namespace)
	if err != nil {
		return nil
	}
	var out []*batchv1.Job
	for _, job := range jobs {
		if !h.Jobs.Runs(job) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, job)
	}
	return out
}
