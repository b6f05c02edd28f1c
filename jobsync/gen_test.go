package jobsync_test

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
)

var genEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// genSnapshot draws a snapshot as an API server and kubelets could produce
// it: a defaulted Job of any completion mode and policy, pods in consistent
// phases with statuses, deletion timestamps, finalizers and indexes, some
// already recorded in uncountedTerminatedPods, and controller memory.
func genSnapshot(t *rapid.T) jobsync.Snapshot {
	now := genEpoch.Add(time.Duration(rapid.IntRange(0, 3600).Draw(t, "nowSec")) * time.Second)
	job := genJob(t, now)
	n := rapid.IntRange(0, 7).Draw(t, "pods")
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		pods = append(pods, genPod(t, job, i, now))
	}
	// Some terminated pods may already be recorded as uncounted.
	u := job.Status.UncountedTerminatedPods
	for _, p := range pods {
		if !rapid.Bool().Draw(t, "recorded") {
			continue
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
				u.Succeeded = append(u.Succeeded, p.UID)
			}
		case corev1.PodFailed:
			u.Failed = append(u.Failed, p.UID)
		default:
			// A failing Job records its active pods as failed when it
			// deletes them; the next sync may still see one active.
			if rapid.IntRange(0, 3).Draw(t, "activeRecordedFailed") == 0 {
				u.Failed = append(u.Failed, p.UID)
			}
		}
	}
	var exp expectations.Expectations
	if rapid.IntRange(0, 3).Draw(t, "withExpectations") == 0 {
		exp.Creations = int64(rapid.IntRange(-1, 2).Draw(t, "expCreations"))
		exp.Deletions = int64(rapid.IntRange(-1, 2).Draw(t, "expDeletions"))
		exp.SetAt = now.Add(-time.Duration(rapid.IntRange(0, 600).Draw(t, "expAge")) * time.Second)
	}
	for _, p := range pods {
		if rapid.IntRange(0, 9).Draw(t, "expectRemoval") == 0 {
			exp = exp.ExpectFinalizerRemovals(p.UID)
		}
	}
	var rec backoff.Record
	if f := rapid.IntRange(0, 4).Draw(t, "backoffFailures"); f > 0 {
		last := now.Add(-time.Duration(rapid.IntRange(0, 120).Draw(t, "backoffAge")) * time.Second)
		rec = backoff.Record{FailuresAfterLastSuccess: int32(f), LastFailureTime: &last}
	}
	return jobsync.Snapshot{Job: job, Pods: pods, Now: now, Expectations: exp, Backoff: rec}
}

func genJob(t *rapid.T, now time.Time) *batchv1.Job {
	indexed := rapid.Bool().Draw(t, "indexed")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "ns", UID: "job-uid", CreationTimestamp: metav1.NewTime(genEpoch)},
	}
	labels := map[string]string{batchv1.ControllerUidLabel: "job-uid", batchv1.JobNameLabel: "job"}
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: "job-uid"}}
	job.Spec.Template.Labels = labels
	job.Spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	if rapid.IntRange(0, 5).Draw(t, "onFailure") == 0 {
		job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	}
	job.Spec.Parallelism = ptr(int32(rapid.IntRange(0, 8).Draw(t, "parallelism")))
	job.Spec.BackoffLimit = ptr(int32(rapid.SampledFrom([]int{0, 1, 3, 6, 6, 10}).Draw(t, "backoffLimit")))
	mode := batchv1.NonIndexedCompletion
	if indexed {
		mode = batchv1.IndexedCompletion
	}
	job.Spec.CompletionMode = &mode
	if indexed || rapid.Bool().Draw(t, "withCompletions") {
		job.Spec.Completions = ptr(int32(rapid.IntRange(0, 6).Draw(t, "completions")))
	}
	job.Spec.Suspend = ptr(rapid.IntRange(0, 5).Draw(t, "suspend") == 0)
	if rapid.IntRange(0, 3).Draw(t, "withDeadline") == 0 {
		job.Spec.ActiveDeadlineSeconds = ptr(int64(rapid.IntRange(1, 3600).Draw(t, "deadline")))
	}
	if indexed && rapid.Bool().Draw(t, "perIndex") {
		job.Spec.BackoffLimitPerIndex = ptr(int32(rapid.IntRange(0, 2).Draw(t, "backoffLimitPerIndex")))
		job.Spec.BackoffLimit = ptr(int32(2147483647))
		if rapid.Bool().Draw(t, "withMaxFailedIndexes") {
			job.Spec.MaxFailedIndexes = ptr(int32(rapid.IntRange(0, 3).Draw(t, "maxFailedIndexes")))
		}
	}
	if indexed && rapid.IntRange(0, 3).Draw(t, "withSuccessPolicy") == 0 {
		rule := batchv1.SuccessPolicyRule{}
		if rapid.Bool().Draw(t, "ruleIndexes") {
			rule.SucceededIndexes = ptr(rapid.SampledFrom([]string{"0", "0-1", "1,3", "2-4"}).Draw(t, "succeededIndexes"))
		}
		if rule.SucceededIndexes == nil || rapid.Bool().Draw(t, "ruleCount") {
			rule.SucceededCount = ptr(int32(rapid.IntRange(1, 3).Draw(t, "succeededCount")))
		}
		job.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{rule}}
	}
	if job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyNever && rapid.IntRange(0, 3).Draw(t, "withPFP") == 0 {
		action := rapid.SampledFrom([]batchv1.PodFailurePolicyAction{
			batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount,
		}).Draw(t, "pfpAction")
		if job.Spec.BackoffLimitPerIndex != nil && rapid.Bool().Draw(t, "failIndex") {
			action = batchv1.PodFailurePolicyActionFailIndex
		}
		job.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
			{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}},
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
		}}
	}
	policy := batchv1.TerminatingOrFailed
	if job.Spec.PodFailurePolicy != nil || rapid.Bool().Draw(t, "replaceFailedOnly") {
		policy = batchv1.Failed
	}
	job.Spec.PodReplacementPolicy = &policy

	st := &job.Status
	st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	if !*job.Spec.Suspend || rapid.Bool().Draw(t, "suspendedAfterStart") {
		start := now.Add(-time.Duration(rapid.IntRange(0, 3600).Draw(t, "age")) * time.Second)
		st.StartTime = ptr(metav1.NewTime(start))
	}
	st.Active = int32(rapid.IntRange(0, 4).Draw(t, "statusActive"))
	st.Ready = ptr(int32(rapid.IntRange(0, int(st.Active)).Draw(t, "statusReady")))
	st.Terminating = ptr(int32(rapid.IntRange(0, 2).Draw(t, "statusTerminating")))
	if indexed {
		c := int(*job.Spec.Completions)
		var done []int
		for i := range c {
			if rapid.IntRange(0, 3).Draw(t, "indexDone") == 0 {
				done = append(done, i)
			}
		}
		st.CompletedIndexes = indexes.Set(nil).WithIndexes(done).String()
		st.Succeeded = int32(len(done))
		if job.Spec.BackoffLimitPerIndex != nil {
			st.FailedIndexes = ptr("")
		}
	} else {
		st.Succeeded = int32(rapid.IntRange(0, 3).Draw(t, "statusSucceeded"))
	}
	st.Failed = int32(rapid.IntRange(0, 2).Draw(t, "statusFailed"))
	switch rapid.IntRange(0, 9).Draw(t, "priorCondition") {
	case 0:
		st.Conditions = append(st.Conditions, batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded, Message: "Job has reached the specified backoff limit"})
	case 1:
		st.Conditions = append(st.Conditions, batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: "Reached expected number of succeeded pods"})
	case 2:
		st.Conditions = append(st.Conditions, batchv1.JobCondition{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended", Message: "Job suspended"})
	}
	if rapid.IntRange(0, 9).Draw(t, "deleting") == 0 {
		job.DeletionTimestamp = ptr(metav1.NewTime(now))
	}
	return job
}

