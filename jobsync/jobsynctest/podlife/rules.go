package podlife

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Exit codes of a deleted pod's containers, as a container runtime reports
// them: the container stopped on SIGTERM within the grace period, or was
// killed with SIGKILL at its end.
const (
	ExitTerminated int32 = 143
	ExitKilled     int32 = 137
)

// MaxRestartDelay caps the kubelet's crash-loop back-off between container
// restarts.
const MaxRestartDelay = 5 * time.Minute

// ExitingContainer names the container whose exit code decides a pod's
// fate: the one a behaviour names, else the pod's first container ("" for
// a pod with none).
func ExitingContainer(named string, spec *corev1.PodSpec) string {
	if named != "" {
		return named
	}
	if len(spec.Containers) > 0 {
		return spec.Containers[0].Name
	}
	return ""
}

// Exit decides what a run of the exiting container ends with. restartsLeft
// counts the failing runs a behaviour asks for before its last one, which
// exits with exitCode. Under restartPolicy OnFailure a failing run (a
// pending restart fails with code 1) restarts the container, so the pod
// never fails by itself; otherwise the run ends the pod. The caller spends
// one of restartsLeft when it restarts with some left.
func Exit(policy corev1.RestartPolicy, restartsLeft, exitCode int32) (code int32, restart bool) {
	code = exitCode
	if restartsLeft > 0 {
		code = 1
	}
	return code, policy == corev1.RestartPolicyOnFailure && (restartsLeft > 0 || exitCode != 0)
}

// RestartDelay is the kubelet's back-off before the restartCount-th restart
// of a container: base, doubled at each restart after the first, never
// more than MaxRestartDelay.
func RestartDelay(base time.Duration, restartCount int32) time.Duration {
	delay := base
	for i := int32(1); i < restartCount && delay < MaxRestartDelay; i++ {
		delay *= 2
	}
	return min(delay, MaxRestartDelay)
}

// Stop says how long after its deletion a running pod stops and with which
// exit code: after its own shutdown time when that fits in the grace
// period (SIGTERM), else at the end of the grace period (SIGKILL).
func Stop(shutdown, grace time.Duration) (after time.Duration, code int32) {
	if shutdown >= grace {
		return grace, ExitKilled
	}
	return shutdown, ExitTerminated
}

// IsTerminal reports whether the pod reached a phase it never leaves.
func IsTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// HasFinalizer reports whether the pod carries finalizer f.
func HasFinalizer(p *corev1.Pod, f string) bool {
	return slices.Contains(p.Finalizers, f)
}

// KubeletDeletes reports whether the kubelet deletes pod p once more, with
// grace period 0: p is being deleted gracefully (a grace period above 0
// recorded) and has stopped, so nothing remains to wait for. That call is
// what lets the API server remove it (apirules.Removed).
func KubeletDeletes(p *corev1.Pod) bool {
	g := p.DeletionGracePeriodSeconds
	return p.DeletionTimestamp != nil && g != nil && *g > 0 && IsTerminal(p)
}
