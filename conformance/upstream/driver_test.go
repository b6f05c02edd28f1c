package upstream

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
)

var smokeNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func smokeJob() *batchv1.Job {
	uid := types.UID("11111111-2222-3333-4444-555555555555")
	labels := map[string]string{batchv1.ControllerUidLabel: string(uid), batchv1.JobNameLabel: "smoke"}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke", Namespace: "default", UID: uid, CreationTimestamp: metav1.NewTime(smokeNow.Add(-time.Minute))},
		Spec: batchv1.JobSpec{
			Parallelism:          ptr.To[int32](2),
			Completions:          ptr.To[int32](3),
			BackoffLimit:         ptr.To[int32](6),
			CompletionMode:       ptr.To(batchv1.NonIndexedCompletion),
			Suspend:              ptr.To(false),
			PodReplacementPolicy: ptr.To(batchv1.TerminatingOrFailed),
			ManualSelector:       ptr.To(false),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(uid)}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
				},
			},
		},
	}
}

func TestSmokeFirstSyncCreatesPods(t *testing.T) {
	job := smokeJob()
	res, err := Run(Input{Job: job, Now: smokeNow})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatalf("syncJob: %v", res.Err)
	}
	if len(res.Creates) != 2 {
		t.Fatalf("creates = %d, want 2; log %v", len(res.Creates), res.Log)
	}
	p := res.Creates[0]
	if p.GenerateName != "smoke-" || p.Namespace != "default" {
		t.Errorf("generateName %q namespace %q", p.GenerateName, p.Namespace)
	}
	if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != job.UID || ref.Kind != "Job" {
		t.Errorf("owner reference %+v", p.OwnerReferences)
	}
	if len(p.Finalizers) != 1 || p.Finalizers[0] != batchv1.JobTrackingFinalizer {
		t.Errorf("finalizers %v", p.Finalizers)
	}
	if res.Expectations.Creations != 2 || !res.Expectations.SetAt.Equal(smokeNow) {
		t.Errorf("expectations after %+v", res.Expectations)
	}
	if len(res.Writes) != 1 || res.Writes[0].Final || res.Writes[0].Status.Active != 2 || !res.Writes[0].Status.StartTime.Time.Equal(smokeNow) {
		t.Errorf("writes %+v", res.Writes)
	}
}

func TestSmokeMemoryRoundTrip(t *testing.T) {
	job := smokeJob()
	last := smokeNow.Add(-5 * time.Second)
	in := Input{
		Job: job, Now: smokeNow,
		Expectations: expectations.Expectations{Creations: 1, SetAt: smokeNow.Add(-time.Minute), FinalizerRemovals: expectations.NewUIDSet("b", "a")},
		Backoff:      backoff.Record{FailuresAfterLastSuccess: 2, LastFailureTime: &last},
	}
	res, err := Run(in)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	// Unsatisfied expectations: nothing is created.
	if len(res.Creates) != 0 {
		t.Errorf("creates %d with pending expectations", len(res.Creates))
	}
	e := res.Expectations
	if e.Creations != 1 || !e.SetAt.Equal(in.Expectations.SetAt) || e.FinalizerRemovals.Len() != 2 || e.FinalizerRemovals.Sorted()[0] != "a" {
		t.Errorf("expectations after %+v", e)
	}
	if res.Backoff.FailuresAfterLastSuccess != 2 || !res.Backoff.LastFailureTime.Equal(last) {
		t.Errorf("backoff after %+v", res.Backoff)
	}

	// Expired expectations (6 minutes old): pods are created, but the
	// backoff (20s after 2 failures, 5s elapsed) holds them back: requeue.
	in.Expectations.SetAt = smokeNow.Add(-6 * time.Minute)
	res, err = Run(in)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if len(res.Creates) != 0 || len(res.Requeues) != 1 || res.Requeues[0] != 15*time.Second {
		t.Errorf("creates %d requeues %v", len(res.Creates), res.Requeues)
	}
}

func TestSmokeGateOverride(t *testing.T) {
	job := smokeJob()
	job.Spec.Suspend = ptr.To(true)
	st := metav1.NewTime(smokeNow.Add(-time.Minute))
	job.Status.StartTime = &st
	for _, keep := range []bool{false, true} {
		in := Input{Job: job, Now: smokeNow}
		if keep {
			in.Gates = map[string]bool{"MutableSchedulingDirectivesForSuspendedJobs": false}
		}
		res, err := Run(in)
		if err != nil || res.Err != nil {
			t.Fatal(err, res.Err)
		}
		if len(res.Writes) != 1 {
			t.Fatalf("writes %+v", res.Writes)
		}
		if got := res.Writes[0].Status.StartTime != nil; got != keep {
			t.Errorf("gate off=%v: startTime kept %v", keep, got)
		}
		if len(res.Events) != 1 || res.Events[0].Reason != "Suspended" {
			t.Errorf("events %+v", res.Events)
		}
	}
}

// TestExpectationsExpiryIsDecidedOnTheSnapshotClock pins the harness's
// mapping of expectations onto upstream's real-clock expiry: upstream holds
// creations set exactly ExpectationsTimeout before now unexpired (its rule
// is strictly "older than"), and so must the driven controller, however
// long the sync takes on the real clock. Without the exact mapping the
// boundary record expired (found by FuzzDifferential), and a record set
// centuries after now overflowed the back-dating into expiry.
func TestExpectationsExpiryIsDecidedOnTheSnapshotClock(t *testing.T) {
	const timeout = 5 * time.Minute
	for _, tc := range []struct {
		name    string
		setAt   time.Time
		expired bool
	}{
		{"set now", smokeNow, false},
		{"one nanosecond short of the timeout", smokeNow.Add(-timeout + time.Nanosecond), false},
		{"exactly the timeout", smokeNow.Add(-timeout), false},
		{"one nanosecond past the timeout", smokeNow.Add(-timeout - time.Nanosecond), true},
		{"an hour old", smokeNow.Add(-time.Hour), true},
		{"the zero time", time.Time{}, true},
		{"a minute after now", smokeNow.Add(time.Minute), false},
		{"three centuries after now", smokeNow.AddDate(300, 0, 0), false},
		{"three centuries before now", smokeNow.AddDate(-300, 0, 0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := expired(smokeNow, tc.setAt); got != tc.expired {
				t.Errorf("expired = %v, want %v", got, tc.expired)
			}
			in := Input{Job: smokeJob(), Now: smokeNow, Expectations: expectations.Expectations{Creations: 1, SetAt: tc.setAt}}
			res, err := Run(in)
			if err != nil || res.Err != nil {
				t.Fatal(err, res.Err)
			}
			// Expired: both pods of parallelism 2 are created and the
			// expectations are set anew at now; else nothing is created
			// and the record is left as seeded.
			want, wantExp := 0, in.Expectations
			if tc.expired {
				want, wantExp = 2, expectations.Expectations{Creations: 2, SetAt: smokeNow}
			}
			if len(res.Creates) != want {
				t.Errorf("creates = %d, want %d", len(res.Creates), want)
			}
			if e := res.Expectations; e.Creations != wantExp.Creations || !e.SetAt.Equal(wantExp.SetAt) {
				t.Errorf("expectations after = %+v, want %+v", e, wantExp)
			}
		})
	}
}
