package jobcontroller

import (
	"reflect"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/controller/memory"
)

// The informer event handlers. Job events wake the Job at once (a spec
// change) or after podBatchPeriod (a status change); pod events wake their
// Job after podBatchPeriod, so that a burst of pod changes makes one sync.
// Pod events also lower the memory (memory.Observer), and pods carrying
// this controller's finalizer without a live Job of this controller go to
// the orphan queue, which takes the finalizer off.

const ownerIndex = "jobsync/controller-uid"

// indexByOwner indexes pods by the UID of their controller, and orphans by
// their namespace (with a prefix no UID has), to list a Job's pods and the
// orphans it may adopt without scanning every pod.
func indexByOwner(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		return []string{string(ref.UID)}, nil
	}
	return []string{orphanIndexKey(pod.Namespace)}, nil
}

func orphanIndexKey(namespace string) string { return "orphans in " + namespace }

func (c *Controller) enqueue(job *batchv1.Job, delay time.Duration) {
	key, err := cache.MetaNamespaceKeyFunc(job)
	if err != nil {
		return
	}
	c.queue.AddAfter(key, delay)
}

func (c *Controller) addJob(obj any) {
	if job, ok := obj.(*batchv1.Job); ok && c.ours(job) {
		c.enqueue(job, 0)
	}
}

func (c *Controller) updateJob(oldObj, curObj any) {
	old, cur := oldObj.(*batchv1.Job), curObj.(*batchv1.Job)
	if !c.ours(cur) {
		return
	}
	if isFinished(cur) {
		// A finished Job's pods keep no finalizer of ours; take off any
		// that a late creation left.
		c.enqueueOrphansOf(cur)
		// One more sync clears the Job's backoff and lets it be skipped.
		c.enqueue(cur, podBatchPeriod)
		return
	}
	if cur.Generation != old.Generation {
		c.enqueue(cur, 0)
	} else {
		c.enqueue(cur, podBatchPeriod)
	}
}

func (c *Controller) deleteJob(obj any) {
	job := memory.JobFrom(obj)
	if job == nil || !c.ours(job) {
		return
	}
	c.observer.JobDeleted(obj)
	c.enqueue(job, 0)
	c.enqueueOrphansOf(job)
}

func (c *Controller) addPod(obj any) {
	pod := obj.(*corev1.Pod)
	c.observer.PodAdded(pod)
	if pod.DeletionTimestamp != nil {
		c.podGone(pod)
		return
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if job := c.resolve(pod.Namespace, ref); job != nil {
			c.enqueue(job, podBatchPeriod)
		}
		c.maybeOrphan(pod)
		return
	}
	c.maybeOrphan(pod)
	for _, job := range c.jobsSelecting(pod) {
		c.enqueue(job, podBatchPeriod)
	}
}

func (c *Controller) updatePod(oldObj, curObj any) {
	old, cur := oldObj.(*corev1.Pod), curObj.(*corev1.Pod)
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	c.observer.PodUpdated(old, cur)
	if cur.DeletionTimestamp != nil {
		c.podGone(cur)
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	refChanged := !reflect.DeepEqual(curRef, oldRef)
	if refChanged && oldRef != nil {
		if job := c.resolve(old.Namespace, oldRef); job != nil {
			c.enqueue(job, podBatchPeriod)
		}
	}
	if curRef != nil {
		if job := c.resolve(cur.Namespace, curRef); job != nil {
			c.enqueue(job, podBatchPeriod)
		}
		c.maybeOrphan(cur)
		return
	}
	c.maybeOrphan(cur)
	if refChanged || !reflect.DeepEqual(cur.Labels, old.Labels) {
		for _, job := range c.jobsSelecting(cur) {
			c.enqueue(job, podBatchPeriod)
		}
	}
}

func (c *Controller) deletePod(obj any) {
	pod := memory.PodFrom(obj)
	if pod == nil {
		return
	}
	c.observer.PodDeleted(obj)
	c.podGone(pod)
}

// podGone wakes the Job of a pod being deleted or deleted.
func (c *Controller) podGone(pod *corev1.Pod) {
	if job := c.resolve(pod.Namespace, metav1.GetControllerOfNoCopy(pod)); job != nil && !isFinished(job) {
		c.enqueue(job, podBatchPeriod)
		return
	}
	c.maybeOrphan(pod)
}

// maybeOrphan sends a pod to the orphan queue if it carries this
// controller's finalizer and no live, unfinished Job of this controller
// controls it: no sync would ever take the finalizer off.
func (c *Controller) maybeOrphan(pod *corev1.Pod) {
	if !slices.Contains(pod.Finalizers, c.finalizer) {
		return
	}
	if job := c.resolve(pod.Namespace, metav1.GetControllerOfNoCopy(pod)); job != nil && !isFinished(job) {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(pod)
	if err == nil {
		c.orphans.Add(key)
	}
}

// enqueueOrphansOf sends every cached pod that job's selector matches to
// the orphan queue, which releases those that need it.
func (c *Controller) enqueueOrphansOf(job *batchv1.Job) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return
	}
	pods, err := c.pods.Pods(job.Namespace).List(sel)
	if err != nil {
		return
	}
	for _, p := range pods {
		c.maybeOrphan(p)
	}
}

// resolve returns the Job of this controller that ref names, if the cache
// holds it with the same UID.
func (c *Controller) resolve(namespace string, ref *metav1.OwnerReference) *batchv1.Job {
	if ref == nil || ref.Kind != "Job" {
		return nil
	}
	job := c.cachedJob(namespace, ref.Name)
	if job == nil || job.UID != ref.UID || !c.ours(job) {
		return nil
	}
	return job
}

// jobsSelecting returns this controller's Jobs in the pod's namespace whose
// selector matches the pod, the candidates to adopt it.
func (c *Controller) jobsSelecting(pod *corev1.Pod) []*batchv1.Job {
	if len(pod.Labels) == 0 {
		return nil
	}
	jobs, err := c.jobs.Jobs(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var out []*batchv1.Job
	for _, job := range jobs {
		if !c.ours(job) {
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

func isFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
