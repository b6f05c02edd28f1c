package jobsync

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
)

// skipSync reports whether the sync stops before looking at the pods, as
// upstream's does: for a Job managed by another controller, a finished Job
// (whose backoff record and finished-Job memory are then dropped), a Job
// whose written terminal condition is not seen yet, and an unknown
// completion mode (with its event). It says why in plan.Skipped.
func skipSync(s Snapshot, opts Options, plan *Plan) bool {
	job := s.Job
	if job.Spec.ManagedBy != nil && *job.Spec.ManagedBy != opts.ControllerName {
		plan.Skipped = fmt.Sprintf("the Job is managed by %q, not by %q", *job.Spec.ManagedBy, opts.ControllerName)
		return true
	}
	if isFinished(job) {
		plan.Skipped = "the Job has already finished"
		plan.Backoff = backoff.Record{}
		plan.Expectations.JobFinished = false
		return true
	}
	if s.Expectations.JobFinished {
		plan.Skipped = "a terminal condition was written for the Job, and the Job seen here does not have it yet"
		return true
	}
	if m := job.Spec.CompletionMode; m != nil && *m != batchv1.NonIndexedCompletion && *m != batchv1.IndexedCompletion {
		plan.Skipped = fmt.Sprintf("unknown completion mode %q", *m)
		plan.Events = append(plan.Events, Event{corev1.EventTypeWarning, "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown"})
		return true
	}
	return false
}
