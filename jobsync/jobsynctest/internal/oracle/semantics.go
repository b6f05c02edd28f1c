package oracle

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// Upstream's meaning of the words the rules use: a failed pod, a valid
// index, a matching pod failure policy rule, a finished Job, a met
// success policy. Written from upstream's documentation and code, not from
// jobsync's.

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

func annotationInt(p *corev1.Pod, key string) int32 {
	var n int32
	if _, err := fmt.Sscan(p.Annotations[key], &n); err != nil {
		return 0
	}
	return n
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

// finished reports whether the Job has a terminal condition.
func finished(job *batchv1.Job) bool {
	return conditionTrue(&job.Status, batchv1.JobComplete) != nil || conditionTrue(&job.Status, batchv1.JobFailed) != nil
}
