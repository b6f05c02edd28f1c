// Package adversarial draws snapshots meant to break Reconcile rather than
// to look like a healthy cluster: nil and odd values in every optional
// field, annotations on the wrong completion mode, every shape of owner
// reference, counters at the int32 limits, clocks before the Job's creation
// and centuries after it, uncounted UIDs that repeat or name no pod.
//
// The library's tests drive a property with it (no panic, no hang, no
// input mutation, no shared memory, the same plan whatever the pod order,
// the plan's safety contract); the conformance module drives upstream's
// controller with the same snapshots. It is internal because it is a test
// generator, not an API.
//
// Pod names are unique within a snapshot, as an informer (keyed by
// namespace and name) guarantees; UIDs may repeat.
package adversarial

import (
	"fmt"
	"math"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// Epoch is the creation time of every generated Job.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	jobName = "adv"
	jobUID  = types.UID("adv-uid")
	ns      = "ns"
)

// Snapshot draws one adversarial snapshot.
func Snapshot(t *rapid.T) jobsync.Snapshot {
	now := drawTime(t, "now")
	job := drawJob(t, now)
	n := rapid.IntRange(0, 8).Draw(t, "pods")
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		pods = append(pods, drawPod(t, job, i, now))
	}
	// Some UIDs repeat: an informer never holds two pods with one UID, but
	// a caller's hand-built snapshot may.
	if len(pods) > 1 && rapid.IntRange(0, 9).Draw(t, "repeatUID") == 0 {
		i := rapid.IntRange(1, len(pods)-1).Draw(t, "repeatAt")
		pods[i].UID = pods[0].UID
	}
	drawUncounted(t, job, pods)
	return jobsync.Snapshot{Job: job, Pods: pods, Now: now, Expectations: drawExpectations(t, pods, now), Backoff: drawBackoff(t, now)}
}

// drawTime is a clock reading around Epoch: usually within the hour after
// it, sometimes before the Job existed or centuries later.
func drawTime(t *rapid.T, label string) time.Time {
	switch rapid.IntRange(0, 9).Draw(t, label+"Kind") {
	case 0:
		return Epoch.Add(-time.Duration(rapid.IntRange(1, 86400).Draw(t, label+"Before")) * time.Second)
	case 1:
		return Epoch.AddDate(rapid.IntRange(1, 250).Draw(t, label+"Years"), 0, 0)
	default:
		return Epoch.Add(time.Duration(rapid.IntRange(0, 3600).Draw(t, label+"Sec")) * time.Second)
	}
}

// int32Near draws small values and values near the int32 limits.
func int32Near(t *rapid.T, label string, small int) int32 {
	switch rapid.IntRange(0, 11).Draw(t, label+"Kind") {
	case 0:
		return math.MaxInt32 - int32(rapid.IntRange(0, 3).Draw(t, label+"FromMax"))
	case 1:
		return -int32(rapid.IntRange(1, 2).Draw(t, label+"Negative"))
	default:
		return int32(rapid.IntRange(0, small).Draw(t, label))
	}
}

// optInt32 is nil, or int32Near.
func optInt32(t *rapid.T, label string, small int) *int32 {
	if rapid.IntRange(0, 4).Draw(t, label+"Nil") == 0 {
		return nil
	}
	v := int32Near(t, label, small)
	return &v
}

func ptr[T any](v T) *T { return &v }

