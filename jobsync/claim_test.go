package jobsync_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// TestClaimPatches pins the bodies of the claim patches: the bytes upstream's
// ControllerRefManager sends (the conformance module compares them with
// upstream's on every snapshot with a claim).
func TestClaimPatches(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	job := validJob()
	job.UID = "job-uid"
	orphan := podFor(job, podShorthand{Name: "stray", Owner: "none", NoFinalizer: true}, batchv1.JobTrackingFinalizer)
	moved := podFor(job, podShorthand{Name: "moved"}, batchv1.JobTrackingFinalizer)
	moved.Labels = map[string]string{"app": "elsewhere"}
	tests := []struct {
		name          string
		finalizer     string
		wantAdoption  string
		wantRelease   string
		wantFinalizer string
	}{
		{
			name:          "default finalizer",
			wantAdoption:  `{"metadata":{"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"pi","uid":"job-uid","controller":true,"blockOwnerDeletion":true}],"uid":"uid-stray","finalizers":["batch.kubernetes.io/job-tracking"]}}`,
			wantRelease:   `{"metadata":{"uid":"uid-moved","ownerReferences":[{"$patch":"delete","uid":"job-uid"}],"$deleteFromPrimitiveList/finalizers":["batch.kubernetes.io/job-tracking"]}}`,
			wantFinalizer: batchv1.JobTrackingFinalizer,
		},
		{
			name:          "an external controller's finalizer",
			finalizer:     "example.com/tracking",
			wantAdoption:  `{"metadata":{"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"pi","uid":"job-uid","controller":true,"blockOwnerDeletion":true}],"uid":"uid-stray","finalizers":["example.com/tracking"]}}`,
			wantRelease:   `{"metadata":{"uid":"uid-moved","ownerReferences":[{"$patch":"delete","uid":"job-uid"}],"$deleteFromPrimitiveList/finalizers":["example.com/tracking"]}}`,
			wantFinalizer: "example.com/tracking",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{orphan, moved}, Now: now}, jobsync.Options{TrackingFinalizer: tc.finalizer})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Adoptions) != 1 || len(plan.Releases) != 1 {
				t.Fatalf("want one adoption and one release, got %+v and %+v", plan.Adoptions, plan.Releases)
			}
			a, r := plan.Adoptions[0], plan.Releases[0]
			if diff := cmp.Diff(tc.wantAdoption, string(a.Patch)); diff != "" {
				t.Errorf("adoption patch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRelease, string(r.Patch)); diff != "" {
				t.Errorf("release patch (-want +got):\n%s", diff)
			}
			if a.Finalizer != tc.wantFinalizer || r.Finalizer != tc.wantFinalizer {
				t.Errorf("finalizers %q and %q, want %q", a.Finalizer, r.Finalizer, tc.wantFinalizer)
			}
			if c := a.OwnerReference.Controller; a.OwnerReference.UID != job.UID || c == nil || !*c {
				t.Errorf("adoption owner reference %+v is not the Job's controller reference", a.OwnerReference)
			}
			if r.OwnerReference.UID != job.UID {
				t.Errorf("release owner reference %+v does not carry the Job's UID", r.OwnerReference)
			}
		})
	}
}
