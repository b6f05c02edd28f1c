package kubeletplayer

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// TestJobOfFollowsTheOwnerKind: a pod is played for the Job (or the
// resource seen as one) its controller reference names under the
// configured owner kind; a controller of another kind leaves it unplayed;
// a pod without a controller falls back on the generated UID label.
func TestJobOfFollowsTheOwnerKind(t *testing.T) {
	owned := func(apiVersion, kind string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Labels:          map[string]string{batchv1.ControllerUidLabel: "label-uid"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "j", UID: "ref-uid", Controller: new(true)}},
		}}
	}
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{batchv1.ControllerUidLabel: "label-uid"}}}
	trainJob := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TrainJob"}
	for _, tc := range []struct {
		name  string
		owner schema.GroupVersionKind
		pod   *corev1.Pod
		want  types.UID
	}{
		{"default owner, Job pod", schema.GroupVersionKind{}, owned("batch/v1", "Job"), "ref-uid"},
		{"default owner, TrainJob pod", schema.GroupVersionKind{}, owned("example.com/v1", "TrainJob"), ""},
		{"TrainJob owner, TrainJob pod", trainJob, owned("example.com/v1", "TrainJob"), "ref-uid"},
		{"TrainJob owner, Job pod", trainJob, owned("batch/v1", "Job"), ""},
		{"TrainJob owner, no controller", trainJob, orphan, "label-uid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Owner: tc.owner}.withDefaults()
			if got := jobOf(tc.pod, opts.Owner.Kind); got != tc.want {
				t.Errorf("jobOf = %q, want %q", got, tc.want)
			}
		})
	}
}
