package jobcontroller

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

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
		c.podWrites.forget(ns, name)
		return nil
	}
	if err != nil {
		return err
	}
	if !c.ours(job) {
		// Enqueued for a Job of this name that was ours, replaced since.
		c.store.Forget(ns, name)
		c.written.Forget(ns, name)
		c.podWrites.forget(ns, name)
		return nil
	}
	if err := c.written.Check(job); err != nil {
		recordStale() // metrics hook
		return err    // retried with the rate limit, as upstream retries
	}
	if err := c.podWrites.check(ns, name, job.UID); err != nil {
		recordStalePods() // metrics hook
		return err        // as above
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
	snap, plan, rerr, err := c.reconcile(job)
	if err != nil {
		return err
	}
	pods := snap.Pods
	if plan == nil {
		return kit.HandleInputError(ctx, c.exec, job, rerr)
	}
	if plan.Skipped != "" {
		logger.V(4).Info("Sync skipped", "why", plan.Skipped)
	}
	for _, n := range plan.Notes {
		logger.V(4).Info("Sync note", "note", n)
	}
	res, err := c.exec.Execute(ctx, c.store.Begin(snap, c.opts.Sync, *plan))
	c.recordSync(job, *plan, res, err, start) // metrics hook
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

// reconcile reads the Job's memory, then its pods, and decides. rerr is
// Reconcile's refusal of the snapshot (plan nil), err a failure to read.
//
// The held pods stay locked from before the memory is read to the end of
// Reconcile, which reads the sets: the handlers wait meanwhile. A handler
// puts a pod before it lowers the memory for it, so the memory never shows
// an event the held pods do not; it may still wait for one they show,
// which holds the sync back (the safe side).
func (c *Controller) reconcile(job *batchv1.Job) (snap jobsync.Snapshot, plan *jobsync.Plan, rerr, err error) {
	now := c.opts.Clock.Now()
	if c.held == nil {
		snap, err = c.store.Snapshot(job, now, kit.IndexerPods(c.podIndex))
		if err != nil {
			return snap, nil, nil, err
		}
	} else {
		c.held.mu.Lock()
		defer c.held.mu.Unlock()
		var held heldSnapshot
		snap, err = c.store.Snapshot(job, now, func(job *batchv1.Job) ([]*corev1.Pod, error) {
			var err error
			held, err = c.held.snapshot(job)
			return held.pods, err
		})
		if err != nil {
			return snap, nil, nil, err
		}
		snap.Active, snap.Succeeded, snap.SettledPods = held.active, held.done, held.settled
	}
	p, rerr := jobsync.Reconcile(snap, c.opts.Sync)
	if rerr != nil {
		return snap, nil, rerr, nil
	}
	if c.held != nil && (len(p.Creations) > 0 || len(p.Deletions) > 0) {
		// A failed pod call makes the executor decide the rest from this
		// snapshot (jobsync.Resume), after the lock is let go and the
		// sets have moved on: it gets the pods the sets hold now, listed.
		snap = c.held.listed(snap)
	}
	return snap, &p, nil, nil
}
