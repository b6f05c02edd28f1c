package jobsync

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// decideFinish evaluates, in upstream's order, whether the Job is done:
//  1. a SuccessCriteriaMet condition already written stands;
//  2. a FailureTarget condition already written becomes Failed;
//  3. a failed pod matching a FailJob rule of the pod failure policy;
//  4. backoffLimit exceeded (or, with restartPolicy OnFailure, too many
//     container restarts);
//  5. activeDeadlineSeconds passed (never while suspended); otherwise the
//     time left is when to look again;
//  6. for Indexed Jobs with backoffLimitPerIndex: maxFailedIndexes
//     exceeded, or every index finished with at least one failed;
//  7. for Indexed Jobs, a successPolicy rule met.
//
// Reaching the completions (success without a policy) is decided later, after
// pod management (completionsReached). The result is the condition the Job
// is heading to, nil when it is not finishing; while the active deadline
// is still to come, wait is when to look again and note says so ("" and 0
// otherwise). start is the Job's startTime as this sync sees it, nil for
// not started.
func (sync *syncState) decideFinish(census *podCensus, counts finishedCounts, progress indexProgress, start *metav1.Time) (finish *batchv1.JobCondition, note string, wait time.Duration) {
	job := sync.job
	if c := findCondition(sync.job.Status.Conditions, batchv1.JobSuccessCriteriaMet); c != nil && c.Status == corev1.ConditionTrue {
		finish = c.DeepCopy()
	}
	if finish == nil {
		if c := findCondition(sync.job.Status.Conditions, batchv1.JobFailureTarget); c != nil && c.Status == corev1.ConditionTrue {
			finish = newCondition(batchv1.JobFailed, c.Reason, c.Message, sync.now)
		} else if msg, ok := sync.failJobMessage(census); ok {
			finish = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonPodFailurePolicy, msg, sync.now)
		}
	}
	if finish == nil {
		switch {
		case counts.failed > *job.Spec.BackoffLimit || sync.pastBackoffLimitOnFailure(census):
			finish = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimitExceeded, sync.now)
		case sync.pastDeadline(start):
			finish = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded, msgDeadlineExceeded, sync.now)
		case job.Spec.ActiveDeadlineSeconds != nil && !sync.suspended:
			left := time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second - sync.now.Sub(start.Time)
			wait = sync.requeueDelay(left, false)
			note = fmt.Sprintf("the active deadline passes in %v", left)
		}
	}
	if !sync.indexed {
		return finish, note, wait
	}
	if finish == nil && sync.perIndex {
		failed := progress.failed.Total()
		if job.Spec.MaxFailedIndexes != nil && failed > int(*job.Spec.MaxFailedIndexes) {
			finish = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonMaxFailedIndexesExceeded, msgMaxFailedIndexes, sync.now)
		} else if failed > 0 && failed+progress.succeeded.Total() >= int(*job.Spec.Completions) {
			finish = newCondition(batchv1.JobFailureTarget, batchv1.JobReasonFailedIndexes, msgFailedIndexes, sync.now)
		}
	}
	if finish == nil {
		if msg, ok := matchSuccessPolicy(job.Spec.SuccessPolicy, *job.Spec.Completions, progress.succeeded); ok {
			finish = newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonSuccessPolicy, msg, sync.now)
		}
	}
	return finish, note, wait
}

// failJobMessage finds a failed pod that a FailJob rule matches and returns
// the FailureTarget message naming it. Upstream takes the first such pod in
// the order it lists pods; here it is the first in listing order
// (listingCompare, which puts adopted pods last), not the canonical order
// the tracking steps use.
func (sync *syncState) failJobMessage(census *podCensus) (string, bool) {
	if sync.job.Spec.PodFailurePolicy == nil {
		return "", false
	}
	var first *podRecord
	for i := range census.finishedOrDeleting {
		r := &census.finishedOrDeleting[i]
		if !r.failed || r.verdict().action != batchv1.PodFailurePolicyActionFailJob {
			continue
		}
		if first == nil || sync.listingCompare(r, first) < 0 {
			first = r
		}
	}
	if first == nil {
		return "", false
	}
	return first.verdict().failJobMessage, true
}

// pastBackoffLimitOnFailure applies to restartPolicy OnFailure, where
// failures show as container restarts of pods that keep running: the sum of
// restarts of pending and running pods reaching backoffLimit (or any restart
// when backoffLimit is 0) fails the Job. The sum is taken in int32, as
// upstream takes it: restart counts near the int32 limit wrap it around
// (found by FuzzDifferential).
func (sync *syncState) pastBackoffLimitOnFailure(census *podCensus) bool {
	if sync.job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return false
	}
	var restarts int32
	for _, p := range census.pods {
		if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodPending {
			continue
		}
		restarts += restartSum(p)
	}
	restarts += census.activeRestarts()
	limit := *sync.job.Spec.BackoffLimit
	if limit == 0 {
		return restarts > 0
	}
	return restarts >= limit
}

// pastDeadline reports whether the Job, started at start (nil for not
// started), has been active, unsuspended, for activeDeadlineSeconds or more.
func (sync *syncState) pastDeadline(start *metav1.Time) bool {
	ads := sync.job.Spec.ActiveDeadlineSeconds
	if ads == nil || start == nil || sync.suspended {
		return false
	}
	return sync.now.Sub(start.Time) >= time.Duration(*ads)*time.Second
}

// completionsReached reports success by completions: with completions set,
// that many pods (indexes) succeeded; without, any pod succeeded. Either
// way, no pod may still be active.
func (sync *syncState) completionsReached(active, succeeded int32) bool {
	if active != 0 {
		return false
	}
	if c := sync.job.Spec.Completions; c != nil {
		return succeeded >= *c
	}
	return succeeded > 0
}
