package jobsync

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/jobsync/jobsync/expectations"
)

// Options hold what upstream's controller takes from its flags, constants
// and feature gates. The zero value means upstream's defaults.
type Options struct {
	// ControllerName is the spec.managedBy value this controller answers to.
	// A Job whose managedBy is set to another name is skipped. Default
	// "kubernetes.io/job-controller".
	ControllerName string
	// TrackingFinalizer is the finalizer put on created pods and removed once
	// they are counted. Default "batch.kubernetes.io/job-tracking", which
	// upstream reserves for the built-in controller: an external controller
	// should use its own.
	TrackingFinalizer string
	// MaxUncountedPods caps the pods newly recorded in
	// status.uncountedTerminatedPods in one sync. Default 500.
	MaxUncountedPods int
	// MaxPodCreateDeletePerSync caps the creations and deletions of one sync.
	// Default 500.
	MaxPodCreateDeletePerSync int
	// BackoffBase and BackoffMax bound the pod-failure backoff: BackoffBase
	// after the first failure, doubling, never above BackoffMax. Defaults 10s
	// and 10m (upstream's code; its documentation says six minutes).
	BackoffBase, BackoffMax time.Duration
	// MinRequeueDelay is the least delay of a requeue for pod-failure
	// backoff (upstream's sync batch period). Default 1s.
	MinRequeueDelay time.Duration
	// ExpectationsTimeout is how long unobserved creations and deletions hold
	// back pod management. Default 5m.
	ExpectationsTimeout time.Duration
	// KeepStartTimeOnSuspend turns off the v1.36 default of the
	// MutableSchedulingDirectivesForSuspendedJobs feature gate, under which
	// suspending a Job clears status.startTime.
	KeepStartTimeOnSuspend bool
	// Owner is the group, version and kind of the objects that own the
	// pods: the kind named in the controller owner reference of created
	// and adopted pods, and the kind a pod's controller reference must name
	// for the pod to be the Job's. The zero value means batch/v1 Job. Set
	// it to run Job semantics for a custom resource that embeds a JobSpec:
	// the Snapshot's Job is then that resource seen as a Job (its metadata,
	// with the embedded spec and status), and nothing else about the
	// decisions changes. A non-zero Owner needs a version and a kind.
	Owner schema.GroupVersionKind
}

// DefaultOwner is the owner kind of the zero Options: batch/v1 Job. It is
// a function, not a variable, so that no caller can change it.
func DefaultOwner() schema.GroupVersionKind { return batchv1.SchemeGroupVersion.WithKind("Job") }

// DefaultControllerName is the managedBy value of the built-in controller.
const DefaultControllerName = batchv1.JobControllerName

func (o Options) withDefaults() Options {
	if o.ControllerName == "" {
		o.ControllerName = DefaultControllerName
	}
	if o.TrackingFinalizer == "" {
		o.TrackingFinalizer = batchv1.JobTrackingFinalizer
	}
	if o.MaxUncountedPods <= 0 {
		o.MaxUncountedPods = 500
	}
	if o.MaxPodCreateDeletePerSync <= 0 {
		o.MaxPodCreateDeletePerSync = 500
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 10 * time.Second
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = 10 * time.Minute
	}
	if o.MinRequeueDelay <= 0 {
		o.MinRequeueDelay = time.Second
	}
	if o.ExpectationsTimeout <= 0 {
		o.ExpectationsTimeout = expectations.DefaultTimeout
	}
	if o.Owner.Empty() {
		o.Owner = DefaultOwner()
	}
	return o
}

// checkOwner rejects an Owner that no owner reference could name: one set
// in part, without a version or a kind.
func checkOwner(owner schema.GroupVersionKind) error {
	if owner.Version == "" || owner.Kind == "" {
		return inputErr("options.owner", owner.String(), "needs a version and a kind (leave it zero for batch/v1 Job)")
	}
	return nil
}

// OwnerReference returns the controller owner reference that jobsync puts
// on the pods of job, created or adopted, under opts.Owner (batch/v1 Job
// when zero): the owner's apiVersion and kind, job's name and UID, with
// controller and blockOwnerDeletion set. A controller that lists pods by
// owner uses it to know what its pods carry. A nil job gives a reference
// with no name and no UID.
func OwnerReference(job *batchv1.Job, opts Options) metav1.OwnerReference {
	owner := opts.withDefaults().Owner
	yes := true
	ref := metav1.OwnerReference{
		APIVersion:         owner.GroupVersion().String(),
		Kind:               owner.Kind,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
	if job != nil {
		ref.Name, ref.UID = job.Name, job.UID
	}
	return ref
}
