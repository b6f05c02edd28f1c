package jobcontroller

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/memory"
)

const (
	// podBatchPeriod gathers the pod events of a Job into one sync, as
	// upstream's controller does.
	podBatchPeriod = time.Second
	// retryBase and retryMax bound the rate-limited retry of a failed sync
	// (upstream's DefaultJobApiBackOff and MaxJobApiBackOff).
	retryBase = time.Second
	retryMax  = time.Minute
)

// Controller is an external Job controller: it runs the Jobs whose
// spec.managedBy is its name, deciding each sync with jobsync.Reconcile and
// carrying the plan out with an executor.Executor.
type Controller struct {
	opts   Options
	client kubernetes.Interface

	factory     informers.SharedInformerFactory
	jobs        batchlisters.JobLister
	pods        corelisters.PodLister
	podIndex    cache.Indexer
	jobsSynced  cache.InformerSynced
	podsSynced  cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	orphans     workqueue.TypedRateLimitingInterface[string]
	store       *memory.Store
	written     writtenJobs
	observer    memory.Observer
	exec        *executor.Executor
	broadcaster record.EventBroadcaster // nil when Options.Recorder is given
	finalizer   string
	running     atomic.Bool // health hook: Run has started (health.go)
}

// New builds a controller with its own shared informers (Jobs and Pods, all
// namespaces) on client. Nothing runs until Run.
func New(client kubernetes.Interface, opts Options) (*Controller, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.ActAsBuiltIn {
		klog.Background().Info(builtInWarning)
	}
	c := &Controller{
		opts:      opts,
		client:    client,
		factory:   informers.NewSharedInformerFactory(client, 0),
		store:     memory.NewStore(),
		finalizer: opts.Sync.TrackingFinalizer,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](retryBase, retryMax),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "jobsync"}),
		orphans: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](retryBase, retryMax),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "jobsync_orphan_pod"}),
	}
	recorder := opts.Recorder
	if recorder == nil {
		c.broadcaster = record.NewBroadcaster()
		recorder = c.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: opts.ControllerName})
	}
	c.exec = &executor.Executor{Client: client, Recorder: recorder, TrackingFinalizer: c.finalizer}

	jobInformer := c.factory.Batch().V1().Jobs()
	podInformer := c.factory.Core().V1().Pods()
	c.jobs, c.pods = jobInformer.Lister(), podInformer.Lister()
	c.jobsSynced, c.podsSynced = jobInformer.Informer().HasSynced, podInformer.Informer().HasSynced
	if err := podInformer.Informer().AddIndexers(cache.Indexers{ownerIndex: indexByOwner}); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the pod owner index: %w", err)
	}
	c.podIndex = podInformer.Informer().GetIndexer()
	c.observer = memory.Observer{Store: c.store, Finalizer: c.finalizer, Jobs: c.cachedJob}

	// Metrics hook: the metrics' own handlers (metrics.go).
	if err := c.addMetricHandlers(jobInformer.Informer(), podInformer.Informer()); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the metrics' event handlers: %w", err)
	}
	if _, err := jobInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addJob,
		UpdateFunc: c.updateJob,
		DeleteFunc: c.deleteJob,
	}); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the Job event handler: %w", err)
	}
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addPod,
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	}); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the Pod event handler: %w", err)
	}
	return c, nil
}

// TrackingFinalizer returns the finalizer this controller puts on its pods.
func (c *Controller) TrackingFinalizer() string { return c.finalizer }

// Run starts the informers, waits for their caches, runs the workers and
// blocks until ctx is done. Then it shuts down gracefully: no new sync
// starts, the syncs under way finish their plans (with a context that is no
// longer cancelled), the event broadcaster flushes, and the informers
// stop. Run returns ctx's error if ctx ended before the caches synced, and
// nil otherwise. A Controller runs once.
func (c *Controller) Run(ctx context.Context) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx).WithValues("controller", c.opts.ControllerName)
	ctx = klog.NewContext(ctx, logger)

	if c.broadcaster != nil {
		c.broadcaster.StartStructuredLogging(3)
		c.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
		defer c.broadcaster.Shutdown()
	}
	logger.Info("Starting jobsync controller", "workers", c.opts.Workers, "finalizer", c.finalizer)
	c.running.Store(true) // health hook (health.go)
	c.factory.Start(ctx.Done())
	defer c.factory.Shutdown()

	var wg sync.WaitGroup
	defer func() {
		logger.Info("Shutting down jobsync controller")
		c.queue.ShutDown()
		c.orphans.ShutDown()
		wg.Wait()
		logger.Info("jobsync controller stopped")
	}()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.jobsSynced, c.podsSynced) {
		return ctx.Err()
	}
	// Syncs run on a context that shutdown does not cancel, so that a plan
	// under way is carried out to its end rather than cut in the middle.
	work := context.WithoutCancel(ctx)
	for range c.opts.Workers {
		wg.Go(func() { wait.UntilWithContext(ctx, func(context.Context) { c.worker(work) }, time.Second) })
	}
	// As many workers take finalizers off orphan pods, as upstream runs.
	for range c.opts.Workers {
		wg.Go(func() { wait.UntilWithContext(ctx, func(context.Context) { c.orphanWorker(work) }, time.Second) })
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing Job failed, retrying", "job", key)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *Controller) orphanWorker(ctx context.Context) {
	for {
		key, quit := c.orphans.Get()
		if quit {
			return
		}
		if err := c.releaseOrphan(ctx, key); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Removing the tracking finalizer of an orphan pod failed, retrying", "pod", key)
			c.orphans.AddRateLimited(key)
		} else {
			c.orphans.Forget(key)
		}
		c.orphans.Done(key)
	}
}

// cachedJob returns the Job namespace/name from the informer cache, or nil.
func (c *Controller) cachedJob(namespace, name string) *batchv1.Job {
	job, err := c.jobs.Jobs(namespace).Get(name)
	if err != nil {
		return nil
	}
	return job
}

// ours reports whether this controller runs job.
func (c *Controller) ours(job *batchv1.Job) bool {
	return c.opts.runs(job)
}
