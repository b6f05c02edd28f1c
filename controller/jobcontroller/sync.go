package jobcontroller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/jobsync"
)

// sync is one sync of the Job key: read the Job and its pods from the
// caches, Reconcile, store the plan's memory and carry the plan out.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key this controller made
	}
	logger := klog.FromContext(ctx).WithValues("job", klog.KRef(ns, name))
	ctx = klog.NewContext(ctx, logger)
	start := c.opts.Clock.Now()

	job, err := c.jobs.Jobs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		logger.V(4).Info("Job is gone, forgetting its memory")
		c.store.Forget(ns, name)
		c.written.forget(ns, name)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.ours(job) {
		// Enqueued for a Job of this name that was ours, replaced since.
		c.store.Forget(ns, name)
		c.written.forget(ns, name)
		return nil
	}
	if err := c.written.stale(job); err != nil {
		recordStale() // metrics hook
		return err    // retried with the rate limit, as upstream retries
	}
	// The memory is read before the pods, as upstream reads its
	// expectations before listing: an informer event between the two reads
	// then shows in the pod list (the cache is updated before the handlers
	// lower the memory) while the memory still waits for it, so the sync
	// holds back. The other way round, a pod just created would be missing
	// from the list while its creation counted as observed, and the sync
	// would create one too many; a finalizer removal just observed would be
	// sent again.
	//
	// A Job read from the API server is already defaulted (jobsync.Default
	// would change nothing), so it is handed over as the cache holds it;
	// Reconcile neither keeps nor modifies it.
	snap := c.store.Snapshot(job, nil, c.opts.Clock.Now())
	pods, err := c.podsOf(job)
	if err != nil {
		return err
	}
	snap.Pods = pods
	plan, err := jobsync.Reconcile(snap, c.opts.Sync)
	if err != nil {
		var inErr *jobsync.InputError
		if errors.As(err, &inErr) {
			// Retrying the same Job gives the same answer; a change of
			// the Job wakes it again.
			logger.Error(err, "Job cannot be synced")
			c.exec.Recorder.Event(job, corev1.EventTypeWarning, "InvalidJob", err.Error())
			return nil
		}
		return err
	}
	if plan.Skipped != "" {
		logger.V(4).Info("Sync skipped", "why", plan.Skipped)
	}
	for _, n := range plan.Notes {
		logger.V(4).Info("Sync note", "note", n)
	}
	res, err := c.exec.Execute(ctx, c.store.Begin(snap, plan))
	c.recordSync(job, plan, res, err, start) // metrics hook
	if res.Job != nil {
		c.written.wrote(res.Job)
	}
	logger.V(2).Info("Synced Job", "pods", len(pods),
		"created", res.Created, "deleted", res.Deleted, "adopted", res.Adopted, "released", res.Released,
		"finalizersRemoved", res.FinalizersRemoved, "interimStatus", res.InterimStatusWritten, "status", res.StatusWritten,
		"requeueAfter", res.RequeueAfter, "elapsed", c.opts.Clock.Since(start))
	if err != nil {
		return err
	}
	if res.RequeueAfter > 0 {
		c.queue.AddAfter(key, res.RequeueAfter)
	}
	return nil
}

// podsOf returns the pods job controls and the orphans its selector
// matches, straight from the cache (Reconcile modifies none).
func (c *Controller) podsOf(job *batchv1.Job) ([]*corev1.Pod, error) {
	owned, err := c.podIndex.ByIndex(ownerIndex, string(job.UID))
	if err != nil {
		return nil, err
	}
	orphans, err := c.podIndex.ByIndex(ownerIndex, orphanIndexKey(job.Namespace))
	if err != nil {
		return nil, err
	}
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("the Job's selector: %w", err)
	}
	pods := make([]*corev1.Pod, 0, len(owned))
	for _, o := range owned {
		if p, ok := o.(*corev1.Pod); ok && p.Namespace == job.Namespace {
			pods = append(pods, p)
		}
	}
	if !sel.Empty() {
		for _, o := range orphans {
			if p, ok := o.(*corev1.Pod); ok && sel.Matches(labels.Set(p.Labels)) {
				pods = append(pods, p)
			}
		}
	}
	return pods, nil
}

// releaseOrphan takes this controller's finalizer off the pod key if no
// live, unfinished Job of this controller controls it any more (its Job
// was deleted, has finished, or released it), as upstream's orphan pod
// cleanup does for its own finalizer. A pod controlled by something else
// than a Job is left alone.
func (c *Controller) releaseOrphan(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := c.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(pod.Finalizers, c.finalizer) {
		return nil
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if ref.Kind != "Job" || ref.APIVersion != batchv1.SchemeGroupVersion.String() {
			return nil
		}
		if job := c.resolve(ns, ref); job != nil && !isFinished(job) {
			return nil // its Job's syncs take care of it
		}
	}
	body, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"$deleteFromPrimitiveList/finalizers": []string{c.finalizer}},
	})
	_, err = c.client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	klog.FromContext(ctx).V(2).Info("Removed the tracking finalizer of an orphan pod", "pod", klog.KObj(pod))
	return nil
}
