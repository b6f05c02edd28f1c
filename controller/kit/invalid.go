package kit

import (
	"context"
	"errors"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/jobsync"
)

// InvalidJobReason is the reason of the Warning event HandleInputError
// records.
const InvalidJobReason = "InvalidJob"

// HandleInputError handles an error of jobsync.Reconcile on job. A
// *jobsync.InputError is logged and recorded on the Job (or the resource
// of x.Owner it stands for) as a Warning event through x's recorders, and nil is returned: syncing the same Job again
// gives the same answer, and a change of the Job wakes it anyway. Any
// other error is returned as is, to be retried.
func HandleInputError(ctx context.Context, x *executor.Executor, job *batchv1.Job, err error) error {
	var inErr *jobsync.InputError
	if !errors.As(err, &inErr) {
		return err
	}
	klog.FromContext(ctx).Error(err, "Job cannot be synced", "job", klog.KObj(job))
	target := x.EventTarget(job)
	if x.Events != nil {
		x.Events.Eventf(target, nil, corev1.EventTypeWarning, InvalidJobReason, "Sync", "%s", err.Error())
	}
	if x.Recorder != nil {
		x.Recorder.Event(target, corev1.EventTypeWarning, InvalidJobReason, err.Error())
	}
	return nil
}
