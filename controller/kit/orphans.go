package kit

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// RetryBase and RetryMax bound the rate-limited retry of a failed sync or
// a failed orphan release (upstream's DefaultJobApiBackOff and
// MaxJobApiBackOff).
const (
	RetryBase = time.Second
	RetryMax  = time.Minute
)

// Orphans takes the tracking finalizer off the pods that no live,
// unfinished Job of the controller controls any more (their Job was
// deleted, has finished, or released them), as upstream's orphan pod
// cleanup does for its own finalizer. Without it the pods of a deleted Job
// stay terminating forever. Pods are offered by the informer handlers
// (Handlers does it); each is released by a worker, failures retried with
// the rate limit.
//
// Build it with NewOrphans; its queue is the embedded
// TypedRateLimitingInterface, keyed by namespace/name.
type Orphans struct {
	workqueue.TypedRateLimitingInterface[string]
	client    kubernetes.Interface
	finalizer string
	jobs      JobCache
	pods      PodCache
}

// NewOrphans returns an Orphans releasing finalizer through client, with
// an empty queue.
func NewOrphans(client kubernetes.Interface, finalizer string, jobs JobCache, pods PodCache) *Orphans {
	return &Orphans{
		TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](RetryBase, RetryMax),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "jobsync_orphan_pod"}),
		client:    client,
		finalizer: finalizer,
		jobs:      jobs,
		pods:      pods,
	}
}

// Offer queues pod if it carries the finalizer and no live, unfinished Job
// of the controller controls it: no sync would ever take the finalizer
// off.
func (o *Orphans) Offer(pod *corev1.Pod) {
	if !slices.Contains(pod.Finalizers, o.finalizer) {
		return
	}
	if job := o.jobs.Resolve(pod.Namespace, metav1.GetControllerOfNoCopy(pod)); job != nil && !Finished(job) {
		return
	}
	if key, err := cache.MetaNamespaceKeyFunc(pod); err == nil {
		o.Add(key)
	}
}

// OfferSelectedBy offers every cached pod that job's selector matches: on
// the Job's deletion or end, those left with the finalizer are released.
func (o *Orphans) OfferSelectedBy(job *batchv1.Job) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return
	}
	pods, err := o.pods.Select(job.Namespace, sel)
	if err != nil {
		return
	}
	for _, p := range pods {
		o.Offer(p)
	}
}

// Release takes the finalizer off the pod key if it still needs it: it
// carries the finalizer and no live, unfinished Job of the controller
// controls it. A pod controlled by something else than the owner kind
// (JobCache.Owner: a Job unless set) is left alone.
func (o *Orphans) Release(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := o.pods.Get(ns, name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(pod.Finalizers, o.finalizer) {
		return nil
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).GroupKind() != o.jobs.owner().GroupKind() {
			return nil
		}
		if job := o.jobs.Resolve(ns, ref); job != nil && !Finished(job) {
			return nil // its Job's syncs take care of it
		}
	}
	body, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"$deleteFromPrimitiveList/finalizers": []string{o.finalizer}},
	})
	_, err = o.client.CoreV1().Pods(ns).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	klog.FromContext(ctx).V(2).Info("Removed the tracking finalizer of an orphan pod", "pod", klog.KObj(pod))
	return nil
}

// ProcessNext releases the next pod of the queue, queueing it again with
// the rate limit if that fails (1s, doubling up to a minute, as upstream
// retries its orphan pods). It returns false once the queue is shut down or
// ctx has ended: a controller that stops, or stops leading, sends no
// further call, and a key taken after that is left for whoever runs next.
func (o *Orphans) ProcessNext(ctx context.Context) bool {
	key, quit := o.Get()
	if quit {
		return false
	}
	defer o.Done(key)
	if ctx.Err() != nil {
		return false
	}
	if err := o.Release(ctx, key); err != nil {
		if ctx.Err() != nil {
			return false
		}
		utilruntime.HandleErrorWithContext(ctx, err, "Removing the tracking finalizer of an orphan pod failed, retrying", "pod", key)
		o.AddRateLimited(key)
		return true
	}
	o.Forget(key)
	return true
}

// Run runs workers that release the queued pods until ctx is done, then
// shuts the queue down and waits for them. The releases run on ctx itself:
// once it ends no further call is sent and a release in flight is cut,
// which is safe, since the next run offers the pod again.
func (o *Orphans) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for o.ProcessNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	o.ShutDown()
	wg.Wait()
}
