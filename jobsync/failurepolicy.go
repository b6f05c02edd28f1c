package jobsync

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// failureVerdict is what a pod failure policy says of one failed pod.
type failureVerdict struct {
	// action is the action of the first matching rule; empty when none matched.
	action batchv1.PodFailurePolicyAction
	// rule is the index of the matching rule, -1 when none matched.
	rule int
	// failJobMessage is the FailureTarget message of a FailJob match.
	failJobMessage string
}

// counts reports whether the failure counts towards backoffLimit and
// backoffLimitPerIndex: every failure but an ignored one.
func (v failureVerdict) counts() bool { return v.action != batchv1.PodFailurePolicyActionIgnore }

// matchFailurePolicy evaluates the rules in order for a failed pod; the
// first rule that matches decides. A nil policy matches nothing.
func matchFailurePolicy(policy *batchv1.PodFailurePolicy, pod *corev1.Pod) failureVerdict {
	if policy == nil {
		return failureVerdict{rule: -1}
	}
	for i, rule := range policy.Rules {
		switch {
		case rule.OnExitCodes != nil:
			cs := matchExitCodes(&pod.Status, rule.OnExitCodes)
			if cs == nil {
				continue
			}
			if v, ok := verdictFor(rule.Action, i); ok {
				if v.action == batchv1.PodFailurePolicyActionFailJob {
					v.failJobMessage = fmt.Sprintf("Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d",
						cs.Name, pod.Namespace, pod.Name, cs.State.Terminated.ExitCode, rule.Action, i)
				}
				return v
			}
		case rule.OnPodConditions != nil:
			cond := matchPodConditions(&pod.Status, rule.OnPodConditions)
			if cond == nil {
				continue
			}
			if v, ok := verdictFor(rule.Action, i); ok {
				if v.action == batchv1.PodFailurePolicyActionFailJob {
					v.failJobMessage = fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d",
						pod.Namespace, pod.Name, cond.Type, rule.Action, i)
				}
				return v
			}
		}
	}
	return failureVerdict{rule: -1}
}

// verdictFor returns the verdict of a matching rule, and false for an
// action upstream does not know, which makes it go on to the next rule.
func verdictFor(action batchv1.PodFailurePolicyAction, rule int) (failureVerdict, bool) {
	switch action {
	case batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionFailIndex,
		batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailJob:
		return failureVerdict{action: action, rule: rule}, true
	}
	return failureVerdict{}, false
}

// matchExitCodes returns the first terminated container, regular containers
// before init containers, whose non-zero exit code satisfies the rule.
func matchExitCodes(st *corev1.PodStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	if cs := matchExitCodesIn(st.ContainerStatuses, req); cs != nil {
		return cs
	}
	return matchExitCodesIn(st.InitContainerStatuses, req)
}

func matchExitCodesIn(statuses []corev1.ContainerStatus, req *batchv1.PodFailurePolicyOnExitCodesRequirement) *corev1.ContainerStatus {
	for i := range statuses {
		cs := &statuses[i]
		term := cs.State.Terminated
		if term == nil || term.ExitCode == 0 {
			continue
		}
		if req.ContainerName != nil && *req.ContainerName != cs.Name {
			continue
		}
		switch req.Operator {
		case batchv1.PodFailurePolicyOnExitCodesOpIn:
			if slices.Contains(req.Values, term.ExitCode) {
				return cs
			}
		case batchv1.PodFailurePolicyOnExitCodesOpNotIn:
			if !slices.Contains(req.Values, term.ExitCode) {
				return cs
			}
		}
	}
	return nil
}

// matchPodConditions returns the first pod condition, in the pod's order,
// that equals any pattern in type and status.
func matchPodConditions(st *corev1.PodStatus, patterns []batchv1.PodFailurePolicyOnPodConditionsPattern) *corev1.PodCondition {
	for i := range st.Conditions {
		for _, p := range patterns {
			if st.Conditions[i].Type == p.Type && st.Conditions[i].Status == p.Status {
				return &st.Conditions[i]
			}
		}
	}
	return nil
}
