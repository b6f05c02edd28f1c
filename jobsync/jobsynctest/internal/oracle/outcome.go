package oracle

import (
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
)

// The outcome rule: an interim condition (FailureTarget, SuccessCriteriaMet)
// is written only when its reason holds in the snapshot, and the terminal
// condition follows it.

// checkInterimConditions checks that a FailureTarget or SuccessCriteriaMet
// condition the plan adds has its reason in the snapshot.
func (k *Checker) checkInterimConditions(snap jobsync.Snapshot, plan jobsync.Plan) {
	st := plan.InterimStatus
	if st == nil {
		return
	}
	job := snap.Job
	if c := conditionTrue(st, batchv1.JobFailureTarget); c != nil && conditionTrue(&job.Status, batchv1.JobFailureTarget) == nil {
		if why := k.failureReasonHolds(snap, st, c.Reason); why != "" {
			k.violate("outcome", "FailureTarget with reason %s, but %s", c.Reason, why)
		}
	}
	if c := conditionTrue(st, batchv1.JobSuccessCriteriaMet); c != nil && conditionTrue(&job.Status, batchv1.JobSuccessCriteriaMet) == nil {
		if why := k.successHolds(snap, st, c.Reason); why != "" {
			k.violate("outcome", "SuccessCriteriaMet with reason %s, but %s", c.Reason, why)
		}
	}
}

// failedSoFar counts the failures the snapshot shows: counted, uncounted,
// and tracked pods newly failed that no Ignore rule matches.
func (k *Checker) failedSoFar(snap jobsync.Snapshot) int {
	job := snap.Job
	n := int(job.Status.Failed)
	u := job.Status.UncountedTerminatedPods
	if u != nil {
		n += len(u.Failed)
	}
	for _, p := range tracked(snap, k.fin) {
		if !failedPod(job, p) || (u != nil && uidIn(u.Failed, p.UID)) {
			continue
		}
		if isIndexed(job) {
			if _, ok := podIndex(job, p); !ok {
				continue
			}
		}
		if policyAction(job, p) == batchv1.PodFailurePolicyActionIgnore {
			continue
		}
		n++
	}
	return n
}

// failureReasonHolds returns "" when the reason for failing holds in the
// snapshot, and what is missing otherwise.
func (k *Checker) failureReasonHolds(snap jobsync.Snapshot, st *batchv1.JobStatus, reason string) string {
	job := snap.Job
	switch reason {
	case batchv1.JobReasonBackoffLimitExceeded:
		failed := k.failedSoFar(snap)
		if failed > int(*job.Spec.BackoffLimit) {
			return ""
		}
		if job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure {
			var restarts int32
			for _, p := range snap.Pods {
				if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
					for _, cs := range append(slices.Clone(p.Status.ContainerStatuses), p.Status.InitContainerStatuses...) {
						restarts += cs.RestartCount
					}
				}
			}
			if restarts >= max(1, *job.Spec.BackoffLimit) {
				return ""
			}
			return fmt.Sprintf("%d failures and %d restarts, backoffLimit %d", failed, restarts, *job.Spec.BackoffLimit)
		}
		return fmt.Sprintf("%d failures, backoffLimit %d", failed, *job.Spec.BackoffLimit)
	case batchv1.JobReasonDeadlineExceeded:
		ads := job.Spec.ActiveDeadlineSeconds
		if ads == nil {
			return "no activeDeadlineSeconds"
		}
		if job.Spec.Suspend != nil && *job.Spec.Suspend {
			return "the Job is suspended"
		}
		start := job.Status.StartTime
		if start == nil || snap.Now.Sub(start.Time) < time.Duration(*ads)*time.Second {
			return fmt.Sprintf("startTime %v and activeDeadlineSeconds %d", start, *ads)
		}
		return ""
	case batchv1.JobReasonPodFailurePolicy:
		for _, p := range snap.Pods {
			if failedPod(job, p) && policyAction(job, p) == batchv1.PodFailurePolicyActionFailJob {
				return ""
			}
		}
		return "no failed pod matches a FailJob rule"
	case batchv1.JobReasonMaxFailedIndexesExceeded:
		if job.Spec.MaxFailedIndexes == nil || st.FailedIndexes == nil {
			return "no maxFailedIndexes or failedIndexes"
		}
		if n := indexes.ParseLenient(*st.FailedIndexes, int(*job.Spec.Completions)).Total(); n <= int(*job.Spec.MaxFailedIndexes) {
			return fmt.Sprintf("%d failed indexes, maxFailedIndexes %d", n, *job.Spec.MaxFailedIndexes)
		}
		return ""
	case batchv1.JobReasonFailedIndexes:
		if st.FailedIndexes == nil || *st.FailedIndexes == "" {
			return "no failed index"
		}
		c := int(*job.Spec.Completions)
		failed := indexes.ParseLenient(*st.FailedIndexes, c)
		done := indexes.ParseLenient(st.CompletedIndexes, c)
		if failed.Union(done).Total() < c {
			return fmt.Sprintf("indexes %q failed and %q completed of %d", *st.FailedIndexes, st.CompletedIndexes, c)
		}
		return ""
	}
	return "an unknown reason"
}

