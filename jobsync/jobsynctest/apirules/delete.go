package apirules

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultGracePeriodSeconds is the terminationGracePeriodSeconds the API
// server's defaulting gives a pod spec that sets none.
const DefaultGracePeriodSeconds int64 = 30

// Delete gives the deletionTimestamp and deletionGracePeriodSeconds the
// API server stores when it receives a DELETE of pod p at now, grace being
// the DeleteOptions' grace period (nil for the pod's own). The caller sets
// both on its copy of the pod, then asks Removed whether the pod is still
// stored.
//
// The first deletion of a pod gets the pod's grace period (DeleteOptions
// overriding terminationGracePeriodSeconds), except that a pod no kubelet
// runs has nothing to wait for: one not bound to a node, or already
// terminal, gets 0. The deletion timestamp is now plus the grace period,
// the moment the kubelet's SIGKILL is due, so deletionTimestamp minus
// deletionGracePeriodSeconds is when the deletion was asked for (which is
// how the Job controller dates a pod it finds no other finish time for).
//
// A later deletion may only shorten a grace period still running: the
// timestamp moves by the difference but never into the past, and a
// graceful period whose time is up becomes 1s so that the kubelet still
// makes the final call. A pod deleted with grace 0 already keeps its
// metadata.
func Delete(p *corev1.Pod, grace *int64, now time.Time) (*metav1.Time, *int64) {
	if p.DeletionTimestamp != nil {
		return shorten(p, grace, now)
	}
	period := DefaultGracePeriodSeconds
	switch {
	case grace != nil:
		period = *grace
	case p.Spec.TerminationGracePeriodSeconds != nil:
		period = *p.Spec.TerminationGracePeriodSeconds
	}
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	at := metav1.NewTime(now.Add(time.Duration(period) * time.Second))
	return &at, &period
}

// shorten is Delete of a pod already being deleted.
func shorten(p *corev1.Pod, grace *int64, now time.Time) (*metav1.Time, *int64) {
	old := p.DeletionGracePeriodSeconds
	if old == nil || *old == 0 || grace == nil || *grace >= *old {
		return p.DeletionTimestamp, old
	}
	period := max(*grace, 0)
	at := p.DeletionTimestamp.Add(time.Duration(period-*old) * time.Second)
	if at.Before(now) {
		at = now
		if period != 0 {
			period = 1
		}
	}
	t := metav1.NewTime(at)
	return &t, &period
}

// Removed reports whether the API server no longer stores pod p after a
// write left it as p: it is being deleted with no grace period left (0,
// or none recorded) and holds no finalizer. A pod deleted gracefully stays
// until the kubelet deletes it once more with grace 0 (see
// podlife.KubeletDeletes); one with finalizers stays until the last is
// removed.
func Removed(p *corev1.Pod) bool {
	if p.DeletionTimestamp == nil || len(p.Finalizers) > 0 {
		return false
	}
	return p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds == 0
}
