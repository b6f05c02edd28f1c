package metrics

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Subsystem is the subsystem of every Job controller metric, as upstream
// names it.
const Subsystem = "job_controller"

// Label values, as upstream's Job controller writes them.
const (
	// ActionReconciling: the sync neither created nor deleted pods because
	// it waited for earlier creations or deletions, or the Job is finishing
	// or being deleted.
	ActionReconciling = "reconciling"
	// ActionTracking: the pod count was right; only status was tracked.
	ActionTracking = "tracking"
	// ActionPodsCreated: the Job wanted more pods (even if a backoff held
	// their creation).
	ActionPodsCreated = "pods_created"
	// ActionPodsDeleted: the Job wanted fewer pods, or is suspended.
	ActionPodsDeleted = "pods_deleted"

	// ResultSuccess and ResultError are the result of a sync.
	ResultSuccess = "success"
	ResultError   = "error"

	// Succeeded and Failed are the result of a finished Job or pod, the
	// status of a finished index and of a pod creation.
	Succeeded = "succeeded"
	Failed    = "failed"

	// EventAdd and EventDelete say whether a terminated pod gained or lost
	// the tracking finalizer (as seen by the informer).
	EventAdd    = "add"
	EventDelete = "delete"

	// The reasons of a pod creation.
	CreateNew                   = "new"
	RecreateTerminatingOrFailed = "recreate_terminating_or_failed"
	RecreateFailed              = "recreate_failed"

	// The backoffLimit label of job_finished_indexes_total.
	BackoffPerIndex = "perIndex"
	BackoffGlobal   = "global"
)

var (
	// SyncDuration is the latency of Job syncs.
	SyncDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Subsystem:      Subsystem,
		Name:           "job_sync_duration_seconds",
		Help:           "The time it took to sync a job",
		StabilityLevel: metrics.STABLE,
		// 4ms doubling fifteen times: up to about a minute.
		Buckets: metrics.ExponentialBuckets(0.004, 2, 15),
	}, []string{"completion_mode", "result", "action"})

	// Syncs counts Job syncs.
	Syncs = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      Subsystem,
		Name:           "job_syncs_total",
		Help:           "The number of job syncs",
		StabilityLevel: metrics.STABLE,
	}, []string{"completion_mode", "result", "action"})

	// JobsFinished counts Jobs that finished, by the reason of their
	// terminal condition (CompletionsReached for a Job that completed).
	JobsFinished = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      Subsystem,
		Name:           "jobs_finished_total",
		Help:           "The number of finished jobs",
		StabilityLevel: metrics.STABLE,
	}, []string{"completion_mode", "result", "reason"})

	// ByExternalController counts the Jobs seen created with a
	// spec.managedBy other than the built-in controller's.
	ByExternalController = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      Subsystem,
		Name:           "jobs_by_external_controller_total",
		Help:           "The number of Jobs managed by an external controller",
		StabilityLevel: metrics.ALPHA,
	}, []string{"controller_name"})

	// PodsFinished counts the finished pods moved into the Job's counters.
	PodsFinished = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      Subsystem,
		Name:           "job_pods_finished_total",
		Help:           "The number of finished Pods that are fully tracked",
		StabilityLevel: metrics.STABLE,
	}, []string{"completion_mode", "result"})

	// PodFailuresByPolicy counts failed pods by the action of the pod
	// failure policy rule they matched.
	PodFailuresByPolicy = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem: Subsystem,
		Name:      "pod_failures_handled_by_failure_policy_total",
		Help: `The number of failed Pods handled by failure policy with
			respect to the failure policy action applied based on the matched
			rule. Possible values of the action label correspond to the
			possible values for the failure policy rule action, which are:
			"FailJob", "Ignore" and "Count".`,
		StabilityLevel: metrics.BETA,
	}, []string{"action"})

	// TerminatedPodsWithFinalizer counts terminated pods gaining (add) or
	// losing (delete) the tracking finalizer.
	TerminatedPodsWithFinalizer = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem: Subsystem,
		Name:      "terminated_pods_tracking_finalizer_total",
		Help: `The number of terminated pods (phase=Failed|Succeeded)
that have the finalizer batch.kubernetes.io/job-tracking
The event label can be "add" or "delete".`,
		StabilityLevel: metrics.BETA,
	}, []string{"event"})

	// FinishedIndexes counts the indexes of Indexed Jobs that finished.
	FinishedIndexes = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem: Subsystem,
		Name:      "job_finished_indexes_total",
		Help: `The number of finished indexes. Possible values for the
			status label are: "succeeded", "failed". Possible values for the
			backoffLimit label are: "perIndex" and "global"`,
	}, []string{"status", "backoffLimit"})

	// PodsCreated counts pod creations by why the pod was created and
	// whether the creation succeeded.
	PodsCreated = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem: Subsystem,
		Name:      "job_pods_creation_total",
		Help: `The number of Pods created by the Job controller labelled with a reason for the Pod creation.
This metric also distinguishes between Pods created using different PodReplacementPolicy settings.
Possible values of the "reason" label are:
"new", "recreate_terminating_or_failed", "recreate_failed".
Possible values of the "status" label are:
"succeeded", "failed".`,
	}, []string{"reason", "status"})

	// StaleSyncSkips counts syncs held back because the informer had not
	// yet seen the controller's own last write.
	StaleSyncSkips = metrics.NewCounterVec(&metrics.CounterOpts{
		Subsystem:      Subsystem,
		Name:           "stale_sync_skips_total",
		Help:           "Total number of Job syncs skipped due to a stale watch cache.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"group", "resource"})
)

var registerOnce sync.Once

// Register adds the Job controller's metrics to the legacy registry. It is
// safe to call more than once; before it, recording is a no-op (the
// component-base metrics are created on registration).
//
// The controller does not register them by itself: a program is the one to
// decide, as upstream's Job controller registers the very same names, and
// a process running both (the side-by-side tests) must not register them
// twice.
func Register() {
	registerOnce.Do(func() { legacyregistry.MustRegister(all()...) })
}

// RegisterIn adds the Job controller's metrics to a registry of the
// caller's, for a process whose legacy registry already holds upstream's
// metrics of the same names (tests comparing the two controllers). Call it
// once per registry.
func RegisterIn(r metrics.KubeRegistry) {
	r.MustRegister(all()...)
}

func all() []metrics.Registerable {
	return []metrics.Registerable{SyncDuration, Syncs, JobsFinished, PodsFinished,
		PodFailuresByPolicy, TerminatedPodsWithFinalizer, FinishedIndexes,
		PodsCreated, ByExternalController, StaleSyncSkips}
}