func drawJob(t *rapid.T, now time.Time) *batchv1.Job {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: jobName, Namespace: ns, UID: jobUID, CreationTimestamp: metav1.NewTime(Epoch), ResourceVersion: "1"},
	}
	labels := map[string]string{batchv1.ControllerUidLabel: string(jobUID), batchv1.JobNameLabel: jobName}
	spec := &job.Spec
	switch rapid.IntRange(0, 9).Draw(t, "selector") {
	case 0:
		spec.Selector = nil
	case 1:
		spec.Selector = &metav1.LabelSelector{} // selects every pod
	case 2:
		spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: batchv1.JobNameLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{jobName, "other"}}}}
	case 3:
		spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(jobUID), batchv1.JobNameLabel: jobName}}
	default:
		spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(jobUID)}}
	}
	spec.ManualSelector = rapid.SampledFrom([]*bool{nil, ptr(false), ptr(true)}).Draw(t, "manualSelector")
	spec.Template.Labels = labels
	if rapid.IntRange(0, 9).Draw(t, "templateNoLabels") == 0 {
		spec.Template.Labels = nil
	}
	switch rapid.IntRange(0, 7).Draw(t, "templateAnnotations") {
	case 0:
		spec.Template.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "0"}
	case 1:
		spec.Template.Annotations = map[string]string{batchv1.JobIndexFailureCountAnnotation: "3"}
	}
	spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	spec.Template.Spec.RestartPolicy = rapid.SampledFrom([]corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}).Draw(t, "restartPolicy")

	spec.Parallelism = optInt32(t, "parallelism", 5)
	if spec.Parallelism == nil && rapid.Bool().Draw(t, "parallelismDefaulted") {
		spec.Parallelism = ptr(int32(1))
	}
	spec.Completions = optInt32(t, "completions", 6)
	spec.BackoffLimit = optInt32(t, "backoffLimit", 6)
	if spec.BackoffLimit == nil && rapid.Bool().Draw(t, "backoffLimitDefaulted") {
		spec.BackoffLimit = ptr(int32(6))
	}
	spec.CompletionMode = rapid.SampledFrom([]*batchv1.CompletionMode{
		nil, ptr(batchv1.NonIndexedCompletion), ptr(batchv1.NonIndexedCompletion), ptr(batchv1.IndexedCompletion), ptr(batchv1.IndexedCompletion), ptr(batchv1.CompletionMode("Bogus")),
	}).Draw(t, "completionMode")
	if rapid.IntRange(0, 2).Draw(t, "withPerIndex") == 0 {
		spec.BackoffLimitPerIndex = ptr(int32Near(t, "backoffLimitPerIndex", 2))
	}
	if rapid.IntRange(0, 3).Draw(t, "withMaxFailedIndexes") == 0 {
		spec.MaxFailedIndexes = ptr(int32Near(t, "maxFailedIndexes", 3))
	}
	switch rapid.IntRange(0, 5).Draw(t, "deadline") {
	case 0:
		spec.ActiveDeadlineSeconds = ptr(int64(0))
	case 1:
		spec.ActiveDeadlineSeconds = ptr(int64(rapid.IntRange(1, 3600).Draw(t, "deadlineSec")))
	case 2:
		spec.ActiveDeadlineSeconds = ptr(rapid.SampledFrom([]int64{-1, math.MaxInt64, 9223372036, 9223372037}).Draw(t, "deadlineOdd"))
	}
	spec.Suspend = rapid.SampledFrom([]*bool{nil, ptr(false), ptr(false), ptr(true)}).Draw(t, "suspend")
	spec.PodReplacementPolicy = rapid.SampledFrom([]*batchv1.PodReplacementPolicy{
		nil, ptr(batchv1.TerminatingOrFailed), ptr(batchv1.Failed), ptr(batchv1.PodReplacementPolicy("Bogus")),
	}).Draw(t, "podReplacementPolicy")
	if rapid.IntRange(0, 3).Draw(t, "withPFP") == 0 {
		spec.PodFailurePolicy = drawFailurePolicy(t)
	}
	if rapid.IntRange(0, 3).Draw(t, "withSuccessPolicy") == 0 {
		spec.SuccessPolicy = drawSuccessPolicy(t)
	}
	spec.ManagedBy = rapid.SampledFrom([]*string{nil, nil, nil, ptr("kubernetes.io/job-controller"), ptr("example.com/other")}).Draw(t, "managedBy")
	if rapid.IntRange(0, 9).Draw(t, "deleting") == 0 {
		job.DeletionTimestamp = ptr(metav1.NewTime(drawTime(t, "jobDeleted")))
	}
	drawJobStatus(t, job, now)
	return job
}

