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
	"hash/fnv"
	"math"
	"math/rand/v2"
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

// Snapshot draws one adversarial snapshot from a rapid property, which then
// shrinks a failing one to its smallest form.
func Snapshot(t *rapid.T) jobsync.Snapshot { return draw(&drawer{t: t}) }

// FromBytes builds one adversarial snapshot from a fuzzer's input: each
// choice takes the next bytes of data, and once data runs out, numbers from
// a generator seeded with data. Every input makes a full snapshot (a short
// one is not a degenerate one), and the fuzzer's mutations of the leading
// bytes steer the first choices: the shape of the Job, its policies.
func FromBytes(data []byte) jobsync.Snapshot {
	h := fnv.New64a()
	h.Write(data)
	seed := h.Sum64()
	return draw(&drawer{data: data, rng: rand.New(rand.NewPCG(seed, seed>>7|1))})
}

// drawer makes the choices of the generator: with rapid, or from bytes.
type drawer struct {
	t    *rapid.T
	data []byte
	rng  *rand.Rand
}

// intRange chooses an int in [lo, hi].
func (d *drawer) intRange(lo, hi int, label string) int {
	if d.t != nil {
		return rapid.IntRange(lo, hi).Draw(d.t, label)
	}
	span := uint64(hi - lo + 1)
	var v uint64
	switch {
	case len(d.data) >= 2 && span > 256:
		v = uint64(d.data[0])<<8 | uint64(d.data[1])
		d.data = d.data[2:]
	case len(d.data) >= 1:
		v = uint64(d.data[0])
		d.data = d.data[1:]
	default:
		v = d.rng.Uint64()
	}
	return lo + int(v%span)
}

func (d *drawer) bool(label string) bool { return d.intRange(0, 1, label) == 1 }

// pick chooses one of xs.
func pick[T any](d *drawer, xs []T, label string) T {
	if d.t != nil {
		return rapid.SampledFrom(xs).Draw(d.t, label)
	}
	return xs[d.intRange(0, len(xs)-1, label)]
}

func draw(d *drawer) jobsync.Snapshot {
	now := drawTime(d, "now")
	job := drawJob(d, now)
	n := d.intRange(0, 8, "pods")
	pods := make([]*corev1.Pod, 0, n)
	for i := range n {
		pods = append(pods, drawPod(d, job, i, now))
	}
	// Some UIDs repeat: an informer never holds two pods with one UID, but
	// a caller's hand-built snapshot may.
	if len(pods) > 1 && d.intRange(0, 9, "repeatUID") == 0 {
		i := d.intRange(1, len(pods)-1, "repeatAt")
		pods[i].UID = pods[0].UID
	}
	drawUncounted(d, job, pods)
	return jobsync.Snapshot{Job: job, Pods: pods, Now: now, Expectations: drawExpectations(d, pods, now), Backoff: drawBackoff(d, now)}
}

// drawTime is a clock reading around Epoch: usually within the hour after
// it, sometimes before the Job existed or centuries later.
func drawTime(d *drawer, label string) time.Time {
	switch d.intRange(0, 9, label+"Kind") {
	case 0:
		return Epoch.Add(-time.Duration(d.intRange(1, 86400, label+"Before")) * time.Second)
	case 1:
		return Epoch.AddDate(d.intRange(1, 250, label+"Years"), 0, 0)
	default:
		return Epoch.Add(time.Duration(d.intRange(0, 3600, label+"Sec")) * time.Second)
	}
}

// int32Near draws small values, values near the int32 limit (one in 20)
// and negative ones (one in 40, rare: most make an InputError, and a
// snapshot with one is no longer decided).
func int32Near(d *drawer, label string, small int) int32 {
	switch d.intRange(0, 39, label+"Kind") {
	case 0, 1:
		return math.MaxInt32 - int32(d.intRange(0, 3, label+"FromMax"))
	case 2:
		return -int32(d.intRange(1, 2, label+"Negative"))
	default:
		return int32(d.intRange(0, small, label))
	}
}

