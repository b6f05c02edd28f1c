package jobsync_test

import (
	"errors"
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// TestListedAndHeld: a pod listed in Pods whose UID a held set holds would
// count twice, once from each place; Reconcile refuses the snapshot with
// an *InputError naming the listed pod, whichever set holds it and
// whatever state either copy is in, and takes the same sets beside other
// pods.
func TestListedAndHeld(t *testing.T) {
	job := exampleJob()
	running := activePod(job, "running", "")
	other := activePod(job, "other", "")
	failed := running.DeepCopy() // the same pod, finished since it was put
	failed.Status.Phase = corev1.PodFailed
	done := settledPod(job)
	done.Finalizers = []string{batchv1.JobTrackingFinalizer}
	released := done.DeepCopy() // the same pod, its finalizer gone since
	released.Finalizers = nil
	beingDeleted := running.DeepCopy()
	beingDeleted.DeletionTimestamp = &metav1.Time{Time: genEpoch}
	foreign := running.DeepCopy() // the UID names one pod, wherever it is
	foreign.OwnerReferences = nil
	foreign.Namespace = "elsewhere"

	for _, tc := range []struct {
		name   string
		active []*corev1.Pod
		done   []*corev1.Pod
		pods   []*corev1.Pod
		want   *jobsync.InputError // nil: no error
	}{
		{name: "held beside other pods", active: []*corev1.Pod{running}, done: []*corev1.Pod{done}, pods: []*corev1.Pod{other}},
		{name: "an active pod listed and held", active: []*corev1.Pod{running}, pods: []*corev1.Pod{other, running},
			want: listedErr(1, running.UID, "ActivePods")},
		{name: "a stale active copy held, the pod finished", active: []*corev1.Pod{running}, pods: []*corev1.Pod{failed, other},
			want: listedErr(0, running.UID, "ActivePods")},
		{name: "a stale active copy held, the pod being deleted", active: []*corev1.Pod{running}, pods: []*corev1.Pod{beingDeleted},
			want: listedErr(0, running.UID, "ActivePods")},
		{name: "an active pod held, its UID listed in another namespace", active: []*corev1.Pod{running}, pods: []*corev1.Pod{foreign},
			want: listedErr(0, running.UID, "ActivePods")},
		{name: "a succeeded pod listed and held", done: []*corev1.Pod{done}, pods: []*corev1.Pod{other, done},
			want: listedErr(1, done.UID, "SucceededPods")},
		{name: "a stale succeeded copy held, its finalizer gone", active: []*corev1.Pod{other}, done: []*corev1.Pod{done}, pods: []*corev1.Pod{released},
			want: listedErr(0, done.UID, "SucceededPods")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := jobsync.Snapshot{Job: job, Pods: tc.pods, Now: genEpoch,
				Active: jobsync.NewActivePods(job), Succeeded: jobsync.NewSucceededPods(job, jobsync.Options{})}
			for _, p := range tc.active {
				if !s.Active.Put(p) {
					t.Fatalf("%s is not taken by an ActivePods", p.Name)
				}
			}
			for _, p := range tc.done {
				if !s.Succeeded.Put(p) {
					t.Fatalf("%s is not taken by a SucceededPods", p.Name)
				}
			}
			plan, err := jobsync.Reconcile(s, jobsync.Options{})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Reconcile: %v", err)
				}
				return
			}
			var ie *jobsync.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got plan %+v and error %v, want %v", plan.Status, err, tc.want)
			}
			if *ie != *tc.want {
				t.Fatalf("got %v, want %v", ie, tc.want)
			}
		})
	}
}

func listedErr(i int, uid k8stypes.UID, set string) *jobsync.InputError {
	return &jobsync.InputError{Field: fmt.Sprintf("pods[%d].metadata.uid", i), Value: uid, Msg: "is also the UID of a pod in the snapshot's " + set}
}