func drawFailurePolicy(t *rapid.T) *batchv1.PodFailurePolicy {
	actions := []batchv1.PodFailurePolicyAction{
		batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount,
		batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyAction("Bogus"),
	}
	var rules []batchv1.PodFailurePolicyRule
	for i := range rapid.IntRange(0, 3).Draw(t, "pfpRules") {
		rule := batchv1.PodFailurePolicyRule{Action: rapid.SampledFrom(actions).Draw(t, fmt.Sprintf("pfpAction%d", i))}
		switch rapid.IntRange(0, 3).Draw(t, "pfpOn") {
		case 0:
			rule.OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
		case 1:
			rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{0, 1}}
		case 2:
			rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}, ContainerName: ptr(rapid.SampledFrom([]string{"main", "absent"}).Draw(t, "pfpContainer"))}
		default:
			// Neither requirement: a rule the API server refuses.
		}
		rules = append(rules, rule)
	}
	return &batchv1.PodFailurePolicy{Rules: rules}
}

func drawSuccessPolicy(t *rapid.T) *batchv1.SuccessPolicy {
	var rules []batchv1.SuccessPolicyRule
	for range rapid.IntRange(0, 2).Draw(t, "spRules") {
		var rule batchv1.SuccessPolicyRule
		if rapid.Bool().Draw(t, "spIndexes") {
			rule.SucceededIndexes = ptr(rapid.SampledFrom([]string{"0", "0-2", "1,3", "5-2", "x", "", "0-2147483647"}).Draw(t, "spIndexesValue"))
		}
		if rapid.Bool().Draw(t, "spCount") {
			rule.SucceededCount = ptr(int32Near(t, "spCountValue", 3))
		}
		rules = append(rules, rule)
	}
	return &batchv1.SuccessPolicy{Rules: rules}
}

func drawJobStatus(t *rapid.T, job *batchv1.Job, now time.Time) {
	st := &job.Status
	if rapid.IntRange(0, 4).Draw(t, "noStart") != 0 {
		st.StartTime = ptr(metav1.NewTime(drawTime(t, "start")))
	}
	st.Active = int32Near(t, "statusActive", 4)
	st.Succeeded = int32Near(t, "statusSucceeded", 3)
	st.Failed = int32Near(t, "statusFailed", 3)
	st.Ready = optInt32(t, "statusReady", 3)
	st.Terminating = optInt32(t, "statusTerminating", 2)
	st.CompletedIndexes = rapid.SampledFrom([]string{"", "", "0", "0-1", "1,3", "3-1,3,1", "x", "0-2147483647", "5,2", ",", "0,0"}).Draw(t, "completedIndexes")
	st.FailedIndexes = rapid.SampledFrom([]*string{nil, nil, ptr(""), ptr("2"), ptr("1-"), ptr("99999999999"), ptr("0,0")}).Draw(t, "failedIndexes")
	conds := []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded, Message: "Job has reached the specified backoff limit"},
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: "Reached expected number of succeeded pods"},
		{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended", Message: "Job suspended"},
		{Type: batchv1.JobSuspended, Status: corev1.ConditionFalse, Reason: "JobResumed", Message: "Job resumed"},
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionFalse},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded},
		{Type: batchv1.JobComplete, Status: corev1.ConditionFalse},
		{Type: batchv1.JobConditionType("Bogus"), Status: corev1.ConditionStatus("Maybe")},
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "conditions") {
		c := rapid.SampledFrom(conds).Draw(t, fmt.Sprintf("condition%d", i))
		c.LastTransitionTime = metav1.NewTime(drawTime(t, "conditionTime"))
		st.Conditions = append(st.Conditions, c)
	}
	if rapid.IntRange(0, 9).Draw(t, "completionTime") == 0 {
		st.CompletionTime = ptr(metav1.NewTime(drawTime(t, "completed")))
	}
}