// optInt32 is nil, or int32Near.
func optInt32(d *drawer, label string, small int) *int32 {
	if d.intRange(0, 4, label+"Nil") == 0 {
		return nil
	}
	v := int32Near(d, label, small)
	return &v
}

func ptr[T any](v T) *T { return &v }

func drawJob(d *drawer, now time.Time) *batchv1.Job {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: jobName, Namespace: ns, UID: jobUID, CreationTimestamp: metav1.NewTime(Epoch), ResourceVersion: "1"},
	}
	labels := map[string]string{batchv1.ControllerUidLabel: string(jobUID), batchv1.JobNameLabel: jobName}
	spec := &job.Spec
	switch d.intRange(0, 9, "selector") {
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
	spec.ManualSelector = pick(d, []*bool{nil, ptr(false), ptr(true)}, "manualSelector")
	spec.Template.Labels = labels
	if d.intRange(0, 9, "templateNoLabels") == 0 {
		spec.Template.Labels = nil
	}
	switch d.intRange(0, 7, "templateAnnotations") {
	case 0:
		spec.Template.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "0"}
	case 1:
		spec.Template.Annotations = map[string]string{batchv1.JobIndexFailureCountAnnotation: "3"}
	}
	spec.Template.Spec.Containers = []corev1.Container{{Name: "main", Image: "busybox"}}
	spec.Template.Spec.RestartPolicy = pick(d, []corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}, "restartPolicy")

	spec.Parallelism = optInt32(d, "parallelism", 5)
	if spec.Parallelism == nil && d.intRange(0, 3, "parallelismDefaulted") != 0 {
		spec.Parallelism = ptr(int32(1))
	}
	spec.Completions = optInt32(d, "completions", 6)
	spec.BackoffLimit = optInt32(d, "backoffLimit", 6)
	if spec.BackoffLimit == nil && d.intRange(0, 3, "backoffLimitDefaulted") != 0 {
		spec.BackoffLimit = ptr(int32(6))
	}
	spec.CompletionMode = pick(d, []*batchv1.CompletionMode{
		nil, ptr(batchv1.NonIndexedCompletion), ptr(batchv1.NonIndexedCompletion), ptr(batchv1.NonIndexedCompletion), ptr(batchv1.NonIndexedCompletion),
		ptr(batchv1.IndexedCompletion), ptr(batchv1.IndexedCompletion), ptr(batchv1.IndexedCompletion), ptr(batchv1.IndexedCompletion), ptr(batchv1.IndexedCompletion),
		ptr(batchv1.CompletionMode("Bogus")),
	}, "completionMode")
	// Per-index backoff mostly where the API server allows it.
	perIndexOdds := 19
	if m := spec.CompletionMode; m != nil && *m == batchv1.IndexedCompletion {
		perIndexOdds = 2
	}
	if d.intRange(0, perIndexOdds, "withPerIndex") == 0 {
		spec.BackoffLimitPerIndex = ptr(int32Near(d, "backoffLimitPerIndex", 2))
	}
	if d.intRange(0, 3, "withMaxFailedIndexes") == 0 {
		spec.MaxFailedIndexes = ptr(int32Near(d, "maxFailedIndexes", 3))
	}
	switch d.intRange(0, 5, "deadline") {
	case 0:
		spec.ActiveDeadlineSeconds = ptr(int64(0))
	case 1:
		spec.ActiveDeadlineSeconds = ptr(int64(d.intRange(1, 3600, "deadlineSec")))
	case 2:
		spec.ActiveDeadlineSeconds = ptr(pick(d, []int64{-1, math.MaxInt64, 9223372036, 9223372037}, "deadlineOdd"))
	}
	spec.Suspend = pick(d, []*bool{nil, ptr(false), ptr(false), ptr(true)}, "suspend")
	spec.PodReplacementPolicy = pick(d, []*batchv1.PodReplacementPolicy{
		nil, ptr(batchv1.TerminatingOrFailed), ptr(batchv1.Failed), ptr(batchv1.PodReplacementPolicy("Bogus")),
	}, "podReplacementPolicy")
	if d.intRange(0, 3, "withPFP") == 0 {
		spec.PodFailurePolicy = drawFailurePolicy(d)
	}
	if d.intRange(0, 3, "withSuccessPolicy") == 0 {
		spec.SuccessPolicy = drawSuccessPolicy(d)
	}
	switch d.intRange(0, 19, "managedBy") {
	case 0:
		spec.ManagedBy = ptr("kubernetes.io/job-controller")
	case 1:
		spec.ManagedBy = ptr("example.com/other")
	}
	if d.intRange(0, 9, "deleting") == 0 {
		job.DeletionTimestamp = ptr(metav1.NewTime(drawTime(d, "jobDeleted")))
	}
	drawJobStatus(d, job, now)
	return job
}

