package jobcontroller

import (
	"fmt"
	"regexp"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/jobsync/jobsync/jobsync"
)

// DefaultWorkers is the number of Jobs synced at once by default, as
// upstream's --concurrent-job-syncs.
const DefaultWorkers = 5

// Options configure a Controller. The zero value of each field means its
// default.
type Options struct {
	// ControllerName is the spec.managedBy value this controller answers
	// to, such as "example.com/jobsync" (required). Jobs whose
	// spec.managedBy differs, or is unset, are ignored. The tracking
	// finalizer of its pods is derived from it (TrackingFinalizerFor).
	ControllerName string
	// Workers is the number of Jobs synced at once. Default DefaultWorkers.
	Workers int
	// Sync are the jobsync.Options of every Reconcile. Their
	// ControllerName and TrackingFinalizer are overwritten from
	// ControllerName; tests lower BackoffBase and the like here.
	Sync jobsync.Options
	// Recorder records events. Nil means an event broadcaster writing to the
	// API server, with ControllerName as the event source's component.
	Recorder record.EventRecorder
	// Clock gives the Now of each sync. Nil means the real clock.
	Clock clock.PassiveClock
	// ActAsBuiltIn makes the controller run the Jobs Kubernetes' built-in
	// Job controller runs: those without spec.managedBy or with
	// kubernetes.io/job-controller, with the built-in tracking finalizer
	// batch.kubernetes.io/job-tracking. ControllerName must then be empty
	// or kubernetes.io/job-controller. It is meant for clusters that run
	// no kube-controller-manager (envtest, API servers started by tests,
	// KWOK-style clusters): beside a real built-in controller both would
	// run the same Jobs and fight over their pods. Off by default.
	ActAsBuiltIn bool
	// ScanPods makes every sync list the Job's pods from the pod
	// informer's index and hand each to Reconcile, as the controller did
	// before it held its pods by event (held.go). Both ways decide alike;
	// the held one reads far fewer pods a sync of a wide Job. Kept to
	// measure the difference and to check the agreement. Off by default.
	ScanPods bool
}

// upstreamFinalizer is the built-in controller's finalizer, which another
// controller must not use: the built-in controller's orphan cleanup would
// take it off pods it does not own.
const upstreamFinalizer = batchv1.JobTrackingFinalizer

// nameMaxLength is the longest name part a qualified name (a finalizer) may have.
const nameMaxLength = 63

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// TrackingFinalizerFor gives the tracking finalizer a controller named name
// puts on its pods: the domain of name, a slash, and the rest of name with
// every character a finalizer name cannot hold turned into a dot, followed
// by "-tracking" (for "example.com/jobsync", "example.com/jobsync-tracking").
// The name part is cut to fit the 63 characters a finalizer's name may
// have.
func TrackingFinalizerFor(controllerName string) string {
	domain, path, ok := strings.Cut(controllerName, "/")
	if !ok {
		domain, path = "jobsync.io", controllerName
	}
	const suffix = "-tracking"
	name := notNameChar.ReplaceAllString(path, ".")
	if max := nameMaxLength - len(suffix); len(name) > max {
		name = name[:max]
	}
	name = strings.Trim(name, "._-")
	if name == "" {
		name = "job"
	}
	return domain + "/" + name + suffix
}

func (o Options) withDefaults() (Options, error) {
	if o.ActAsBuiltIn {
		return o.builtInDefaults()
	}
	if o.ControllerName == "" {
		return o, fmt.Errorf("jobcontroller: Options.ControllerName is required (the spec.managedBy value of the Jobs to run)")
	}
	if o.ControllerName == jobsync.DefaultControllerName {
		return o, fmt.Errorf("jobcontroller: %q is the built-in Job controller's name; pick your own", o.ControllerName)
	}
	o, err := o.commonDefaults()
	if err != nil {
		return o, err
	}
	o.Sync.ControllerName = o.ControllerName
	o.Sync.TrackingFinalizer = TrackingFinalizerFor(o.ControllerName)
	if o.Sync.TrackingFinalizer == upstreamFinalizer {
		return o, fmt.Errorf("jobcontroller: controller name %q gives the built-in controller's finalizer", o.ControllerName)
	}
	if errs := validation.IsQualifiedName(o.Sync.TrackingFinalizer); len(errs) > 0 {
		return o, fmt.Errorf("jobcontroller: controller name %q gives the finalizer %q, which is not a valid finalizer name: %s", o.ControllerName, o.Sync.TrackingFinalizer, strings.Join(errs, "; "))
	}
	return o, nil
}

// commonDefaults fills the defaults both modes share.
func (o Options) commonDefaults() (Options, error) {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o, nil
}

// builtInDefaults are the defaults of the built-in mode: the built-in
// controller's name and finalizer, so that the Jobs and pods it leaves are
// those a kube-controller-manager would have left.
func (o Options) builtInDefaults() (Options, error) {
	if o.ControllerName != "" && o.ControllerName != jobsync.DefaultControllerName {
		return o, fmt.Errorf("jobcontroller: Options.ActAsBuiltIn runs the built-in controller's Jobs; ControllerName must be empty or %q, not %q", jobsync.DefaultControllerName, o.ControllerName)
	}
	o, err := o.commonDefaults()
	if err != nil {
		return o, err
	}
	o.ControllerName = jobsync.DefaultControllerName
	o.Sync.ControllerName = jobsync.DefaultControllerName
	o.Sync.TrackingFinalizer = upstreamFinalizer
	return o, nil
}

// runs reports whether a controller with these (defaulted) options runs
// job: its spec.managedBy is ControllerName, or, in the built-in mode,
// unset as well.
func (o Options) runs(job *batchv1.Job) bool {
	if job.Spec.ManagedBy == nil {
		return o.ActAsBuiltIn
	}
	return *job.Spec.ManagedBy == o.ControllerName
}

// builtInWarning is logged when a controller starts in the built-in mode,
// loudly, since beside a real kube-controller-manager it would fight the
// built-in Job controller over every Job.
const builtInWarning = "ACTING AS THE BUILT-IN JOB CONTROLLER: running every Job without spec.managedBy or with " +
	jobsync.DefaultControllerName + ", with the finalizer " + upstreamFinalizer +
	". Only for clusters without kube-controller-manager (envtest, test API servers, KWOK-style clusters)"