// drawUncounted fills status.uncountedTerminatedPods: nil, empty, or with
// the UIDs of some pods (terminated or not), of no pod, and repeated.
func drawUncounted(t *rapid.T, job *batchv1.Job, pods []*corev1.Pod) {
	switch rapid.IntRange(0, 5).Draw(t, "uncounted") {
	case 0:
		return
	case 1:
		job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
		return
	}
	u := &batchv1.UncountedTerminatedPods{}
	for _, p := range pods {
		switch rapid.IntRange(0, 5).Draw(t, "uncountedPod") {
		case 0:
			u.Succeeded = append(u.Succeeded, p.UID)
		case 1:
			u.Failed = append(u.Failed, p.UID)
		}
	}
	if rapid.IntRange(0, 4).Draw(t, "uncountedGone") == 0 {
		u.Failed = append(u.Failed, "gone")
	}
	if rapid.IntRange(0, 4).Draw(t, "uncountedRepeat") == 0 {
		if len(u.Failed) > 0 {
			u.Failed = append(u.Failed, u.Failed[0])
		}
		if len(u.Succeeded) > 0 {
			u.Succeeded = append(u.Succeeded, u.Succeeded[0])
		}
	}
	job.Status.UncountedTerminatedPods = u
}

func drawPod(t *rapid.T, job *batchv1.Job, i int, now time.Time) *corev1.Pod {
	name := fmt.Sprintf("%s-%d", jobName, i)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(drawTime(t, "created")),
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}, RestartPolicy: corev1.RestartPolicyNever},
	}
	if rapid.IntRange(0, 11).Draw(t, "otherNamespace") == 0 {
		p.Namespace = "elsewhere"
	}
	switch rapid.IntRange(0, 9).Draw(t, "labels") {
	case 0:
		p.Labels = nil
	case 1:
		p.Labels = map[string]string{batchv1.JobNameLabel: "other"}
	default:
		p.Labels = map[string]string{batchv1.ControllerUidLabel: string(jobUID), batchv1.JobNameLabel: jobName}
	}
	p.OwnerReferences = drawOwners(t, job)
	switch rapid.IntRange(0, 9).Draw(t, "finalizers") {
	case 0:
	case 1:
		p.Finalizers = []string{"example.com/other"}
	case 2:
		p.Finalizers = []string{batchv1.JobTrackingFinalizer, batchv1.JobTrackingFinalizer}
	default:
		p.Finalizers = []string{batchv1.JobTrackingFinalizer}
	}
	drawAnnotations(t, p)
	phase := rapid.SampledFrom([]corev1.PodPhase{"", corev1.PodPending, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodFailed, corev1.PodUnknown, "Bogus"}).Draw(t, "phase")
	p.Status.Phase = phase
	drawContainerStatus(t, p)
	if rapid.IntRange(0, 4).Draw(t, "podConditions") == 0 {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type:               rapid.SampledFrom([]corev1.PodConditionType{corev1.PodReady, corev1.DisruptionTarget, corev1.PodReady}).Draw(t, "podConditionType"),
			Status:             rapid.SampledFrom([]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, "Bogus"}).Draw(t, "podConditionStatus"),
			LastTransitionTime: metav1.NewTime(drawTime(t, "podConditionTime")),
		})
	}
	if rapid.IntRange(0, 5).Draw(t, "beingDeleted") == 0 {
		p.DeletionTimestamp = ptr(metav1.NewTime(drawTime(t, "podDeleted")))
		if rapid.Bool().Draw(t, "grace") {
			p.DeletionGracePeriodSeconds = ptr(int64(30))
		}
	}
	return p
}

// drawOwners draws every shape of owner reference: none, the Job's
// controller reference, one to another Job, a non-controller reference to
// the Job, a controller of another kind, Controller unset, several.
func drawOwners(t *rapid.T, job *batchv1.Job) []metav1.OwnerReference {
	own := *metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))
	switch rapid.IntRange(0, 11).Draw(t, "owner") {
	case 0:
		return nil
	case 1:
		return []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "other", UID: "other-uid", Controller: ptr(true)}}
	case 2:
		return []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: jobName, UID: jobUID}}
	case 3:
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: ptr(true)}}
	case 4:
		return []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: jobName, UID: jobUID, Controller: ptr(false)}}
	case 5:
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}, own}
	case 6:
		return []metav1.OwnerReference{own, {APIVersion: "batch/v1", Kind: "Job", Name: "other", UID: "other-uid", Controller: ptr(true)}}
	default:
		return []metav1.OwnerReference{own}
	}
}

