package jobsync_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

func TestTTLAfterFinished(t *testing.T) {
	finished := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	job := func(ttl *int32, conds ...batchv1.JobCondition) *batchv1.Job {
		j := validJob()
		j.UID = "job-uid"
		j.Spec.TTLSecondsAfterFinished = ttl
		j.Status.Conditions = conds
		return j
	}
	complete := batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(finished)}
	failed := batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(finished)}
	foreground := metav1.DeletePropagationForeground
	deleteOpts := &metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: &metav1.Preconditions{UID: ptr(types.UID("job-uid"))}}
	type want struct {
		delete  bool
		requeue time.Duration
	}
	tests := []struct {
		name string
		job  *batchv1.Job
		now  time.Time
		want want
	}{
		{"no TTL", job(nil, complete), finished.Add(time.Hour), want{}},
		{"not finished", job(ptr(int32(100))), finished.Add(time.Hour), want{}},
		{"complete condition false", job(ptr(int32(100)), batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(finished)}), finished.Add(time.Hour), want{}},
		{"before expiry: look again when it runs out", job(ptr(int32(100)), complete), finished.Add(40 * time.Second), want{requeue: 60 * time.Second}},
		{"expiring exactly now", job(ptr(int32(100)), complete), finished.Add(100 * time.Second), want{delete: true}},
		{"after expiry", job(ptr(int32(100)), failed), finished.Add(time.Hour), want{delete: true}},
		{"TTL 0: at once", job(ptr(int32(0)), complete), finished, want{delete: true}},
		{"finished in the future (clock skew): deferred", job(ptr(int32(0)), complete), finished.Add(-30 * time.Second), want{requeue: 30 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := jobsync.TTLAfterFinished(tc.job, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if got := (want{d.Delete, d.RequeueAfter}); got != tc.want {
				t.Errorf("got delete %v, requeue %v; want %+v (%s)", got.delete, got.requeue, tc.want, d.Reason)
			}
			if d.Delete {
				if diff := cmp.Diff(deleteOpts, d.DeleteOptions); diff != "" {
					t.Errorf("delete options (-want +got):\n%s", diff)
				}
			} else if d.DeleteOptions != nil {
				t.Errorf("delete options without a delete: %+v", d.DeleteOptions)
			}
		})
	}

	t.Run("being deleted", func(t *testing.T) {
		j := job(ptr(int32(0)), complete)
		j.DeletionTimestamp = &metav1.Time{Time: finished}
		if d, err := jobsync.TTLAfterFinished(j, finished.Add(time.Hour)); err != nil || d.Delete || d.RequeueAfter != 0 {
			t.Errorf("got %+v, %v; want nothing to do", d, err)
		}
	})
	t.Run("finish time missing", func(t *testing.T) {
		j := job(ptr(int32(0)), batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue})
		_, err := jobsync.TTLAfterFinished(j, finished)
		var ie *jobsync.InputError
		if !errors.As(err, &ie) {
			t.Errorf("got %v, want an InputError", err)
		}
	})
	t.Run("nil job", func(t *testing.T) {
		if _, err := jobsync.TTLAfterFinished(nil, finished); err == nil {
			t.Error("no error for a nil Job")
		}
	})
}
