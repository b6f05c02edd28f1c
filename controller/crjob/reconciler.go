package crjob

import (
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/kit"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// Reconciler syncs one Job per Reconcile: read the Job and its pods from
// the manager's cache (the memory first), decide with jobsync.Reconcile,
// store the plan's memory and carry the plan out. SetupWithManager builds
// it; its pod and Job event handlers lower the memory it reads.
type Reconciler struct {
	opts  Options
	cache client.Reader
	store *memory.Store
	exec  *executor.Executor
	stale *kit.StaleGuard
	pods  memory.PodLister
}

// Reconcile is one sync of the Job req names.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	job := &batchv1.Job{}
	if err := r.cache.Get(ctx, req.NamespacedName, job); err != nil || !r.opts.runs(job) {
		if err != nil && !apierrors.IsNotFound(err) {
			return reconcile.Result{}, err
		}
		// Gone, or replaced by a Job of that name that is not ours.
		r.store.Forget(req.Namespace, req.Name)
		r.stale.Forget(req.Namespace, req.Name)
		return reconcile.Result{}, nil
	}
	if err := r.stale.Check(job); err != nil {
		return reconcile.Result{}, err
	}
	// The memory is read before the pods are listed (Snapshot calls the
	// lister): the order that counts no pod twice.
	snap, err := r.store.Snapshot(job, time.Now(), r.pods)
	if err != nil {
		return reconcile.Result{}, err
	}
	plan, err := jobsync.Reconcile(snap, r.opts.Sync)
	if err != nil {
		return reconcile.Result{}, kit.HandleInputError(ctx, r.exec, job, err)
	}
	res, err := r.exec.Execute(ctx, r.store.Begin(snap, r.opts.Sync, plan))
	r.stale.Wrote(res.Job)
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: res.RequeueAfter}, nil
}
