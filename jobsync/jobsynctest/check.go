package jobsynctest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The invariant checks of Config.Check. They are written from upstream's
// semantics, not from jobsync's code: a rule here that agrees with
// Reconcile by construction would check nothing.

// Verdicts on a pod at the removal of its tracking finalizer.
const (
	countSucceeded = "succeeded"
	countFailed    = "failed"
	countNone      = "none"
	countActive    = "active" // a running pod released while nothing allows it
)

// checker holds what the checks need to remember between steps. It has its
// own random source, so that checking does not change the run.
type checker struct {
	c       *Cluster
	rng     *rand.Rand
	pending []Violation

	base, max time.Duration // pod-failure backoff bounds

	// verdicts holds, per pod, how it must be counted, fixed when its
	// tracking finalizer went.
	verdicts map[types.UID]string
	// succeededAt holds, per completion index, the latest time a pod of it
	// was released as succeeded; scaledDown the completions and times of
	// changes that lowered completions.
	succeededAt map[int]time.Time
	scaledDown  []scaleEvent
	initial     batchv1.JobStatus
	// failedThenSucceeded holds the indexes of pods recorded as failed
	// (the Job was failing while they ran) that had succeeded by the time
	// their finalizer went.
	failedThenSucceeded map[int]bool
	// surplus holds the pods whose finalizer went with a surplus deletion
	// (suspend, scale-down), while they are not counted.
	surplus map[types.UID]*simPod

	// seen holds the UIDs of the pods in the view of the current sync.
	seen map[types.UID]bool
	// unseen holds pods still running, unseen by the controller, when it
	// wrote a terminal condition (the stale-view exception).
	unseen []types.UID

	// backoff is the pod-failure backoff record the controller should hold,
	// candidate the one the current sync works with.
	backoff, candidate backoff.Record
}

type scaleEvent struct {
	at          time.Time
	completions int
}

func newChecker(c *Cluster) *checker {
	opts := c.opts
	k := &checker{
		c:                   c,
		rng:                 rand.New(rand.NewPCG(uint64(c.cfg.Seed), 0x636865636b)),
		base:                opts.BackoffBase,
		max:                 opts.BackoffMax,
		verdicts:            map[types.UID]string{},
		succeededAt:         map[int]time.Time{},
		failedThenSucceeded: map[int]bool{},
		surplus:             map[types.UID]*simPod{},
		initial:             *c.job.Status.DeepCopy(),
	}
	if k.base <= 0 {
		k.base = 10 * time.Second
	}
	if k.max <= 0 {
		k.max = 10 * time.Minute
	}
	return k
}

func (k *checker) violate(rule, format string, args ...any) {
	k.pending = append(k.pending, Violation{Rule: rule, Time: k.c.now, Detail: fmt.Sprintf(format, args...)})
}

// rejected reports a status write the API server refused. One refusal is
// upstream's own (v1.36.3): suspending a Job clears status.startTime, and a
// Job that then fails while suspended (a pod that was terminating when the
// Job was suspended fails and exceeds the backoff limit) has its Failed
// condition refused for want of a startTime until the Job is resumed.
// Reconcile does the same; the refusal is listed in Result.Tolerated.
func (k *checker) rejected(kind string, errs []string) {
	if len(errs) == 1 && errs[0] == msgNoStartTime && k.c.job.Spec.Suspend != nil && *k.c.job.Spec.Suspend {
		k.c.result.Tolerated = append(k.c.result.Tolerated, fmt.Sprintf(
			"%s: %s status write refused (%s): the Job finished while suspended, and suspending cleared its startTime",
			k.c.now.Format(time.RFC3339), kind, msgNoStartTime))
		return
	}
	k.violate("status-rejected", "%s write: %s", kind, strings.Join(errs, "; "))
}

// crashed forgets what the controller forgot.
func (k *checker) crashed() {
	k.backoff, k.candidate = backoff.Record{}, backoff.Record{}
}

