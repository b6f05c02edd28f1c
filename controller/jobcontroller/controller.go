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
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
)

const (
	// podBatchPeriod gathers the pod events of a Job into one sync, as
	// upstream's controller does.
	podBatchPeriod = time.Second
	// retryBase and retryMax bound the rate-limited retry of a failed sync
	// (upstream's DefaultJobApiBackOff and MaxJobApiBackOff).
	retryBase = kit.RetryBase
	retryMax  = kit.RetryMax
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
	held        *heldPods // nil with Options.ScanPods
	jobsSynced  cache.InformerSynced
	podsSynced  cache.InformerSynced
	queue       workqueue.TypedRateLimitingInterface[string]
	orphans     *kit.Orphans
	store       *memory.Store
	written     kit.StaleGuard
	podWrites   podWrites
	observer    memory.Observer
	handlers    kit.Handlers
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
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "job"}), // upstream's queue name, for its workqueue metrics
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
	if err := podInformer.Informer().AddIndexers(cache.Indexers{kit.PodIndex: kit.IndexPod}); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the pod owner index: %w", err)
	}
	c.podIndex = podInformer.Informer().GetIndexer()
	c.podWrites.read = podInformer.Informer().GetStore().LastStoreSyncResourceVersion
	c.exec.OnPodWrite = c.podWrites.wrote
	jobs := kit.ListerJobs(c.jobs, c.ours)
	c.observer = memory.Observer{Store: c.store, Finalizer: c.finalizer, Jobs: jobs.Get}
	c.orphans = kit.NewOrphans(client, c.finalizer, jobs, kit.ListerPods(c.pods))
	c.handlers = kit.Handlers{Observer: c.observer, Jobs: jobs, Orphans: c.orphans, Enqueue: c.enqueue, BatchPeriod: podBatchPeriod}

	// Metrics hook: the metrics' own handlers (metrics.go).
	if err := c.addMetricHandlers(jobInformer.Informer(), podInformer.Informer()); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the metrics' event handlers: %w", err)
	}
	if _, err := jobInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.handlers.AddJob,
		UpdateFunc: c.handlers.UpdateJob,
		DeleteFunc: c.handlers.DeleteJob,
	}); err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the Job event handler: %w", err)
	}
	reg, err := podInformer.Informer().AddEventHandler(c.podHandlers())
	if err != nil {
		return nil, fmt.Errorf("jobcontroller: adding the Pod event handler: %w", err)
	}
	if c.held != nil {
		// The held pods are synced once this handler has had the first list.
		c.podsSynced = reg.HasSynced
	}
	return c, nil
}

// TrackingFinalizer returns the finalizer this controller puts on its pods.
func (c *Controller) TrackingFinalizer() string { return c.finalizer }

// Run starts the informers, waits for their caches, runs the workers and
// blocks until ctx is done. Then it stops at once: no worker takes another
// key, the syncs under way are abandoned (their API calls run on ctx, so
// none is sent after ctx ends, and a call in flight is cut), no event is
// written any more, and the informers stop. An abandoned plan needs nothing
// more: its memory was stored before its first call, and whoever syncs the
// Job next (a new leader, or this process started again) decides from what
// the API server holds. Run returns once its workers have returned: ctx's
// error if ctx ended before the caches synced, and nil otherwise. A
// Controller runs once.
func (c *Controller) Run(ctx context.Context) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx).WithValues("controller", c.opts.ControllerName)
	ctx = klog.NewContext(ctx, logger)

	if c.broadcaster != nil {
		c.broadcaster.StartStructuredLogging(3)
		c.broadcaster.StartRecordingToSink(gatedSink{ctx: ctx, events: c.client.CoreV1().Events("")})
		defer c.broadcaster.Shutdown()
	}
	logger.Info("Starting jobsync controller", "workers", c.opts.Workers, "finalizer", c.finalizer)
	c.running.Store(true) // health hook (health.go)
	c.factory.Start(ctx.Done())
	defer c.factory.Shutdown()

	var wg sync.WaitGroup
	defer func() {
		logger.Info("Shutting down jobsync controller")
		// Wakes the workers waiting for a key; those that get one see that
		// ctx has ended and leave it.
		c.queue.ShutDown()
		c.orphans.ShutDown()
		wg.Wait()
		logger.Info("jobsync controller stopped")
	}()
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.jobsSynced, c.podsSynced) {
		return ctx.Err()
	}
	for range c.opts.Workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.worker, time.Second) })
	}
	// As many workers take finalizers off orphan pods, as upstream runs.
	for range c.opts.Workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.orphanWorker, time.Second) })
	}
	<-ctx.Done()
	return nil
}

func (c *Controller) worker(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

// processNext syncs the next key, unless ctx has ended: a key taken after
// that is left as it is (the queue is shutting down with this controller).
func (c *Controller) processNext(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if ctx.Err() != nil {
		return false
	}
	if err := c.sync(ctx, key); err != nil {
		if ctx.Err() != nil {
			klog.FromContext(ctx).V(2).Info("Sync abandoned: the controller is stopping", "job", key, "err", err)
			return false
		}
		utilruntime.HandleErrorWithContext(ctx, err, "Syncing Job failed, retrying", "job", key)
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *Controller) orphanWorker(ctx context.Context) {
	for c.orphans.ProcessNext(ctx) {
	}
}

// ours reports whether this controller runs job.
func (c *Controller) ours(job *batchv1.Job) bool {
	return c.opts.runs(job)
}