func genPod(t *rapid.T, job *batchv1.Job, i int, now time.Time) *corev1.Pod {
	name := fmt.Sprintf("job-%d", i)
	created := genEpoch.Add(time.Duration(rapid.IntRange(0, 3600).Draw(t, "created")) * time.Second)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(created),
			Labels:          map[string]string{batchv1.ControllerUidLabel: "job-uid", batchv1.JobNameLabel: "job"},
			Annotations:     map[string]string{},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: *job.Spec.Template.Spec.DeepCopy(),
	}
	if rapid.IntRange(0, 7).Draw(t, "finalizer") != 0 {
		p.Finalizers = []string{batchv1.JobTrackingFinalizer}
	}
	if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion {
		c := int(*job.Spec.Completions)
		ix := rapid.IntRange(-1, c).Draw(t, "index")
		if ix >= 0 {
			p.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(ix)
		} else if rapid.Bool().Draw(t, "malformedIndex") {
			p.Annotations[batchv1.JobCompletionIndexAnnotation] = "x"
		}
		if job.Spec.BackoffLimitPerIndex != nil {
			p.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(rapid.IntRange(0, 3).Draw(t, "failureCount"))
		}
	}
	phase := rapid.SampledFrom([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, "phase")
	p.Status.Phase = phase
	if phase != corev1.PodPending {
		p.Spec.NodeName = "node-1"
	}
	cs := corev1.ContainerStatus{Name: "main", RestartCount: int32(rapid.IntRange(0, 2).Draw(t, "restarts"))}
	ready := false
	switch phase {
	case corev1.PodRunning:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(created)}
		ready = rapid.Bool().Draw(t, "ready")
	case corev1.PodSucceeded, corev1.PodFailed:
		exit := int32(0)
		if phase == corev1.PodFailed {
			exit = rapid.SampledFrom([]int32{1, 42, 137}).Draw(t, "exit")
		}
		finished := created.Add(time.Duration(rapid.IntRange(0, 600).Draw(t, "runSec")) * time.Second)
		if finished.After(now) {
			finished = now
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: exit, FinishedAt: metav1.NewTime(finished)}
		if phase == corev1.PodFailed && rapid.IntRange(0, 4).Draw(t, "disrupted") == 0 {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue})
		}
	}
	if phase != corev1.PodPending {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	}
	readyStatus := corev1.ConditionFalse
	if ready {
		readyStatus = corev1.ConditionTrue
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: readyStatus, LastTransitionTime: metav1.NewTime(created)})
	if rapid.IntRange(0, 5).Draw(t, "beingDeleted") == 0 {
		p.DeletionTimestamp = ptr(metav1.NewTime(now))
		p.DeletionGracePeriodSeconds = ptr(int64(30))
	}
	return p
}

func ptrTime(t time.Time) *metav1.Time { v := metav1.NewTime(t); return &v }