// onlyReplaceFailed: terminating pods are not failed yet (podReplacementPolicy
// Failed, which a pod failure policy implies).
func onlyReplaceFailed(job *batchv1.Job) bool {
	return job.Spec.PodFailurePolicy != nil || (job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed)
}

// failedPod reports whether the Job counts p as failed: phase Failed, or
// being deleted without having succeeded when terminating pods count.
func failedPod(job *batchv1.Job, p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	return !onlyReplaceFailed(job) && p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded
}

func isIndexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

// podIndex returns the pod's completion index when it is valid for job.
func podIndex(job *batchv1.Job, p *corev1.Pod) (int, bool) {
	ix := indexes.Of(p.Annotations)
	return ix, ix != indexes.Unknown && job.Spec.Completions != nil && ix < int(*job.Spec.Completions)
}

// policyAction is the action of the first pod failure policy rule that
// matches p, or "" when none does.
func policyAction(job *batchv1.Job, p *corev1.Pod) batchv1.PodFailurePolicyAction {
	pol := job.Spec.PodFailurePolicy
	if pol == nil {
		return ""
	}
	for _, r := range pol.Rules {
		if r.OnExitCodes != nil && exitCodesMatch(p, r.OnExitCodes) {
			return r.Action
		}
		if r.OnPodConditions != nil && conditionsMatch(p, r.OnPodConditions) {
			return r.Action
		}
	}
	return ""
}

func exitCodesMatch(p *corev1.Pod, req *batchv1.PodFailurePolicyOnExitCodesRequirement) bool {
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for _, cs := range list {
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || (req.ContainerName != nil && *req.ContainerName != cs.Name) {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) == in {
				return true
			}
		}
	}
	return false
}

func conditionsMatch(p *corev1.Pod, pats []batchv1.PodFailurePolicyOnPodConditionsPattern) bool {
	for _, c := range p.Status.Conditions {
		for _, pat := range pats {
			if c.Type == pat.Type && c.Status == pat.Status {
				return true
			}
		}
	}
	return false
}

func conditionTrue(st *batchv1.JobStatus, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t && st.Conditions[i].Status == corev1.ConditionTrue {
			return &st.Conditions[i]
		}
	}
	return nil
}

func uidIn(list []types.UID, u types.UID) bool { return slices.Contains(list, u) }

// tracked are the pods of the view the controller still has to account for.
func tracked(snap jobsync.Snapshot, fin string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range snap.Pods {
		if podlife.HasFinalizer(p, fin) && !snap.Expectations.ExpectsFinalizerRemoval(p.UID) {
			out = append(out, p)
		}
	}
	return out
}

// beforePlan checks a plan against the snapshot it came from: the same plan
// for the pods in another order, and the reasons for interim conditions.
func (k *checker) beforePlan(snap jobsync.Snapshot, plan jobsync.Plan) {
	k.seen = make(map[types.UID]bool, len(snap.Pods))
	for _, p := range snap.Pods {
		k.seen[p.UID] = true
	}
	shuffled := snap
	shuffled.Pods = slices.Clone(snap.Pods)
	k.rng.Shuffle(len(shuffled.Pods), func(i, j int) { shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i] })
	other, err := jobsync.Reconcile(shuffled, k.c.opts)
	if err != nil {
		k.violate("pod-order", "the shuffled snapshot gives an error: %v", err)
	} else if !reflect.DeepEqual(plan, other) {
		k.violate("pod-order", "the shuffled snapshot gives another plan (-sorted +shuffled):\n%s", cmp.Diff(plan, other))
	}

	// The backoff record the controller should work with in this sync:
	// the remembered one, updated with the tracked pods newly finished.
	job := snap.Job
	k.candidate = k.backoff
	if plan.Skipped == "" {
		var succ, failed []*corev1.Pod
		u := job.Status.UncountedTerminatedPods
		for _, p := range tracked(snap, k.c.fin) {
			if isIndexed(job) {
				if _, ok := podIndex(job, p); !ok {
					continue
				}
			}
			switch {
			case p.Status.Phase == corev1.PodSucceeded:
				if u == nil || !uidIn(u.Succeeded, p.UID) {
					succ = append(succ, p)
				}
			case failedPod(job, p):
				if u == nil || !uidIn(u.Failed, p.UID) {
					failed = append(failed, p)
				}
			}
		}
		k.candidate = k.backoff.Update(succ, failed)
	} else {
		k.candidate = plan.Backoff
	}
	k.checkInterimConditions(snap, plan)
}