func drawFailurePolicy(d *drawer) *batchv1.PodFailurePolicy {
	actions := []batchv1.PodFailurePolicyAction{
		batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount,
		batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyAction("Bogus"),
	}
	var rules []batchv1.PodFailurePolicyRule
	for i := range d.intRange(0, 3, "pfpRules") {
		rule := batchv1.PodFailurePolicyRule{Action: pick(d, actions, fmt.Sprintf("pfpAction%d", i))}
		switch d.intRange(0, 3, "pfpOn") {
		case 0:
			rule.OnPodConditions = []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
		case 1:
			rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{0, 1}}
		case 2:
			rule.OnExitCodes = &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}, ContainerName: ptr(pick(d, []string{"main", "absent"}, "pfpContainer"))}
		default:
			// Neither requirement: a rule the API server refuses.
		}
		rules = append(rules, rule)
	}
	return &batchv1.PodFailurePolicy{Rules: rules}
}

func drawSuccessPolicy(d *drawer) *batchv1.SuccessPolicy {
	var rules []batchv1.SuccessPolicyRule
	for range d.intRange(0, 2, "spRules") {
		var rule batchv1.SuccessPolicyRule
		if d.bool("spIndexes") {
			rule.SucceededIndexes = ptr(pick(d, []string{"0", "0-2", "1,3", "5-2", "x", "", "0-2147483647"}, "spIndexesValue"))
		}
		if d.bool("spCount") {
			rule.SucceededCount = ptr(int32Near(d, "spCountValue", 3))
		}
		rules = append(rules, rule)
	}
	return &batchv1.SuccessPolicy{Rules: rules}
}

func drawJobStatus(d *drawer, job *batchv1.Job, now time.Time) {
	st := &job.Status
	if d.intRange(0, 4, "noStart") != 0 {
		st.StartTime = ptr(metav1.NewTime(drawTime(d, "start")))
	}
	st.Active = int32Near(d, "statusActive", 4)
	st.Succeeded = int32Near(d, "statusSucceeded", 3)
	st.Failed = int32Near(d, "statusFailed", 3)
	st.Ready = optInt32(d, "statusReady", 3)
	st.Terminating = optInt32(d, "statusTerminating", 2)
	st.CompletedIndexes = pick(d, []string{"", "", "0", "0-1", "1,3", "3-1,3,1", "x", "0-2147483647", "5,2", ",", "0,0"}, "completedIndexes")
	st.FailedIndexes = pick(d, []*string{nil, nil, ptr(""), ptr("2"), ptr("1-"), ptr("99999999999"), ptr("0,0")}, "failedIndexes")
	conds := []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded, Message: "Job has reached the specified backoff limit"},
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: "Reached expected number of succeeded pods"},
		{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended", Message: "Job suspended"},
		{Type: batchv1.JobSuspended, Status: corev1.ConditionFalse, Reason: "JobResumed", Message: "Job resumed"},
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionFalse},
		{Type: batchv1.JobComplete, Status: corev1.ConditionFalse},
		{Type: batchv1.JobConditionType("Bogus"), Status: corev1.ConditionStatus("Maybe")},
	}
	// A Job already Complete or Failed is skipped: one in 15 only.
	finished := []batchv1.JobCondition{
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded},
	}
	for i := range pick(d, []int{0, 0, 0, 1, 1, 2}, "conditions") {
		c := pick(d, conds, fmt.Sprintf("condition%d", i))
		if d.intRange(0, 14, "finishedCondition") == 0 {
			c = pick(d, finished, "finished")
		}
		c.LastTransitionTime = metav1.NewTime(drawTime(d, "conditionTime"))
		st.Conditions = append(st.Conditions, c)
	}
	if d.intRange(0, 9, "completionTime") == 0 {
		st.CompletionTime = ptr(metav1.NewTime(drawTime(d, "completed")))
	}
}

