package executor

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/jobsync/jobsync/jobspec"
)

// StatusConflictRetries bounds how many times one status write is sent
// again after a conflict that another writer's metadata change caused.
const StatusConflictRetries = 3

// writeStatus writes status through the status subresource on base, the
// Job the plan was decided on (or the Job the interim write returned).
//
// The API server refuses the write as a conflict whenever the Job changed
// since base was read, even if only its labels or annotations did (another
// controller, a user's kubectl label). Such a change leaves every input of
// the plan as it was, so the write is sent again on the Job read afresh,
// as it would have been sent had the other writer come a moment later.
// Any change the plan could depend on (spec, status, UID, generation,
// deletion) means the plan may be outdated: the conflict is returned and
// the next sync decides again, as upstream's controller does with every
// conflict. Without this, a Job whose labels another actor keeps writing
// can have its status writes conflict sync after sync, each retry a
// rate-limited second or more later (a Suspended condition never written
// before the Job was resumed, in the fault runs of controller/integration).
func (r *run) writeStatus(ctx context.Context, base *batchv1.Job, status *batchv1.JobStatus) (*batchv1.Job, error) {
	w := r.x.statusWriter()
	target := base
	for attempt := 0; ; attempt++ {
		written, err := w.UpdateStatus(ctx, target, status)
		if err == nil || !apierrors.IsConflict(err) || attempt == StatusConflictRetries {
			return written, err
		}
		fresh, getErr := w.Get(ctx, base.Namespace, base.Name)
		if getErr != nil || !sameInputs(base, fresh) {
			return nil, err
		}
		r.logger.V(2).Info("Status write conflicted with a change of the Job's metadata only, writing again", "attempt", attempt+1,
			"resourceVersion", fresh.ResourceVersion)
		target = fresh
	}
}

// sameInputs reports whether fresh holds everything of base that a plan
// is decided on: the same Job (UID), the same spec and generation, the
// same status, and the same deletion state. Labels, annotations, owner
// references, finalizers and managed fields may differ: Reconcile reads
// none of them. Both are defaulted first (see jobspec.Default): the view
// of a custom resource is read as its author wrote it, while the Job the
// plan was decided on was defaulted before the sync; a Job read from the
// API server is defaulted already and unchanged by it.
func sameInputs(base, fresh *batchv1.Job) bool {
	base, fresh = jobspec.Default(base), jobspec.Default(fresh)
	return fresh.UID == base.UID &&
		fresh.Generation == base.Generation &&
		apiequality.Semantic.DeepEqual(fresh.DeletionTimestamp, base.DeletionTimestamp) &&
		apiequality.Semantic.DeepEqual(fresh.Spec, base.Spec) &&
		apiequality.Semantic.DeepEqual(fresh.Status, base.Status)
}
