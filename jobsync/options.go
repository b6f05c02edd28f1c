package jobsync

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"

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
}

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
	return o
}