// successHolds returns "" when the reason for success holds.
func (k *Checker) successHolds(snap jobsync.Snapshot, st *batchv1.JobStatus, reason string) string {
	job := snap.Job
	switch reason {
	case batchv1.JobReasonSuccessPolicy:
		if !isIndexed(job) || job.Spec.SuccessPolicy == nil {
			return "no success policy"
		}
		if !successPolicyMet(job, indexes.ParseLenient(st.CompletedIndexes, int(*job.Spec.Completions))) {
			return fmt.Sprintf("completed indexes %q meet no rule", st.CompletedIndexes)
		}
		return ""
	case batchv1.JobReasonCompletionsReached:
		if st.Active != 0 {
			return fmt.Sprintf("%d pods are active", st.Active)
		}
		if isIndexed(job) {
			c := int(*job.Spec.Completions)
			if n := indexes.ParseLenient(st.CompletedIndexes, c).Total(); n < c {
				return fmt.Sprintf("%d of %d indexes completed", n, c)
			}
			return ""
		}
		n := int(job.Status.Succeeded)
		u := job.Status.UncountedTerminatedPods
		if u != nil {
			n += len(u.Succeeded)
		}
		for _, p := range tracked(snap, k.fin) {
			if p.Status.Phase == corev1.PodSucceeded && (u == nil || !uidIn(u.Succeeded, p.UID)) {
				n++
			}
		}
		if job.Spec.Completions == nil {
			if n == 0 {
				return "no pod succeeded"
			}
			return ""
		}
		if n < int(*job.Spec.Completions) {
			return fmt.Sprintf("%d of %d completions", n, *job.Spec.Completions)
		}
		return ""
	}
	return "an unknown reason"
}

// checkComplete: the success criteria hold on the final status.
func (k *Checker) checkComplete(job *batchv1.Job) {
	st := &job.Status
	if isIndexed(job) {
		c := int(*job.Spec.Completions)
		done := indexes.ParseLenient(st.CompletedIndexes, c)
		if done.Total() == c {
			return
		}
		if job.Spec.SuccessPolicy != nil && successPolicyMet(job, done) {
			return
		}
		k.violate("outcome", "Complete with completed indexes %q of %d, success policy not met", st.CompletedIndexes, c)
		return
	}
	if job.Spec.Completions == nil {
		if st.Succeeded == 0 {
			k.violate("outcome", "Complete work queue without a succeeded pod")
		}
		return
	}
	if st.Succeeded < *job.Spec.Completions {
		k.violate("outcome", "Complete with %d of %d completions", st.Succeeded, *job.Spec.Completions)
	}
}

// checkTerminalCondition: Complete follows SuccessCriteriaMet and its
// criteria hold on the final status; Failed follows FailureTarget, with
// its reason.
func (k *Checker) checkTerminalCondition(job *batchv1.Job, complete bool) {
	st := &job.Status
	if complete {
		if conditionTrue(st, batchv1.JobSuccessCriteriaMet) == nil {
			k.violate("outcome", "Complete without SuccessCriteriaMet")
		}
		if len(k.scaledDown) == 0 {
			// After an elastic scale the criteria were checked when
			// SuccessCriteriaMet was written (checkInterimConditions); a
			// later change of completions does not undo it.
			k.checkComplete(job)
		}
		return
	}
	target := conditionTrue(st, batchv1.JobFailureTarget)
	failedCond := conditionTrue(st, batchv1.JobFailed)
	if target == nil || failedCond == nil || target.Reason != failedCond.Reason {
		k.violate("outcome", "Failed condition %v does not follow the FailureTarget condition %v", failedCond, target)
	}
}
