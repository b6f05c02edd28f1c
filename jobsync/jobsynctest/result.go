package jobsynctest

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// Kind names what happened in one step.
type Kind string

// The kinds of steps.
const (
	// KindSync is one controller sync: a Reconcile call and the plan carried
	// out as far as it went.
	KindSync Kind = "sync"
	// Pod lifecycle events.
	KindPodRunning   Kind = "pod-running"   // the pod started and is ready
	KindPodSucceeded Kind = "pod-succeeded" // every container exited 0
	KindPodFailed    Kind = "pod-failed"    // a container exited non-zero (restartPolicy Never)
	KindPodRestarted Kind = "pod-restarted" // a container exited and restarted (restartPolicy OnFailure)
	KindPodDisrupted Kind = "pod-disrupted" // DisruptionTarget condition and eviction
	KindPodStopped   Kind = "pod-stopped"   // a deleted pod stopped and is Failed
	KindPodRemoved   Kind = "pod-removed"   // a deleted pod without finalizers left the API server
	// KindPodDeleted is a pod deleted by another actor than the controller.
	KindPodDeleted Kind = "pod-deleted"
	// KindInformer is a stalled watch stream delivering what it held back.
	KindInformer Kind = "informer-caught-up"
	// Changes users make to the Job.
	KindJobSuspended Kind = "job-suspended"
	KindJobResumed   Kind = "job-resumed"
	KindJobScaled    Kind = "job-scaled"
	KindJobDeleted   Kind = "job-deleted" // deletion requested (foreground)
	KindJobRemoved   Kind = "job-removed" // the Job left the API server
	// KindTTL is a look of the TTL-after-finished controller at a finished
	// Job whose TTL has not run out yet (when it has, the step is
	// KindJobDeleted).
	KindTTL Kind = "ttl-check"
)

// StepRecord is one step of a simulation.
type StepRecord struct {
	// Time is the clock reading of the step.
	Time time.Time `json:"time"`
	// Kind is what happened.
	Kind Kind `json:"kind"`
	// Pod names the pod concerned, for pod events.
	Pod string `json:"pod,omitempty"`
	// Detail says more, for people: the exit code, the spec change, or for
	// a sync what was carried out.
	Detail string `json:"detail,omitempty"`
	// Plan is the plan of a sync (nil for other steps).
	Plan *jobsync.Plan `json:"plan,omitempty"`
	// Done counts the API calls of the plan that were carried out; it is
	// less than Calls when the plan was interrupted.
	Done, Calls int `json:"-"`
	// Interrupted says why a sync's plan was not carried out to the end:
	// an API error, a resourceVersion conflict, a rejected status, or a
	// crash of the controller.
	Interrupted string `json:"interrupted,omitempty"`
	// Status is the Job's status as the API server holds it after the step.
	Status batchv1.JobStatus `json:"status"`
	// Violations are the invariants this step broke (Config.Check only).
	Violations []Violation `json:"violations,omitempty"`
}

// Outcome is how a Run ended.
type Outcome string

// The outcomes of a Run.
const (
	OutcomeComplete Outcome = "Complete" // the Job has a Complete condition
	OutcomeFailed   Outcome = "Failed"   // the Job has a Failed condition
	OutcomeDeleted  Outcome = "Deleted"  // the Job was deleted and is gone
	OutcomeMaxSyncs Outcome = "MaxSyncs" // Config.MaxSyncs syncs ran first
	OutcomeStuck    Outcome = "Stuck"    // nothing more can happen (say, suspended for good)
)

