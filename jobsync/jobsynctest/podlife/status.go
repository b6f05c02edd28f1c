package podlife

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons of container states and pod conditions the model writes.
const (
	ReasonCompleted    = "Completed"    // a container that exited 0
	ReasonError        = "Error"        // a container that exited non-zero
	ReasonPodCompleted = "PodCompleted" // Ready false once the pod ended
	// ReasonDeletionByPodGC marks a pod deleted before it ran, which the
	// pod garbage collector fails since no kubelet will ever stop it.
	ReasonDeletionByPodGC = "DeletionByPodGC"
)

// Running gives the container statuses of a pod whose containers all just
// started at now: its init containers completed, its containers running,
// started and ready.
func Running(spec *corev1.PodSpec, now time.Time) (initStatuses, statuses []corev1.ContainerStatus) {
	t := metav1.NewTime(now)
	for _, c := range spec.InitContainers {
		initStatuses = append(initStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: ReasonCompleted, StartedAt: t, FinishedAt: t}},
		})
	}
	for _, c := range spec.Containers {
		statuses = append(statuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}},
		})
	}
	return initStatuses, statuses
}

// Restart records in cs that its run exited with code at now and that the
// container runs again from now: the run moves to LastTerminationState and
// RestartCount grows.
func Restart(cs *corev1.ContainerStatus, code int32, now time.Time) {
	t := metav1.NewTime(now)
	started := t
	if cs.State.Running != nil {
		started = cs.State.Running.StartedAt
	}
	cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: ReasonError, StartedAt: started, FinishedAt: t,
	}}
	cs.RestartCount++
	cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}}
}

// Terminate ends every container of statuses at now with the code codeOf
// gives its name, and returns the phase that follows: Succeeded when the
// pod ran and all its containers exited 0, else Failed (a pod stopped
// before it ran, or with no containers, fails).
func Terminate(statuses []corev1.ContainerStatus, ran bool, codeOf func(name string) int32, now time.Time) corev1.PodPhase {
	t := metav1.NewTime(now)
	failed := !ran || len(statuses) == 0
	for i := range statuses {
		cs := &statuses[i]
		started := t
		if cs.State.Running != nil {
			started = cs.State.Running.StartedAt
		}
		code := codeOf(cs.Name)
		reason := ReasonCompleted
		if code != 0 {
			reason = ReasonError
			failed = true
		}
		cs.Ready = false
		cs.Started = ptr(false)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: t}}
	}
	if failed {
		return corev1.PodFailed
	}
	return corev1.PodSucceeded
}

func ptr[T any](v T) *T { return &v }
