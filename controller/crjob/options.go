package crjob

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/events"

	"github.com/jobsync/jobsync/controller/jobcontroller"
	"github.com/jobsync/jobsync/jobsync"
)

// Options configure SetupWithManager. The zero value of each field means
// its default.
type Options struct {
	// ControllerName is the spec.managedBy value of the Jobs to run, such
	// as "example.com/mine" (required; not the built-in controller's).
	// The tracking finalizer of the pods is derived from it
	// (jobcontroller.TrackingFinalizerFor).
	ControllerName string
	// Workers is the number of Jobs reconciled at once (and of orphan
	// pods released at once). Default jobcontroller.DefaultWorkers.
	Workers int
	// Sync are the jobsync.Options of every Reconcile; their
	// ControllerName and TrackingFinalizer are overwritten from
	// ControllerName.
	Sync jobsync.Options
	// Events records the events. Nil means the manager's recorder
	// (Manager.GetEventRecorder) named after ControllerName.
	Events events.EventRecorder
}

func (o Options) withDefaults() (Options, error) {
	if o.ControllerName == "" {
		return o, fmt.Errorf("crjob: Options.ControllerName is required (the spec.managedBy value of the Jobs to run)")
	}
	if o.ControllerName == jobsync.DefaultControllerName {
		return o, fmt.Errorf("crjob: %q is the built-in Job controller's name; pick your own", o.ControllerName)
	}
	if o.Workers <= 0 {
		o.Workers = jobcontroller.DefaultWorkers
	}
	o.Sync.ControllerName = o.ControllerName
	o.Sync.TrackingFinalizer = jobcontroller.TrackingFinalizerFor(o.ControllerName)
	if o.Sync.TrackingFinalizer == batchv1.JobTrackingFinalizer {
		return o, fmt.Errorf("crjob: controller name %q gives the built-in controller's finalizer", o.ControllerName)
	}
	if errs := validation.IsQualifiedName(o.Sync.TrackingFinalizer); len(errs) > 0 {
		return o, fmt.Errorf("crjob: controller name %q gives the finalizer %q, which is not a valid finalizer name: %s",
			o.ControllerName, o.Sync.TrackingFinalizer, strings.Join(errs, "; "))
	}
	return o, nil
}

// runs reports whether the reconciler runs job.
func (o Options) runs(job *batchv1.Job) bool {
	return job.Spec.ManagedBy != nil && *job.Spec.ManagedBy == o.ControllerName
}
