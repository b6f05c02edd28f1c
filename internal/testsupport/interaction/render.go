package interaction

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
)

// describeStatus is a Job status on one line: the counters, then what is
// set of the rest. Pod UIDs are written as the pods' names.
func describeStatus(st *batchv1.JobStatus, uids map[types.UID]string) string {
	parts := []string{
		fmt.Sprintf("active=%d", st.Active),
		fmt.Sprintf("ready=%d", deref(st.Ready)),
		fmt.Sprintf("terminating=%d", deref(st.Terminating)),
		fmt.Sprintf("succeeded=%d", st.Succeeded),
		fmt.Sprintf("failed=%d", st.Failed),
	}
	if st.CompletedIndexes != "" {
		parts = append(parts, "completedIndexes="+st.CompletedIndexes)
	}
	if st.FailedIndexes != nil {
		parts = append(parts, fmt.Sprintf("failedIndexes=%q", *st.FailedIndexes))
	}
	if u := st.UncountedTerminatedPods; u != nil && (len(u.Succeeded) > 0 || len(u.Failed) > 0) {
		parts = append(parts, fmt.Sprintf("uncounted(succeeded=%s failed=%s)", names(u.Succeeded, uids), names(u.Failed, uids)))
	}
	if st.StartTime != nil {
		parts = append(parts, "start"+at(st.StartTime.Time))
	}
	if st.CompletionTime != nil {
		parts = append(parts, "completion"+at(st.CompletionTime.Time))
	}
	return strings.Join(parts, " ")
}

// describeConditions is one line per condition.
func describeConditions(conds []batchv1.JobCondition) []string {
	var out []string
	for _, c := range conds {
		s := fmt.Sprintf("condition %s=%s", c.Type, c.Status)
		if c.Reason != "" {
			s += " " + c.Reason
		}
		if c.Message != "" {
			s += fmt.Sprintf(" %q", c.Message)
		}
		out = append(out, s+" "+at(c.LastTransitionTime.Time))
	}
	return out
}

// describeMemory is the controller's memory between syncs.
func describeMemory(e expectations.Expectations, b backoff.Record, uids map[types.UID]string) string {
	var parts []string
	// Counts at or below zero expect nothing (observations may lower them
	// below zero, as upstream's do; the next sync that creates or deletes
	// replaces both).
	var pending []string
	if e.Creations > 0 {
		pending = append(pending, plural(e.Creations, "creation"))
	}
	if e.Deletions > 0 {
		pending = append(pending, plural(e.Deletions, "deletion"))
	}
	if len(pending) > 0 {
		parts = append(parts, fmt.Sprintf("expecting %s (set%s)", strings.Join(pending, " and "), at(e.SetAt)))
	}
	if e.FinalizerRemovals.Len() > 0 {
		parts = append(parts, "finalizer removals of "+names(e.FinalizerRemovals.Sorted(), uids))
	}
	if e.JobFinished {
		parts = append(parts, "job finished")
	}
	if b.FailuresAfterLastSuccess != 0 || b.LastFailureTime != nil {
		s := "backoff after " + plural(int64(b.FailuresAfterLastSuccess), "failure")
		if b.LastFailureTime != nil {
			s += ", the last" + at(*b.LastFailureTime)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "nothing expected, no backoff"
	}
	return strings.Join(parts, "; ")
}

func names(list []types.UID, uids map[types.UID]string) string {
	out := make([]string, len(list))
	for i, u := range list {
		if n, ok := uids[u]; ok {
			out[i] = n
		} else {
			out[i] = string(u)
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
