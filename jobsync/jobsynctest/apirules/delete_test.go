package apirules

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDelete is the specification of the simulated API server's pod
// deletion: the deletion timestamp and grace period it stores for each
// kind of pod and call, and whether the pod is still stored afterwards.
func TestDelete(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	i64 := func(v int64) *int64 { return &v }
	type pod struct {
		node       string
		phase      corev1.PodPhase
		specGrace  *int64
		finalizer  bool
		deletedAt  time.Duration // deletionTimestamp - t0 when deleted
		deletedFor *int64        // deletionGracePeriodSeconds when deleted
	}
	build := func(in pod) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: in.node, TerminationGracePeriodSeconds: in.specGrace}, Status: corev1.PodStatus{Phase: in.phase}}
		if in.finalizer {
			p.Finalizers = []string{"f"}
		}
		if in.deletedFor != nil {
			ts := metav1.NewTime(t0.Add(in.deletedAt))
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, in.deletedFor
		}
		return p
	}
	for _, tc := range []struct {
		name      string
		pod       pod
		grace     *int64        // DeleteOptions
		now       time.Duration // since t0
		wantAt    time.Duration // deletionTimestamp - t0
		wantGrace int64
		removed   bool
	}{
		{name: "running pod gets the default grace period", pod: pod{node: "n", phase: corev1.PodRunning, finalizer: true},
			wantAt: 30 * time.Second, wantGrace: 30},
		{name: "running pod gets its own grace period", pod: pod{node: "n", phase: corev1.PodRunning, specGrace: i64(5)},
			wantAt: 5 * time.Second, wantGrace: 5},
		{name: "the call's grace period overrides the pod's", pod: pod{node: "n", phase: corev1.PodRunning, specGrace: i64(5)},
			grace: i64(12), wantAt: 12 * time.Second, wantGrace: 12},
		{name: "negative grace period becomes 1s", pod: pod{node: "n", phase: corev1.PodRunning}, grace: i64(-3),
			wantAt: time.Second, wantGrace: 1},
		{name: "bound pod with grace 0 and no finalizer leaves at once", pod: pod{node: "n", phase: corev1.PodRunning, specGrace: i64(0)},
			removed: true},
		{name: "unbound pod is deleted at once", pod: pod{phase: corev1.PodPending}, removed: true},
		{name: "unbound pod with a finalizer stays", pod: pod{phase: corev1.PodPending, finalizer: true}},
		{name: "terminal pod is deleted at once", pod: pod{node: "n", phase: corev1.PodFailed}, removed: true},
		{name: "terminal pod with a finalizer stays", pod: pod{node: "n", phase: corev1.PodSucceeded, finalizer: true}},
		{name: "a longer grace period changes nothing", pod: pod{node: "n", phase: corev1.PodRunning, deletedAt: 30 * time.Second, deletedFor: i64(30)},
			grace: i64(60), now: 10 * time.Second, wantAt: 30 * time.Second, wantGrace: 30},
		{name: "no grace period changes nothing", pod: pod{node: "n", phase: corev1.PodRunning, deletedAt: 30 * time.Second, deletedFor: i64(30)},
			now: 10 * time.Second, wantAt: 30 * time.Second, wantGrace: 30},
		{name: "a shorter grace period moves the timestamp back", pod: pod{node: "n", phase: corev1.PodRunning, deletedAt: 30 * time.Second, deletedFor: i64(30)},
			grace: i64(20), now: 5 * time.Second, wantAt: 20 * time.Second, wantGrace: 20},
		{name: "a shortened period already over becomes 1s from now", pod: pod{node: "n", phase: corev1.PodRunning, deletedAt: 30 * time.Second, deletedFor: i64(30)},
			grace: i64(5), now: 10 * time.Second, wantAt: 10 * time.Second, wantGrace: 1},
		{name: "the kubelet's final call removes a stopped pod", pod: pod{node: "n", phase: corev1.PodFailed, deletedAt: 30 * time.Second, deletedFor: i64(30)},
			grace: i64(0), now: 20 * time.Second, wantAt: 20 * time.Second, removed: true},
		{name: "the kubelet's final call leaves a pod with a finalizer", pod: pod{node: "n", phase: corev1.PodFailed, finalizer: true, deletedAt: 30 * time.Second, deletedFor: i64(30)},
			grace: i64(0), now: 20 * time.Second, wantAt: 20 * time.Second},
		{name: "a pod deleted with grace 0 keeps its metadata", pod: pod{phase: corev1.PodPending, finalizer: true, deletedAt: 0, deletedFor: i64(0)},
			grace: i64(0), now: 20 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(tc.pod)
			before := p.DeepCopy()
			at, grace := Delete(p, tc.grace, t0.Add(tc.now))
			if at == nil || grace == nil {
				t.Fatalf("Delete gave timestamp %v, grace %v: want both set", at, grace)
			}
			if got := at.Sub(t0); got != tc.wantAt || *grace != tc.wantGrace {
				t.Errorf("deletionTimestamp t0+%v, grace %d; want t0+%v, grace %d", got, *grace, tc.wantAt, tc.wantGrace)
			}
			if !reflect.DeepEqual(p, before) {
				t.Errorf("Delete changed its input")
			}
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = at, grace
			if got := Removed(p); got != tc.removed {
				t.Errorf("Removed = %v, want %v", got, tc.removed)
			}
		})
	}
}

// TestRemovedNeedsADeletion checks that a pod without finalizers that was
// never deleted, or one deleted gracefully and not yet finished with, is
// still stored.
func TestRemovedNeedsADeletion(t *testing.T) {
	ts := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	thirty := int64(30)
	if Removed(&corev1.Pod{}) {
		t.Error("a pod never deleted is removed")
	}
	if Removed(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &ts, DeletionGracePeriodSeconds: &thirty}}) {
		t.Error("a pod in its grace period is removed")
	}
	if !Removed(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &ts}}) {
		t.Error("a pod deleted with no grace period recorded and no finalizer is still stored")
	}
}
