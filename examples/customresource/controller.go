package customresource

import (
	"context"
	"errors"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/jobview"
	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// Controller syncs TrainingRuns with jobsync. Its cache holds each
// TrainingRun seen as a batch/v1 Job (jobview.FromUnstructured), so the
// controller module's Job-typed parts serve it unchanged.
type Controller struct {
	opts    jobsync.Options
	pods    informers.SharedInformerFactory
	runs    dynamicinformer.DynamicSharedInformerFactory
	jobs    kit.JobCache
	store   *memory.Store
	stale   kit.StaleGuard
	exec    *executor.Executor
	events  events.EventBroadcaster
	orphans *kit.Orphans
	queue   workqueue.TypedRateLimitingInterface[string]
}

// New returns a controller of the TrainingRuns kube and dyn reach; opts
// are jobsync's, whose Owner and TrackingFinalizer it sets.
func New(kube kubernetes.Interface, dyn dynamic.Interface, opts jobsync.Options) (*Controller, error) {
	opts.Owner, opts.TrackingFinalizer = Kind, Finalizer
	c := &Controller{opts: opts, store: memory.NewStore(),
		pods:   informers.NewSharedInformerFactory(kube, 0),
		runs:   dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0),
		events: events.NewBroadcaster(&events.EventSinkImpl{Interface: kube.EventsV1()}),
		queue: workqueue.NewTypedRateLimitingQueue(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](kit.RetryBase, kit.RetryMax)),
	}
	runs, pods := c.runs.ForResource(Resource).Informer(), c.pods.Core().V1().Pods().Informer()
	if err := errors.Join(runs.SetTransform(asJob), pods.AddIndexers(cache.Indexers{kit.PodIndex: kit.IndexPod})); err != nil {
		return nil, err
	}
	c.jobs = kit.ListerJobs(batchlisters.NewJobLister(runs.GetIndexer()), func(*batchv1.Job) bool { return true })
	c.jobs.Owner = Kind
	c.orphans = kit.NewOrphans(kube, Finalizer, c.jobs, kit.ListerPods(c.pods.Core().V1().Pods().Lister()))
	c.exec = &executor.Executor{Client: kube, TrackingFinalizer: Finalizer, Owner: Kind,
		Events: c.events.NewRecorder(scheme.Scheme, "trainingrun-controller"),
		Status: executor.DynamicStatusWriter(dyn, Resource)}
	h := kit.Handlers{Jobs: c.jobs, Orphans: c.orphans,
		Observer: memory.Observer{Store: c.store, Finalizer: Finalizer, Jobs: c.jobs.Get, Owner: Kind},
		Enqueue:  func(job *batchv1.Job, delay time.Duration) { c.queue.AddAfter(job.Namespace+"/"+job.Name, delay) }}
	_, errRuns := runs.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: h.AddJob, UpdateFunc: h.UpdateJob, DeleteFunc: h.DeleteJob})
	_, errPods := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: h.AddPod, UpdateFunc: h.UpdatePod, DeleteFunc: h.DeletePod})
	return c, errors.Join(errRuns, errPods)
}

// asJob is the TrainingRun informer's transform: its cache keeps each
// TrainingRun seen as a Job and defaulted, once per change, so that the
// kit's parts that read the selector (the release of a deleted
// TrainingRun's pods) find the one generated from its UID. A spec that is
// no JobSpec at all is kept as its metadata alone, which Prepare refuses,
// rather than stopping the informer.
func asJob(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	job, err := jobview.FromUnstructured(u)
	if err != nil {
		klog.Background().Error(err, "TrainingRun's spec is no JobSpec", "trainingRun", klog.KObj(u))
		job = &batchv1.Job{}
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"metadata": u.Object["metadata"]}, job)
	}
	return jobspec.Default(job), nil
}

// Run syncs TrainingRuns with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	defer func() { c.queue.ShutDown(); wg.Wait(); c.events.Shutdown(); c.pods.Shutdown(); c.runs.Shutdown() }()
	c.events.StartRecordingToSink(ctx.Done())
	c.pods.Start(ctx.Done())
	c.runs.Start(ctx.Done())
	c.pods.WaitForCacheSync(ctx.Done())
	c.runs.WaitForCacheSync(ctx.Done())
	wg.Go(func() { c.orphans.Run(ctx, workers) })
	for range workers {
		wg.Go(func() {
			for c.next(ctx) {
			}
		})
	}
	<-ctx.Done()
}

// next syncs one TrainingRun of the queue; it is false once the queue is
// shut down.
func (c *Controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		c.queue.AddRateLimited(key)
	} else {
		c.queue.Forget(key)
	}
	return true
}

// sync is one sync of a TrainingRun: the memory first, then its pods,
// jobsync's decision, and the plan carried out.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	run := c.jobs.Get(ns, name)
	if run == nil { // deleted
		c.store.Forget(ns, name)
		c.stale.Forget(ns, name)
		return nil
	}
	if err := c.stale.Check(run); err != nil {
		return err
	}
	// No API server defaults or validates an embedded JobSpec: it is done
	// here, on every sync, the selector generated from the TrainingRun's
	// UID. An invalid spec gets a Warning event and waits for a change.
	job, errs := jobspec.Prepare(run)
	if len(errs) > 0 {
		return kit.HandleInputError(ctx, c.exec, job, &jobsync.InputError{Field: "spec", Msg: errs.ToAggregate().Error()})
	}
	snap, err := c.store.Snapshot(job, time.Now(), kit.IndexerPods(c.pods.Core().V1().Pods().Informer().GetIndexer()))
	if err != nil {
		return err
	}
	plan, err := jobsync.Reconcile(snap, c.opts)
	if err != nil {
		return kit.HandleInputError(ctx, c.exec, job, err)
	}
	res, err := c.exec.Execute(ctx, c.store.Begin(snap, c.opts, plan))
	c.stale.Wrote(res.Job)
	if err == nil && res.RequeueAfter > 0 {
		c.queue.AddAfter(key, res.RequeueAfter)
	}
	return err
}
