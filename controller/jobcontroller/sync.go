package jobcontroller

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/kit"
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
		c.written.Forget(ns, name)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.ours(job) {
		// Enqueued for a Job of this name that was ours, replaced since.
		c.store.Forget(ns, name)
		c.written.Forget(ns, name)
		return nil
	}
	if err := c.written.Check(job); err != nil {
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
	// A Job read from the API server is already defaulted (jobspec.Default
	// would change nothing), so it is handed over as the cache holds it;
	// Reconcile neither keeps nor modifies it.
	snap, err := c.store.Snapshot(job, c.opts.Clock.Now(), kit.IndexerPods(c.podIndex))
	if err != nil {
		return err
	}
	pods := snap.Pods
	plan, err := jobsync.Reconcile(snap, c.opts.Sync)
	if err != nil {
		return kit.HandleInputError(ctx, c.exec, job, err)
	}
	if plan.Skipped != "" {
		logger.V(4).Info("Sync skipped", "why", plan.Skipped)
	}
	for _, n := range plan.Notes {
		logger.V(4).Info("Sync note", "note", n)
	}
	res, err := c.exec.Execute(ctx, c.store.Begin(snap, c.opts.Sync, plan))
	c.recordSync(job, plan, res, err, start) // metrics hook
	c.written.Wrote(res.Job)
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
