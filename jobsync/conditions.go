package jobsync

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons and messages upstream writes into Job conditions and events.
const (
	msgBackoffLimitExceeded = "Job has reached the specified backoff limit"
	msgDeadlineExceeded     = "Job was active longer than specified deadline"
	msgMaxFailedIndexes     = "Job has exceeded the specified maximal number of failed indexes"
	msgFailedIndexes        = "Job has failed indexes"
	msgCompletionsReached   = "Reached expected number of succeeded pods"

	reasonSuspended = "JobSuspended"
	msgSuspended    = "Job suspended"
	reasonResumed   = "JobResumed"
	msgResumed      = "Job resumed"
)

func newCondition(t batchv1.JobConditionType, reason, message string, now time.Time) *batchv1.JobCondition {
	return &batchv1.JobCondition{
		Type:               t,
		Status:             corev1.ConditionTrue,
		LastProbeTime:      metav1.NewTime(now),
		LastTransitionTime: metav1.NewTime(now),
		Reason:             reason,
		Message:            message,
	}
}

// findCondition returns the first condition of type t, as upstream looks it up.
func findCondition(list []batchv1.JobCondition, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

func hasTrueCondition(list []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	c := findCondition(list, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

// isFinished reports whether the Job has a Complete or Failed condition that
// is True; upstream looks at every condition here, not only the first of a
// type.
func isFinished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// setCondition makes the condition of type t carry status, reason and
// message, replacing it (with fresh times) when any of them differs, and
// appending it when absent unless status is False, for a change from nothing
// to False says nothing. It reports whether the list changed.
func setCondition(list []batchv1.JobCondition, t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) ([]batchv1.JobCondition, bool) {
	if c := findCondition(list, t); c != nil {
		if c.Status == status && c.Reason == reason && c.Message == message {
			return list, false
		}
		*c = *newCondition(t, reason, message, now)
		c.Status = status
		return list, true
	}
	if status == corev1.ConditionFalse {
		return list, false
	}
	c := newCondition(t, reason, message, now)
	c.Status = status
	return append(list, *c), true
}
