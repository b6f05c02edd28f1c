package jobsync

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
)

// untrackedNote explains, in one note per sync, terminal pods of the Job
// without the tracking finalizer that the Job's status cannot have counted.
// Upstream counts a finished pod only while it carries the finalizer (or
// while its UID is in uncountedTerminatedPods); a pod without it is taken
// as counted already, as every pod is once its finalizer went. A pod made
// by hand without the finalizer, or a status written by hand, is thus
// never counted, and nothing says so.
//
// Which pods were counted cannot be told apart from one pod alone, but
// their number can: every counted pod left one in status.succeeded,
// status.failed or uncountedTerminatedPods, so untracked pods beyond that
// sum were never counted. The sum only grows (a deleted pod leaves its
// count behind), so a finished Job of a million settled pods gets no note.
// untracked includes the caller's settled pods, so a snapshot gives the
// same note with or without a SettledFilter; for that reason too the note
// names no pod.
//
// A Job with an Ignore rule in its pod failure policy gets no note: the
// pods that rule ignores are not counted by design. An Indexed Job counts
// one succeeded pod per completed index and none outside its indexes, so
// there a second succeeded pod of an index, or a pod without a valid
// index, is uncounted by design too; such pods are rare and cannot be told
// apart cheaply, so the note names them among its reasons.
func (sync *syncState) untrackedNote(untracked int) string {
	if untracked == 0 || hasIgnoreRule(sync.job.Spec.PodFailurePolicy) {
		return ""
	}
	st := &sync.job.Status
	counted := int64(st.Succeeded) + int64(st.Failed)
	if u := st.UncountedTerminatedPods; u != nil {
		counted += int64(len(u.Succeeded)) + int64(len(u.Failed))
	}
	if int64(untracked) <= counted {
		return ""
	}
	return fmt.Sprintf("%s finished without the tracking finalizer, more than status.succeeded, status.failed and uncountedTerminatedPods hold (%d): "+
		"%s not counted (a pod is counted only while it carries the finalizer; these were made without it or the status was written by hand, unless they repeat or fall outside an Indexed Job's indexes)",
		count(untracked, "pod of the Job", "pods of the Job"), counted, count(int(int64(untracked)-counted), "of them is", "of them are"))
}

// hasIgnoreRule tells whether a pod failure policy has a rule whose action
// is Ignore.
func hasIgnoreRule(p *batchv1.PodFailurePolicy) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Rules {
		if r.Action == batchv1.PodFailurePolicyActionIgnore {
			return true
		}
	}
	return false
}