// planWritten tells the checker how far the plan got, to keep the backoff
// record the way the controller keeps it.
func (k *checker) planWritten(plan *jobsync.Plan, interimWritten bool) {
	if plan.Skipped != "" || (plan.InterimStatus != nil && interimWritten) {
		k.backoff = k.candidate
	}
}

// checkInterimConditions checks that a FailureTarget or SuccessCriteriaMet
// condition the plan adds has its reason in the snapshot.
func (k *checker) checkInterimConditions(snap jobsync.Snapshot, plan jobsync.Plan) {
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
func (k *checker) failedSoFar(snap jobsync.Snapshot) int {
	job := snap.Job
	n := int(job.Status.Failed)
	u := job.Status.UncountedTerminatedPods
	if u != nil {
		n += len(u.Failed)
	}
	for _, p := range tracked(snap, k.c.fin) {
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
func (k *checker) failureReasonHolds(snap jobsync.Snapshot, st *batchv1.JobStatus, reason string) string {
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
func (k *checker) successHolds(snap jobsync.Snapshot, st *batchv1.JobStatus, reason string) string {
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
		for _, p := range tracked(snap, k.c.fin) {
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

// successPolicyMet evaluates the success policy on the completed indexes:
// a rule is met when all its listed indexes (below completions) completed,
// or succeededCount of them, or, without a list, succeededCount indexes.
func successPolicyMet(job *batchv1.Job, done indexes.Set) bool {
	c := int(*job.Spec.Completions)
	for _, r := range job.Spec.SuccessPolicy.Rules {
		switch {
		case r.SucceededIndexes != nil:
			want := indexes.ParseLenient(*r.SucceededIndexes, c)
			if want.Total() == 0 {
				continue
			}
			got := 0
			for _, iv := range want {
				for ix := iv.First; ix <= iv.Last; ix++ {
					if done.Has(ix) {
						got++
					}
				}
			}
			if got == want.Total() || (r.SucceededCount != nil && got >= int(*r.SucceededCount)) {
				return true
			}
		case r.SucceededCount != nil:
			if done.Total() >= int(*r.SucceededCount) {
				return true
			}
		}
	}
	return false
}

// created checks a pod creation: not while suspended, not after the
// deadline, not beyond parallelism, not before the backoff ran out.
func (k *checker) created(sp *simPod, plan *jobsync.Plan, snap jobsync.Snapshot) {
	job := snap.Job
	now := k.c.now
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		k.violate("suspended", "pod %s created while the Job is suspended", sp.obj.Name)
	}
	if ads := job.Spec.ActiveDeadlineSeconds; ads != nil {
		start := job.Status.StartTime
		if plan.InterimStatus != nil {
			start = plan.InterimStatus.StartTime
		}
		if start != nil && now.Sub(start.Time) >= time.Duration(*ads)*time.Second {
			k.violate("deadline", "pod %s created %v after the start, activeDeadlineSeconds %d", sp.obj.Name, now.Sub(start.Time), *ads)
		}
	}
	active := 0
	for _, o := range k.c.pods {
		if !k.c.controlled(o.obj) || podlife.IsTerminal(o.obj) {
			continue
		}
		if o.obj.DeletionTimestamp == nil || onlyReplaceFailed(job) {
			active++
		}
	}
	if active > int(*job.Spec.Parallelism) {
		k.violate("parallelism", "pod %s created: %d pods active, parallelism %d", sp.obj.Name, active, *job.Spec.Parallelism)
	}
	if isIndexed(job) && job.Spec.BackoffLimitPerIndex != nil {
		k.checkIndexBackoff(sp)
		return
	}
	if left := k.candidate.Remaining(now, k.base, k.max); left > 0 {
		k.violate("backoff", "pod %s created with %v of pod-failure backoff left (%d failures, last at %v)",
			sp.obj.Name, left, k.candidate.FailuresAfterLastSuccess, k.candidate.LastFailureTime)
	}
}

// checkIndexBackoff: a pod replacing failed pods of its index waits for the
// backoff owed after the failures its annotations carry, from the finish of
// the latest failed pod of the index (see earliestFinish).
func (k *checker) checkIndexBackoff(sp *simPod) {
	failures := annotationInt(sp.obj, batchv1.JobIndexFailureCountAnnotation) + annotationInt(sp.obj, batchv1.JobIndexIgnoredFailureCountAnnotation)
	if failures == 0 {
		return
	}
	var last time.Time
	found := false
	for _, o := range k.c.pods {
		if o == sp || o.index != sp.index || o.obj.Status.Phase != corev1.PodFailed {
			continue
		}
		if t := earliestFinish(o.obj); !found || t.After(last) {
			last, found = t, true
		}
	}
	if !found {
		return // the failed pods left the API server; nothing to measure from
	}
	if d := backoff.Delay(failures, k.base, k.max); k.c.now.Sub(last) < d {
		k.violate("backoff", "pod %s for index %d created %v after the last failure of the index, owing %v after %d failures",
			sp.obj.Name, sp.index, k.c.now.Sub(last), d, failures)
	}
}

// earliestFinish is the earliest finish time the controller may have read
// for a failed pod: while it was terminating, upstream's rule reads the
// moment of the delete call (deletion timestamp less the grace period),
// which can come before the containers' own finish.
func earliestFinish(p *corev1.Pod) time.Time {
	t := backoff.FinishTime(p)
	if p.DeletionTimestamp != nil {
		var grace time.Duration
		if g := p.DeletionGracePeriodSeconds; g != nil {
			grace = time.Duration(*g) * time.Second
		}
		if d := p.DeletionTimestamp.Add(-grace); d.Before(t) {
			t = d
		}
	}
	return t
}

func annotationInt(p *corev1.Pod, key string) int32 {
	var n int32
	if _, err := fmt.Sscan(p.Annotations[key], &n); err != nil {
		return 0
	}
	return n
}

// finalizerRemoval checks a tracking-finalizer removal against the status
// the API server holds at that moment (write-ahead), and fixes how the pod
// must be counted.
func (k *checker) finalizerRemoval(sp *simPod, surplus bool, plan *jobsync.Plan, snap jobsync.Snapshot) {
	if !podlife.HasFinalizer(sp.obj, k.c.fin) {
		return
	}
	uid := sp.obj.UID
	var vp *corev1.Pod
	for _, p := range snap.Pods {
		if p.UID == uid {
			vp = p
		}
	}
	if vp == nil {
		k.violate("write-ahead", "finalizer of pod %s removed, a pod the controller does not see", sp.obj.Name)
		return
	}
	job := snap.Job
	stored := &k.c.job.Status
	u := stored.UncountedTerminatedPods
	if u == nil {
		u = &batchv1.UncountedTerminatedPods{}
	}
	ix, _ := podIndex(job, vp)
	// What the API server's status records decides first: a pod in
	// uncountedTerminatedPods is counted as recorded once its finalizer
	// is gone, whichever path removes it.
	if uidIn(u.Succeeded, uid) {
		k.record(uid, countSucceeded, ix)
		return
	}
	if uidIn(u.Failed, uid) {
		if isIndexed(job) && (vp.Status.Phase == corev1.PodSucceeded || sp.obj.Status.Phase == corev1.PodSucceeded) {
			k.failedThenSucceeded[ix] = true
		}
		k.record(uid, countFailed, ix)
		return
	}
	if surplus {
		if podlife.IsTerminal(vp) || vp.DeletionTimestamp != nil {
			k.violate("write-ahead", "finalizer of pod %s removed for a deletion, but the controller saw it finished or terminating", sp.obj.Name)
		}
		k.record(uid, countNone, -1)
		k.surplus[uid] = sp
		return
	}
	st := &job.Status
	if plan.InterimStatus != nil {
		st = plan.InterimStatus
	}
	verdict := judge(job, st, vp)
	switch verdict {
	case countSucceeded:
		if isIndexed(job) {
			// The Job's completions may have changed since the view the
			// plan came from: read the list without cutting it to either.
			limit := max(int(*k.c.job.Spec.Completions), int(*job.Spec.Completions))
			done := indexes.ParseLenient(stored.CompletedIndexes, limit)
			if !done.Has(ix) {
				k.violate("write-ahead", "finalizer of succeeded pod %s (index %d) removed before the index is in completedIndexes %q", sp.obj.Name, ix, stored.CompletedIndexes)
			}
		} else if !uidIn(u.Succeeded, uid) {
			k.violate("write-ahead", "finalizer of succeeded pod %s removed before it is in uncountedTerminatedPods.succeeded", sp.obj.Name)
		}
	case countFailed:
		if !uidIn(u.Failed, uid) {
			k.violate("write-ahead", "finalizer of failed pod %s removed before it is in uncountedTerminatedPods.failed", sp.obj.Name)
		}
	case countActive:
		k.violate("released-active", "finalizer of active pod %s removed while the Job is neither finishing nor being deleted", sp.obj.Name)
	}
	k.record(uid, verdict, ix)
}

// judge says how the Job must count pod p (as the controller saw it) when
// its finalizer goes, given the status written before the removals.
func judge(job *batchv1.Job, st *batchv1.JobStatus, p *corev1.Pod) string {
	// A pod already recorded as uncounted keeps the verdict it was recorded
	// with, whatever it did since (a running pod recorded as failed when
	// the Job started failing may end with an exit code an Ignore rule
	// matches).
	if u := st.UncountedTerminatedPods; u != nil {
		if uidIn(u.Succeeded, p.UID) {
			return countSucceeded
		}
		if uidIn(u.Failed, p.UID) {
			return countFailed
		}
	}
	indexed := isIndexed(job)
	_, validIx := podIndex(job, p)
	if indexed && !validIx {
		return countNone
	}
	if p.Status.Phase == corev1.PodSucceeded {
		return countSucceeded
	}
	// A failing Job counts its running pods as failed, but a Job being
	// deleted releases them uncounted unless it recorded them (the caller
	// looks at the record first): a failing Job whose expectations are not
	// met, or whose deletions failed, drops its decision to fail for the
	// sync, upstream as here.
	failing := job.DeletionTimestamp == nil && conditionTrue(st, batchv1.JobFailureTarget) != nil
	if failedPod(job, p) || failing {
		if policyAction(job, p) == batchv1.PodFailurePolicyActionIgnore {
			return countNone
		}
		return countFailed
	}
	if job.DeletionTimestamp != nil || conditionTrue(st, batchv1.JobSuccessCriteriaMet) != nil {
		return countNone
	}
	return countActive
}

// recountedSurplus handles a pod whose finalizer the controller removed as
// surplus (suspend, scale-down) and whose deletion then failed: a stale
// view that still shows the finalizer lets a later sync record the pod in
// uncountedTerminatedPods (the Job is finishing) and count it, as upstream
// does, since it expects no observation of finalizers it removes for
// deletions. The pod is then counted once, as recorded; the checks list it
// in Result.Tolerated.
func (k *checker) recountedSurplus(st *batchv1.JobStatus) {
	u := st.UncountedTerminatedPods
	if u == nil {
		return
	}
	uids := make([]types.UID, 0, len(k.surplus))
	for uid := range k.surplus {
		uids = append(uids, uid)
	}
	slices.Sort(uids)
	for _, uid := range uids {
		sp := k.surplus[uid]
		verdict := ""
		switch {
		case uidIn(u.Succeeded, uid):
			verdict = countSucceeded
		case uidIn(u.Failed, uid):
			verdict = countFailed
		default:
			continue
		}
		delete(k.surplus, uid)
		k.verdicts[uid] = verdict
		if verdict == countSucceeded && sp.index >= 0 {
			k.succeededAt[sp.index] = k.c.now
		}
		k.c.result.Tolerated = append(k.c.result.Tolerated, fmt.Sprintf(
			"%s: pod %s, released as surplus, is counted as %s: a stale view still showed its finalizer when the Job began finishing",
			k.c.now.Format(time.RFC3339), sp.obj.Name, verdict))
	}
}

func (k *checker) record(uid types.UID, verdict string, ix int) {
	if _, seen := k.verdicts[uid]; seen {
		return
	}
	k.verdicts[uid] = verdict
	if verdict == countSucceeded && ix >= 0 {
		k.succeededAt[ix] = k.c.now
	}
}

// statusWritten checks a status write that adds a terminal condition: no
// pod of the Job may still be running or terminating, or still tracked.
//
// The exception is upstream's: pods the controller's informer has not shown
// yet. A view of the Job that lags behind its own status writes can make
// the controller create pods after the Job succeeded; if the Job view then
// catches up before the pod view, the Job completes (completions reached,
// nothing active in the view), which upstream, like Reconcile, decides
// without waiting for the expected creations. Such pods are listed in
// Result.Tolerated, not reported.
func (k *checker) statusWritten(old, updated *batchv1.Job, final bool) {
	k.recountedSurplus(&updated.Status)
	if isFinished(old) || !isFinished(updated) {
		return
	}
	var bad []string
	for _, sp := range k.c.sortedPods() {
		if !k.c.controlled(sp.obj) {
			continue
		}
		if !k.seen[sp.obj.UID] {
			k.unseen = append(k.unseen, sp.obj.UID)
			k.c.result.Tolerated = append(k.c.result.Tolerated, fmt.Sprintf(
				"%s: terminal condition written while pod %s (%s), created by the controller, was not yet in its view",
				k.c.now.Format(time.RFC3339), sp.obj.Name, sp.obj.Status.Phase))
			continue
		}
		if !podlife.IsTerminal(sp.obj) {
			bad = append(bad, sp.obj.Name+" is not terminal")
		} else if podlife.HasFinalizer(sp.obj, k.c.fin) {
			bad = append(bad, sp.obj.Name+" still has the tracking finalizer")
		}
	}
	if len(bad) > 0 {
		k.violate("terminal-early", "terminal condition written while %s", strings.Join(bad, ", "))
	}
}

// jobChanged remembers when completions went down.
func (k *checker) jobChanged(j *batchv1.Job) {
	if c := j.Spec.Completions; c != nil && isIndexed(j) {
		k.scaledDown = append(k.scaledDown, scaleEvent{at: k.c.now, completions: int(*c)})
	}
}

// atEnd checks the finished Job: nothing tracked or uncounted, every pod
// counted once, and the terminal condition that the status leads to.
func (k *checker) atEnd(o Outcome) {
	if o != OutcomeComplete && o != OutcomeFailed {
		return
	}
	job := k.c.job
	st := &job.Status
	for _, sp := range k.c.sortedPods() {
		if k.c.controlled(sp.obj) && podlife.HasFinalizer(sp.obj, k.c.fin) && !slices.Contains(k.unseen, sp.obj.UID) {
			k.violate("count", "pod %s still has the tracking finalizer after the Job finished", sp.obj.Name)
		}
	}
	if u := st.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		k.violate("count", "uncountedTerminatedPods not empty at the end: %v", u)
	}
	var succ, failed int
	for _, v := range k.verdicts {
		switch v {
		case countSucceeded:
			succ++
		case countFailed:
			failed++
		}
	}
	if want := int(k.initial.Failed) + failed; int(st.Failed) != want {
		k.violate("count", "status.failed is %d, but %d pods were released as failed (%d before the run)", st.Failed, failed, k.initial.Failed)
	}
	if isIndexed(job) {
		k.checkIndexedCount(job)
	} else if want := int(k.initial.Succeeded) + succ; int(st.Succeeded) != want {
		k.violate("count", "status.succeeded is %d, but %d pods were released as succeeded (%d before the run)", st.Succeeded, succ, k.initial.Succeeded)
	}

	// The terminal condition follows the interim one.
	if o == OutcomeComplete {
		if conditionTrue(st, batchv1.JobSuccessCriteriaMet) == nil {
			k.violate("outcome", "Complete without SuccessCriteriaMet")
		}
		if len(k.scaledDown) == 0 {
			// After an elastic scale the criteria were checked when
			// SuccessCriteriaMet was written (checkInterimConditions); a
			// later change of completions does not undo it.
			k.checkComplete(job)
		}
	} else {
		target := conditionTrue(st, batchv1.JobFailureTarget)
		failedCond := conditionTrue(st, batchv1.JobFailed)
		if target == nil || failedCond == nil || target.Reason != failedCond.Reason {
			k.violate("outcome", "Failed condition %v does not follow the FailureTarget condition %v", failedCond, target)
		}
	}
}

// checkIndexedCount: status.succeeded is the number of completed indexes;
// every completed index had a pod released as succeeded, and every index
// released as succeeded is completed unless completions went down to it or
// below at some point.
func (k *checker) checkIndexedCount(job *batchv1.Job) {
	st := &job.Status
	c := int(*job.Spec.Completions)
	done, err := indexes.Parse(st.CompletedIndexes, c)
	if err != nil {
		k.violate("count", "completedIndexes %q: %v", st.CompletedIndexes, err)
		return
	}
	if int(st.Succeeded) != done.Total() {
		k.violate("count", "status.succeeded is %d, but completedIndexes %q holds %d", st.Succeeded, st.CompletedIndexes, done.Total())
	}
	before := indexes.ParseLenient(k.initial.CompletedIndexes, c)
	for _, iv := range done {
		for ix := iv.First; ix <= iv.Last; ix++ {
			if _, ok := k.succeededAt[ix]; ok || before.Has(ix) {
				continue
			}
			if k.failedThenSucceeded[ix] {
				// Upstream's double count (v1.36.3): a running pod of a
				// failing Job is recorded as failed, succeeds before its
				// finalizer goes, and its index still joins
				// completedIndexes, since succeeded indexes are read from
				// the pods without looking at uncountedTerminatedPods.
				k.c.result.Tolerated = append(k.c.result.Tolerated, fmt.Sprintf(
					"index %d is in completedIndexes and its pod in status.failed: the pod was recorded as failed while the Job was failing, then succeeded", ix))
				continue
			}
			k.violate("count", "index %d is completed, but no pod of it was released as succeeded", ix)
		}
	}
	released := make([]int, 0, len(k.succeededAt))
	for ix := range k.succeededAt {
		released = append(released, ix)
	}
	slices.Sort(released)
	for _, ix := range released {
		if ix >= c || done.Has(ix) {
			continue
		}
		// Completions lowered to ix or below, before or after the release
		// (the controller's view of the Job may lag behind the change),
		// may have dropped the index.
		dropped := false
		for _, s := range k.scaledDown {
			if s.completions <= ix {
				dropped = true
			}
		}
		if !dropped {
			k.violate("count", "index %d had a pod released as succeeded, but is not in completedIndexes %q", ix, st.CompletedIndexes)
		}
	}
}

// checkComplete: the success criteria hold on the final status.
func (k *checker) checkComplete(job *batchv1.Job) {
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