// drawUncounted fills status.uncountedTerminatedPods: nil, empty, or with
// the UIDs of some pods (terminated or not), of no pod, and repeated.
func drawUncounted(d *drawer, job *batchv1.Job, pods []*corev1.Pod) {
	switch d.intRange(0, 5, "uncounted") {
	case 0:
		return
	case 1:
		job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
		return
	}
	u := &batchv1.UncountedTerminatedPods{}
	for _, p := range pods {
		switch d.intRange(0, 5, "uncountedPod") {
		case 0:
			u.Succeeded = append(u.Succeeded, p.UID)
		case 1:
			u.Failed = append(u.Failed, p.UID)
		}
	}
	if d.intRange(0, 4, "uncountedGone") == 0 {
		u.Failed = append(u.Failed, "gone")
	}
	if d.intRange(0, 4, "uncountedRepeat") == 0 {
		if len(u.Failed) > 0 {
			u.Failed = append(u.Failed, u.Failed[0])
		}
		if len(u.Succeeded) > 0 {
			u.Succeeded = append(u.Succeeded, u.Succeeded[0])
		}
	}
	job.Status.UncountedTerminatedPods = u
}

func drawPod(d *drawer, job *batchv1.Job, i int, now time.Time) *corev1.Pod {
	name := fmt.Sprintf("%s-%d", jobName, i)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(drawTime(d, "created")),
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}, RestartPolicy: corev1.RestartPolicyNever},
	}
	if d.intRange(0, 11, "otherNamespace") == 0 {
		p.Namespace = "elsewhere"
	}
	switch d.intRange(0, 9, "labels") {
	case 0:
		p.Labels = nil
	case 1:
		p.Labels = map[string]string{batchv1.JobNameLabel: "other"}
	default:
		p.Labels = map[string]string{batchv1.ControllerUidLabel: string(jobUID), batchv1.JobNameLabel: jobName}
	}
	p.OwnerReferences = drawOwners(d, job)
	switch d.intRange(0, 9, "finalizers") {
	case 0:
	case 1:
		p.Finalizers = []string{"example.com/other"}
	case 2:
		p.Finalizers = []string{batchv1.JobTrackingFinalizer, batchv1.JobTrackingFinalizer}
	default:
		p.Finalizers = []string{batchv1.JobTrackingFinalizer}
	}
	drawAnnotations(d, p)
	phase := pick(d, []corev1.PodPhase{"", corev1.PodPending, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodFailed, corev1.PodUnknown, "Bogus"}, "phase")
	p.Status.Phase = phase
	drawContainerStatus(d, p)
	if d.intRange(0, 4, "podConditions") == 0 {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type:               pick(d, []corev1.PodConditionType{corev1.PodReady, corev1.DisruptionTarget, corev1.PodReady}, "podConditionType"),
			Status:             pick(d, []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, "Bogus"}, "podConditionStatus"),
			LastTransitionTime: metav1.NewTime(drawTime(d, "podConditionTime")),
		})
	}
	if d.intRange(0, 5, "beingDeleted") == 0 {
		p.DeletionTimestamp = ptr(metav1.NewTime(drawTime(d, "podDeleted")))
		if d.bool("grace") {
			p.DeletionGracePeriodSeconds = ptr(int64(30))
		}
	}
	return p
}