// Result is the record of a Run.
type Result struct {
	// Outcome is how the run ended.
	Outcome Outcome `json:"outcome"`
	// Steps are the steps in order (empty with Config.DiscardSteps).
	Steps []StepRecord `json:"steps,omitempty"`
	// Job is the Job as the API server last held it.
	Job *batchv1.Job `json:"job"`
	// Pods are the pods left in the API server, by name (empty with
	// Config.DiscardPods).
	Pods []*corev1.Pod `json:"pods,omitempty"`
	// Created and Deleted count the pods the controller created and the
	// deletions it carried out.
	Created int `json:"created"`
	Deleted int `json:"deleted"`
	// Syncs counts the syncs.
	Syncs int `json:"syncs"`
	// End is the clock at the end.
	End time.Time `json:"end"`
	// FinishedAt is when the run's outcome was reached: the Job's terminal
	// condition, or the end of the run. A Job with ttlSecondsAfterFinished
	// is then deleted by the TTL-after-finished controller
	// (jobsync.TTLAfterFinished) at TTLDeletedAt, and the run ends once it
	// is gone, its outcome still Complete or Failed.
	FinishedAt   time.Time `json:"finishedAt"`
	TTLDeletedAt time.Time `json:"ttlDeletedAt,omitzero"`
	// Faults counts the faults that struck.
	Faults FaultCounts `json:"faults"`
	// Violations are every invariant broken on the way and at the end
	// (Config.Check only).
	Violations []Violation `json:"violations,omitempty"`
	// Tolerated lists what the checks let pass as upstream's own
	// behaviour under stale informer views (Config.Check only), such as a
	// Job finished while pods it created were not yet in its view.
	Tolerated []string `json:"tolerated,omitempty"`
}

// FaultCounts counts injected faults by kind.
type FaultCounts struct {
	APIErrors   int `json:"apiErrors,omitempty"`
	Refused     int `json:"refused,omitempty"`   // pod creations refused (Faults.RefusedCreation)
	Conflicts   int `json:"conflicts,omitempty"` // status writes refused for a stale resourceVersion
	Rejections  int `json:"rejections,omitempty"`
	Crashes     int `json:"crashes,omitempty"`
	Stalls      int `json:"stalls,omitempty"` // watch streams that stalled
	PodDeletes  int `json:"podDeletes,omitempty"`
	Disruptions int `json:"disruptions,omitempty"`
	JobChanges  int `json:"jobChanges,omitempty"`
}

// Violation is an invariant that did not hold (Config.Check).
//
// The rules:
//   - "status-rejected": a status write that the API server's status
//     validation rejects (ready > active, a terminal condition with active
//     or terminating pods or uncounted ones, Complete without
//     SuccessCriteriaMet, Failed without FailureTarget, decreasing counters,
//     and so on);
//   - "reconcile-error": Reconcile returned an error on the simulator's view;
//   - "pod-order": the same snapshot with its pods in another order gave
//     another plan;
//   - "parallelism": a creation left more pods active than the Job's
//     parallelism (active and terminating ones under podReplacementPolicy
//     Failed);
//   - "suspended": a pod created while the Job (as the controller saw it)
//     was suspended;
//   - "deadline": a pod created when activeDeadlineSeconds had passed since
//     the start time the plan writes;
//   - "backoff": a pod created before the pod-failure backoff ran out (for
//     the Job, or for the index under backoffLimitPerIndex);
//   - "write-ahead": a tracking finalizer removed while the API server's
//     Job status neither records the pod in uncountedTerminatedPods nor
//     (Indexed, succeeded) its index in completedIndexes, for a pod that
//     the Job must count;
//   - "released-active": a finalizer released from an active pod while the
//     Job is neither finishing nor being deleted;
//   - "terminal-early": a terminal condition written while the API server
//     still holds a pod of the Job that is not terminal or still carries
//     the tracking finalizer;
//   - "count": at the end, status.succeeded or status.failed differs from
//     the pods that ended, each counted once (see the package doc);
//   - "outcome": at the end, Complete without its criteria met, or Failed
//     with a reason whose criterion does not hold, or no terminal
//     condition at all.
type Violation struct {
	Rule   string    `json:"rule"`
	Time   time.Time `json:"time"`
	Detail string    `json:"detail"`
}

// String gives the rule, the time and the detail on one line.
func (v Violation) String() string {
	return fmt.Sprintf("%s at %s: %s", v.Rule, v.Time.Format(time.RFC3339), v.Detail)
}