// drawAnnotations gives a pod no annotation map at all, or index and
// failure-count annotations well or badly formed, whatever the Job's mode.
func drawAnnotations(t *rapid.T, p *corev1.Pod) {
	if rapid.IntRange(0, 5).Draw(t, "nilAnnotations") == 0 {
		return
	}
	p.Annotations = map[string]string{}
	switch rapid.IntRange(0, 5).Draw(t, "indexAnnotation") {
	case 0:
	case 1:
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = rapid.SampledFrom([]string{"", "-1", "x", "+2", "002", "2147483647", "99999999999999999999", " 1"}).Draw(t, "indexOdd")
	default:
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(rapid.IntRange(0, 6).Draw(t, "index"))
	}
	switch rapid.IntRange(0, 3).Draw(t, "failureCount") {
	case 0:
		p.Annotations[batchv1.JobIndexFailureCountAnnotation] = rapid.SampledFrom([]string{"0", "1", "2", "-1", "x", "2147483647", "2147483648"}).Draw(t, "failureCountValue")
	case 1:
		p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = rapid.SampledFrom([]string{"0", "1", "2147483647", "x"}).Draw(t, "ignoredCountValue")
	}
}

// drawContainerStatus gives the pod a container that runs, or ended at a
// time that may be unset, before the pod's creation or far ahead, with any
// exit code; or none at all.
func drawContainerStatus(t *rapid.T, p *corev1.Pod) {
	if rapid.IntRange(0, 4).Draw(t, "noContainerStatus") == 0 {
		return
	}
	cs := corev1.ContainerStatus{Name: rapid.SampledFrom([]string{"main", "main", "absent"}).Draw(t, "containerName"), RestartCount: int32Near(t, "restarts", 2)}
	if rapid.Bool().Draw(t, "terminated") {
		var finished metav1.Time
		if rapid.IntRange(0, 4).Draw(t, "finishedZero") != 0 {
			finished = metav1.NewTime(drawTime(t, "finished"))
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: rapid.SampledFrom([]int32{0, 1, 42, 137, -1}).Draw(t, "exitCode"), FinishedAt: finished}
	} else {
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: p.CreationTimestamp}
		cs.Ready = rapid.Bool().Draw(t, "containerReady")
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
}

// drawExpectations draws the controller memory: unset, pending creations or
// deletions (negative ones too), finalizer removals of some pods and of
// none, and the finished marker.
func drawExpectations(t *rapid.T, pods []*corev1.Pod, now time.Time) expectations.Expectations {
	var e expectations.Expectations
	if rapid.IntRange(0, 3).Draw(t, "withExpectations") == 0 {
		e.Creations = int64(rapid.IntRange(-2, 3).Draw(t, "expCreations"))
		e.Deletions = int64(rapid.IntRange(-2, 3).Draw(t, "expDeletions"))
		e.SetAt = drawTime(t, "expSetAt")
	}
	for _, p := range pods {
		if rapid.IntRange(0, 7).Draw(t, "expectRemoval") == 0 {
			e.FinalizerRemovals = e.FinalizerRemovals.Add(p.UID)
		}
	}
	if rapid.IntRange(0, 9).Draw(t, "expectGone") == 0 {
		e.FinalizerRemovals = e.FinalizerRemovals.Add("gone")
	}
	e.JobFinished = rapid.IntRange(0, 19).Draw(t, "jobFinished") == 0
	return e
}

// drawBackoff draws the backoff record: none, small, near the int32 limits,
// negative, with a failure time in the past or the future.
func drawBackoff(t *rapid.T, now time.Time) backoff.Record {
	if rapid.IntRange(0, 2).Draw(t, "withBackoff") == 0 {
		return backoff.Record{}
	}
	r := backoff.Record{FailuresAfterLastSuccess: int32Near(t, "backoffFailures", 5)}
	if rapid.IntRange(0, 5).Draw(t, "backoffNoTime") != 0 {
		r.LastFailureTime = ptr(drawTime(t, "backoffLast"))
	}
	return r
}