// drawOwners draws every shape of owner reference: none, the Job's
// controller reference, one to another Job, a non-controller reference to
// the Job, a controller of another kind, Controller unset, several.
func drawOwners(d *drawer, job *batchv1.Job) []metav1.OwnerReference {
	own := *metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))
	switch d.intRange(0, 11, "owner") {
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
func drawAnnotations(d *drawer, p *corev1.Pod) {
	if d.intRange(0, 5, "nilAnnotations") == 0 {
		return
	}
	p.Annotations = map[string]string{}
	switch d.intRange(0, 5, "indexAnnotation") {
	case 0:
	case 1:
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = pick(d, []string{"", "-1", "x", "+2", "002", "2147483647", "99999999999999999999", " 1"}, "indexOdd")
	default:
		p.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(d.intRange(0, 6, "index"))
	}
	switch d.intRange(0, 3, "failureCount") {
	case 0:
		p.Annotations[batchv1.JobIndexFailureCountAnnotation] = pick(d, []string{"0", "1", "2", "-1", "x", "2147483647", "2147483648"}, "failureCountValue")
	case 1:
		p.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = pick(d, []string{"0", "1", "2147483647", "x"}, "ignoredCountValue")
	}
}

// drawContainerStatus gives the pod a container that runs, or ended at a
// time that may be unset, before the pod's creation or far ahead, with any
// exit code; or none at all.
func drawContainerStatus(d *drawer, p *corev1.Pod) {
	if d.intRange(0, 4, "noContainerStatus") == 0 {
		return
	}
	cs := corev1.ContainerStatus{Name: pick(d, []string{"main", "main", "absent"}, "containerName"), RestartCount: int32Near(d, "restarts", 2)}
	if d.bool("terminated") {
		var finished metav1.Time
		if d.intRange(0, 4, "finishedZero") != 0 {
			finished = metav1.NewTime(drawTime(d, "finished"))
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: pick(d, []int32{0, 1, 42, 137, -1}, "exitCode"), FinishedAt: finished}
	} else {
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: p.CreationTimestamp}
		cs.Ready = d.bool("containerReady")
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
}

// drawExpectations draws the controller memory: unset, pending creations or
// deletions (negative ones too), finalizer removals of some pods and of
// none, and the finished marker.
func drawExpectations(d *drawer, pods []*corev1.Pod, now time.Time) expectations.Expectations {
	var e expectations.Expectations
	if d.intRange(0, 3, "withExpectations") == 0 {
		e.Creations = int64(d.intRange(-2, 3, "expCreations"))
		e.Deletions = int64(d.intRange(-2, 3, "expDeletions"))
		e.SetAt = drawTime(d, "expSetAt")
	}
	for _, p := range pods {
		if d.intRange(0, 7, "expectRemoval") == 0 {
			e.FinalizerRemovals = e.FinalizerRemovals.Add(p.UID)
		}
	}
	if d.intRange(0, 9, "expectGone") == 0 {
		e.FinalizerRemovals = e.FinalizerRemovals.Add("gone")
	}
	e.JobFinished = d.intRange(0, 39, "jobFinished") == 0
	return e
}

// drawBackoff draws the backoff record: none, small, near the int32 limits,
// negative, with a failure time in the past or the future.
func drawBackoff(d *drawer, now time.Time) backoff.Record {
	if d.intRange(0, 2, "withBackoff") == 0 {
		return backoff.Record{}
	}
	r := backoff.Record{FailuresAfterLastSuccess: int32Near(d, "backoffFailures", 5)}
	if d.intRange(0, 5, "backoffNoTime") != 0 {
		r.LastFailureTime = ptr(drawTime(d, "backoffLast"))
	}
	return r
}
