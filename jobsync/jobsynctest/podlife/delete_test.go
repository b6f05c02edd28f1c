package podlife

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubeletDeletes checks when the kubelet makes its final delete call:
// only for a pod it stopped while a graceful deletion was running.
func TestKubeletDeletes(t *testing.T) {
	ts := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	zero, thirty := int64(0), int64(30)
	for _, tc := range []struct {
		name  string
		phase corev1.PodPhase
		ts    *metav1.Time
		grace *int64
		want  bool
	}{
		{"stopped during its grace period", corev1.PodFailed, &ts, &thirty, true},
		{"succeeded during its grace period", corev1.PodSucceeded, &ts, &thirty, true},
		{"still running", corev1.PodRunning, &ts, &thirty, false},
		{"already deleted with grace 0", corev1.PodFailed, &ts, &zero, false},
		{"no grace period recorded", corev1.PodFailed, &ts, nil, false},
		{"never deleted", corev1.PodFailed, nil, nil, false},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: tc.ts, DeletionGracePeriodSeconds: tc.grace}, Status: corev1.PodStatus{Phase: tc.phase}}
		if got := KubeletDeletes(p); got != tc.want {
			t.Errorf("%s: KubeletDeletes = %v, want %v", tc.name, got, tc.want)
		}
	}
}
