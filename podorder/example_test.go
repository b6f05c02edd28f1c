package podorder_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/podorder"
)

// Scaling a Job down from four active pods to two: the two pods least far
// along are deleted, the pending one first.
func ExampleFirstForRemoval() {
	start := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	running := func(name string, readySince time.Time) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(start)},
			Spec:       corev1.PodSpec{NodeName: "node-1"},
			Status: corev1.PodStatus{
				Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{
					Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(readySince),
				}},
			},
		}
	}
	pending := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pi-pending", CreationTimestamp: metav1.NewTime(start)},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
	pods := []*corev1.Pod{
		running("pi-ready-early", start.Add(time.Minute)),
		pending,
		running("pi-ready-late", start.Add(5*time.Minute)),
		running("pi-ready-mid", start.Add(3*time.Minute)),
	}
	for _, p := range podorder.FirstForRemoval(pods, 2) {
		fmt.Println(p.Name)
	}
	// Output:
	// pi-pending
	// pi-ready-late
}

// Suspending a Job deletes every active pod; each deletion records whether
// the pod was ready, which the rank carries, so no pod is read again.
func ExampleFirstRanked() {
	start := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	ready := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pi-ready", CreationTimestamp: metav1.NewTime(start)},
		Spec:       corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		},
	}
	starting := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "pi-starting", CreationTimestamp: metav1.NewTime(start)},
		Spec:       corev1.PodSpec{NodeName: "node-1"},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	pods := []*corev1.Pod{ready, starting}
	for _, r := range podorder.FirstRanked(pods, len(pods)) {
		fmt.Println(r.Pod().Name, "ready:", r.Ready())
	}
	// Output:
	// pi-starting ready: false
	// pi-ready ready: true
}
