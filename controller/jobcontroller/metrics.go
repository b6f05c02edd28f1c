package jobcontroller

import (
	"errors"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/metrics"
	"github.com/jobsync/jobsync/jobsync"
)

// The hooks below are the controller's only contact with the metrics:
// each is called from one line of the sync or of an informer handler.

// recordSync records one sync that reached the executor: job as the sync
// read it, the plan, what the executor did and its error.
func (c *Controller) recordSync(job *batchv1.Job, plan jobsync.Plan, res executor.Result, err error, start time.Time) {
	metrics.ForSync(job, plan, outcomeOf(res, err)).Apply(c.opts.Clock.Since(start))
}

// outcomeOf is what the metrics need of the executor's result and error:
// a failed create step counts each failed creation of its last batch,
// except those refused because the namespace is being deleted, which
// upstream leaves out of its counts.
func outcomeOf(res executor.Result, err error) metrics.Outcome {
	out := metrics.Outcome{
		Err:                  err != nil,
		Created:              res.Created,
		InterimStatusWritten: res.InterimStatusWritten,
		StatusWritten:        res.StatusWritten,
	}
	var stepErr *executor.Error
	if errors.As(err, &stepErr) && stepErr.Step == executor.StepCreate {
		errs := []error{stepErr.Err}
		if joined, ok := stepErr.Err.(interface{ Unwrap() []error }); ok {
			errs = joined.Unwrap()
		}
		for _, e := range errs {
			if !apierrors.HasStatusCause(e, corev1.NamespaceTerminatingCause) {
				out.CreateFailed++
			}
		}
	}
	return out
}

// recordStale counts a sync held back for a stale cached Job.
func recordStale() { metrics.RecordStaleJob() }

// recordStalePods counts a sync held back for a pod cache behind the
// controller's own pod writes.
func recordStalePods() { metrics.RecordStalePods() }

// addMetricHandlers registers the metrics' own informer handlers, kept
// apart from the handlers that drive the syncs. The values are recorded
// whether or not the program registered the metrics (metrics.Register);
// unregistered, recording costs nothing.
func (c *Controller) addMetricHandlers(jobs, pods cache.SharedIndexInformer) error {
	if _, err := jobs.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: recordJobAdded}); err != nil {
		return err
	}
	_, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.recordPodChange(nil, obj) },
		UpdateFunc: func(old, cur any) {
			if o, n := asPod(old), asPod(cur); o != nil && n != nil && o.ResourceVersion != n.ResourceVersion {
				c.recordPodChange(o, n)
			}
		},
		DeleteFunc: func(obj any) { c.recordPodChange(obj, nil) },
	})
	return err
}

// recordJobAdded counts a Job another controller manages, as upstream
// counts every such Job its informer sees created.
func recordJobAdded(obj any) {
	if job, ok := obj.(*batchv1.Job); ok {
		metrics.RecordJobAdded(metrics.ExternalController(job))
	}
}

// recordPodChange counts a terminated pod gaining or losing this
// controller's tracking finalizer; old or cur is nil for an added or
// deleted pod (a tombstone's last known state counts as the deleted pod).
func (c *Controller) recordPodChange(old, cur any) {
	metrics.RecordTerminated(metrics.TerminatedEvent(asPod(old), asPod(cur), c.finalizer))
}

func asPod(obj any) *corev1.Pod {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	p, _ := obj.(*corev1.Pod)
	return p
}
