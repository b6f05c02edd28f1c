package jobcontroller

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func ownedPod(job string, uid types.UID, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "p", ResourceVersion: rv,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job, UID: uid, Controller: ptr.To(true)}},
	}}
}

// A Job's sync waits until the pod informer has seen the newest pod
// written for it, then goes on; other Jobs, released pods and a Job
// replaced under the same name do not wait.
func TestPodWritesHoldTheSyncUntilSeen(t *testing.T) {
	seen := "100"
	w := &podWrites{read: func() string { return seen }}
	w.wrote(ownedPod("a", "a-uid", "105"))
	w.wrote(ownedPod("a", "a-uid", "103")) // older: the newest stays
	w.wrote(ownedPod("b", "b-uid", "90"))
	released := ownedPod("c", "c-uid", "200")
	released.OwnerReferences = nil
	w.wrote(released)

	if err := w.check("ns", "a", "a-uid"); err == nil {
		t.Errorf("Job a synced with the pod cache at 100, its last pod write at 105")
	}
	if err := w.check("ns", "b", "b-uid"); err != nil {
		t.Errorf("Job b held back with the pod cache past its writes: %v", err)
	}
	if err := w.check("ns", "c", "c-uid"); err != nil {
		t.Errorf("Job c held back for a pod it released: %v", err)
	}
	if err := w.check("ns", "a", "other-uid"); err != nil {
		t.Errorf("a new Job a held back for the old one's writes: %v", err)
	}
	w.wrote(ownedPod("a", "a-uid", "105"))
	seen = "104"
	if err := w.check("ns", "a", "a-uid"); err == nil {
		t.Errorf("Job a synced with the pod cache at 104, its last pod write at 105")
	}
	seen = "105"
	if err := w.check("ns", "a", "a-uid"); err != nil {
		t.Errorf("Job a held back once the pod cache showed its write: %v", err)
	}
	seen = "1" // the record was dropped once seen
	if err := w.check("ns", "a", "a-uid"); err != nil {
		t.Errorf("Job a held back again after its write was seen: %v", err)
	}
	w.wrote(ownedPod("a", "a-uid", "300"))
	w.forget("ns", "a")
	if err := w.check("ns", "a", "a-uid"); err != nil {
		t.Errorf("Job a held back after its record was forgotten: %v", err)
	}
	w.wrote(ownedPod("a", "a-uid", "300"))
	seen = "" // the informer cannot tell: nothing is held back
	if err := w.check("ns", "a", "a-uid"); err != nil {
		t.Errorf("Job a held back by an informer that cannot tell its version: %v", err)
	}
}
