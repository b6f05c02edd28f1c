package kubeletplayer

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// statusPatch is the body of a strategic merge patch of a pod's status:
// conditions merge by type, container statuses are replaced as a whole.
type statusPatch struct {
	Phase                 corev1.PodPhase          `json:"phase,omitempty"`
	StartTime             *metav1.Time             `json:"startTime,omitempty"`
	Conditions            []corev1.PodCondition    `json:"conditions,omitempty"`
	InitContainerStatuses []corev1.ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses     []corev1.ContainerStatus `json:"containerStatuses,omitempty"`
}

func condition(t corev1.PodConditionType, s corev1.ConditionStatus, reason, message string, now time.Time) corev1.PodCondition {
	return corev1.PodCondition{Type: t, Status: s, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now)}
}

// runningStatus is the status of a pod whose containers just started.
func (pp *podPlay) runningStatus(now time.Time) statusPatch {
	t := metav1.NewTime(now)
	st := statusPatch{
		Phase:     corev1.PodRunning,
		StartTime: &t,
		Conditions: []corev1.PodCondition{
			condition(corev1.PodInitialized, corev1.ConditionTrue, "", "", now),
			condition(corev1.ContainersReady, corev1.ConditionTrue, "", "", now),
			condition(corev1.PodReady, corev1.ConditionTrue, "", "", now),
		},
	}
	st.InitContainerStatuses, st.ContainerStatuses = podlife.Running(&pp.spec, now)
	return st
}

// restartedStatus is the status of a running pod whose container exiting
// exited with code and runs again.
func (pp *podPlay) restartedStatus(exiting string, code int32, now time.Time) statusPatch {
	st := pp.runningStatus(pp.startedAt)
	st.Conditions = nil // still ready, as before
	for i := range st.ContainerStatuses {
		if cs := &st.ContainerStatuses[i]; cs.Name == exiting {
			cs.RestartCount = pp.restartCount
			podlife.Restart(cs, code, now)
		}
	}
	return st
}

// terminatedStatus is the status of a pod whose containers all exited with
// the codes given: Succeeded if they all exited 0 (and it ran), else
// Failed.
func (pp *podPlay) terminatedStatus(codeOf func(string) int32, now time.Time) statusPatch {
	var st statusPatch
	if pp.started {
		st = pp.runningStatus(pp.startedAt)
		for i := range st.ContainerStatuses {
			if cs := &st.ContainerStatuses[i]; cs.Name == podlife.ExitingContainer(pp.b.Container, &pp.spec) {
				cs.RestartCount = pp.restartCount
			}
		}
	} else {
		for _, c := range pp.spec.Containers {
			st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image})
		}
	}
	st.StartTime = nil
	st.Phase = podlife.Terminate(st.ContainerStatuses, pp.started, codeOf, now)
	st.Conditions = []corev1.PodCondition{
		condition(corev1.ContainersReady, corev1.ConditionFalse, podlife.ReasonPodCompleted, "", now),
		condition(corev1.PodReady, corev1.ConditionFalse, podlife.ReasonPodCompleted, "", now),
	}
	return st
}

// bind assigns the pod to the player's node, as the scheduler does.
func (pp *podPlay) bind(ctx context.Context) bool {
	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pp.namespace, Name: pp.name, UID: pp.uid},
		Target:     corev1.ObjectReference{Kind: "Node", Name: pp.p.opts.NodeName},
	}
	return pp.call(ctx, "bind", func(ctx context.Context) error {
		err := pp.p.client.CoreV1().Pods(pp.namespace).Bind(ctx, binding, metav1.CreateOptions{})
		if apierrors.IsConflict(err) {
			// Already bound, or being deleted: the deletion, if any, is
			// seen through the informer.
			return errGone
		}
		return err
	})
}

// patchStatus writes a strategic merge patch of the pod's status through
// the status subresource, as the kubelet does.
func (pp *podPlay) patchStatus(ctx context.Context, what string, st statusPatch) bool {
	body, err := json.Marshal(struct {
		Metadata struct {
			UID types.UID `json:"uid"`
		} `json:"metadata"`
		Status statusPatch `json:"status"`
	}{Metadata: struct {
		UID types.UID `json:"uid"`
	}{pp.uid}, Status: st})
	if err != nil {
		pp.p.count(func(s *Stats) { s.Errors++; s.Err = err })
		return false
	}
	return pp.call(ctx, what, func(ctx context.Context) error {
		stored, err := pp.p.client.CoreV1().Pods(pp.namespace).Patch(ctx, pp.name, types.StrategicMergePatchType, body, metav1.PatchOptions{}, "status")
		if err == nil {
			pp.last = stored
		}
		return err
	})
}

// remove deletes the pod (with the given grace period, nil for the pod's
// own), with its UID as a precondition.
func (pp *podPlay) remove(ctx context.Context, what string, grace *int64) bool {
	uid := pp.uid
	return pp.call(ctx, what, func(ctx context.Context) error {
		return pp.p.client.CoreV1().Pods(pp.namespace).Delete(ctx, pp.name, metav1.DeleteOptions{
			GracePeriodSeconds: grace,
			Preconditions:      &metav1.Preconditions{UID: &uid},
		})
	})
}

// errGone says the pod is gone or going, which ends a step without an
// error.
var errGone = fmt.Errorf("pod gone")

// Retries of a call that may pass on another try start after
// firstRetryDelay and double up to maxRetryDelay.
const (
	firstRetryDelay = 50 * time.Millisecond
	maxRetryDelay   = time.Second
)

// call makes one API call, retrying what may pass on another try (server
// timeouts, throttling, internal errors, connection errors) for as long as
// ctx lasts, as a kubelet retries its status updates: an API server that is
// away for a while must not leave a pod Running forever. It reports
// whether the call succeeded; a pod found gone is not an error, other
// failures are counted in Stats.
func (pp *podPlay) call(ctx context.Context, what string, f func(context.Context) error) bool {
	delay := firstRetryDelay
	for {
		err := f(ctx)
		switch {
		case err == nil:
			return true
		case err == errGone || apierrors.IsNotFound(err) || ctx.Err() != nil:
			return false
		case retryable(err):
			pp.p.count(func(s *Stats) { s.Retries++ })
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				return false
			}
			delay = min(2*delay, maxRetryDelay)
			continue
		}
		if apierrors.IsConflict(err) && what == "remove" {
			return false // UID precondition: another pod of that name
		}
		err = fmt.Errorf("%s pod %s/%s: %w", what, pp.namespace, pp.name, err)
		pp.logger(ctx).Error(err, "Pod step failed")
		pp.p.count(func(s *Stats) { s.Errors++; s.Err = err })
		return false
	}
}

func retryable(err error) bool {
	if _, ok := err.(apierrors.APIStatus); !ok {
		return true // a connection error
	}
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err)
}
