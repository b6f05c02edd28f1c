package crjob

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
)

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// SetupWithManager registers with mgr a controller for the Jobs whose
// spec.managedBy is opts.ControllerName: a field index kit.PodIndex on
// the pods of the manager's cache, the Reconciler with the Job and pod
// event handlers of kit.Handlers, and the workers that release orphan
// pods' finalizers (run, like the reconciler, by the leader only). It
// returns the Reconciler for tests and metrics; Reconcile is called by
// the manager.
func SetupWithManager(mgr ctrl.Manager, opts Options) (*Reconciler, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	clientset, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	if err != nil {
		return nil, fmt.Errorf("crjob: %w", err)
	}
	if opts.Events == nil {
		opts.Events = mgr.GetEventRecorder(opts.ControllerName)
	}
	err = mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, kit.PodIndex, func(o client.Object) []string {
		return kit.PodIndexValues(o.(*corev1.Pod))
	})
	if err != nil {
		return nil, fmt.Errorf("crjob: adding the pod index: %w", err)
	}
	c := mgr.GetCache()
	jobs, pods := jobCache(c, opts.runs), podCache(c)
	r := &Reconciler{
		opts:  opts,
		cache: c,
		store: memory.NewStore(),
		exec:  &executor.Executor{Client: clientset, Events: opts.Events, TrackingFinalizer: opts.Sync.TrackingFinalizer},
		stale: &kit.StaleGuard{},
		pods:  func(job *batchv1.Job) ([]*corev1.Pod, error) { return kit.ListPods(job, podLookup(c)) },
	}
	orphans := kit.NewOrphans(clientset, opts.Sync.TrackingFinalizer, jobs, pods)
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		orphans.Run(ctx, opts.Workers)
		return nil
	})); err != nil {
		return nil, fmt.Errorf("crjob: adding the orphan workers: %w", err)
	}
	h := kit.Handlers{
		Observer: memory.Observer{Store: r.store, Finalizer: opts.Sync.TrackingFinalizer, Jobs: jobs.Get},
		Jobs:     jobs,
		Orphans:  orphans,
	}
	// Each event gets the handlers with an Enqueue on the controller's
	// queue, which controller-runtime hands to the event handler only.
	with := func(q queue) kit.Handlers {
		h := h
		h.Enqueue = func(job *batchv1.Job, delay time.Duration) {
			q.AddAfter(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: job.Namespace, Name: job.Name}}, delay)
		}
		return h
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("jobsync-"+strings.NewReplacer("/", "-", ".", "-").Replace(opts.ControllerName)).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: opts.Workers,
			RateLimiter:             workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](kit.RetryBase, kit.RetryMax),
		}).
		Watches(&batchv1.Job{}, handler.Funcs{
			CreateFunc: func(_ context.Context, e event.CreateEvent, q queue) { with(q).AddJob(e.Object) },
			UpdateFunc: func(_ context.Context, e event.UpdateEvent, q queue) { with(q).UpdateJob(e.ObjectOld, e.ObjectNew) },
			DeleteFunc: func(_ context.Context, e event.DeleteEvent, q queue) { with(q).DeleteJob(e.Object) },
		}).
		Watches(&corev1.Pod{}, handler.Funcs{
			CreateFunc: func(_ context.Context, e event.CreateEvent, q queue) { with(q).AddPod(e.Object) },
			UpdateFunc: func(_ context.Context, e event.UpdateEvent, q queue) { with(q).UpdatePod(e.ObjectOld, e.ObjectNew) },
			DeleteFunc: func(_ context.Context, e event.DeleteEvent, q queue) { with(q).DeletePod(e.Object) },
		}).
		Complete(r)
	if err != nil {
		return nil, fmt.Errorf("crjob: %w", err)
	}
	return r, nil
}

// jobCache reads the Jobs of the manager's cache. Reads of an informer
// cache do not block, so they need no caller's context.
func jobCache(c client.Reader, runs func(*batchv1.Job) bool) kit.JobCache {
	return kit.JobCache{
		Get: func(namespace, name string) *batchv1.Job {
			job := &batchv1.Job{}
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, job); err != nil {
				return nil
			}
			return job
		},
		List: func(namespace string) ([]*batchv1.Job, error) {
			var list batchv1.JobList
			if err := c.List(context.Background(), &list, client.InNamespace(namespace)); err != nil {
				return nil, err
			}
			out := make([]*batchv1.Job, len(list.Items))
			for i := range list.Items {
				out[i] = &list.Items[i]
			}
			return out, nil
		},
		Runs: runs,
	}
}

// podCache reads the pods of the manager's cache.
func podCache(c client.Reader) kit.PodCache {
	return kit.PodCache{
		Get: func(namespace, name string) (*corev1.Pod, error) {
			pod := &corev1.Pod{}
			if err := c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, pod); err != nil {
				return nil, err
			}
			return pod, nil
		},
		Select: func(namespace string, sel labels.Selector) ([]*corev1.Pod, error) {
			return listPods(c, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: sel})
		},
	}
}

// podLookup finds pods through the kit.PodIndex field index.
func podLookup(c client.Reader) kit.PodLookup {
	return func(namespace, value string) ([]*corev1.Pod, error) {
		return listPods(c, client.InNamespace(namespace), client.MatchingFields{kit.PodIndex: value})
	}
}

func listPods(c client.Reader, opts ...client.ListOption) ([]*corev1.Pod, error) {
	var list corev1.PodList
	if err := c.List(context.Background(), &list, opts...); err != nil {
		return nil, err
	}
	out := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
