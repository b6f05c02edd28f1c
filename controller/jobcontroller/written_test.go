package jobcontroller

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

func jobAt(uid types.UID, rv string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: uid, ResourceVersion: rv}}
}

// TestWrittenJobsWaitForTheCacheToShowTheWrite: after a status write that
// returned resourceVersion 10, a cached Job at 9 is stale and one at 10 or
// later is not (and the write is then forgotten); a Job of another UID, or
// resourceVersions that are not numbers, never wait.
func TestWrittenJobsWaitForTheCacheToShowTheWrite(t *testing.T) {
	for _, tc := range []struct {
		name      string
		written   *batchv1.Job
		cached    []*batchv1.Job
		wantStale []bool
	}{
		{"older, then caught up", jobAt("a", "10"), []*batchv1.Job{jobAt("a", "9"), jobAt("a", "10"), jobAt("a", "9")}, []bool{true, false, false}},
		{"later write by another actor", jobAt("a", "10"), []*batchv1.Job{jobAt("a", "12")}, []bool{false}},
		{"another Job of that name", jobAt("a", "10"), []*batchv1.Job{jobAt("b", "3")}, []bool{false}},
		{"not a number", jobAt("a", "x10"), []*batchv1.Job{jobAt("a", "9")}, []bool{false}},
		{"nothing written", nil, []*batchv1.Job{jobAt("a", "1")}, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w writtenJobs
			if tc.written != nil {
				w.wrote(tc.written)
			}
			for i, c := range tc.cached {
				if got := w.stale(c) != nil; got != tc.wantStale[i] {
					t.Errorf("cached resourceVersion %s (UID %s): stale %v, want %v", c.ResourceVersion, c.UID, got, tc.wantStale[i])
				}
			}
		})
	}
}

// TestSyncWaitsForItsOwnStatusWrite: a sync on a cached Job older than the
// controller's last status write of it makes no call and returns an error,
// so the Job is retried with the rate limit (a sync on it would record the
// Suspended or Resumed event again and meet a conflict, seen in the
// side-by-side suspend-resume run).
func TestSyncWaitsForItsOwnStatusWrite(t *testing.T) {
	const name = "example.com/jobsync"
	job := jobAt("a", "9")
	job.Spec.ManagedBy = new(name)
	client := fake.NewClientset(job)
	c, err := New(client, Options{ControllerName: name, Recorder: record.NewFakeRecorder(10)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.factory.Batch().V1().Jobs().Informer().GetStore().Add(job); err != nil {
		t.Fatal(err)
	}
	c.written.wrote(jobAt("a", "10"))
	client.ClearActions()
	if err := c.sync(context.Background(), "ns/pi"); err == nil {
		t.Error("sync on a cached Job older than its own status write returned no error")
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("sync on a stale Job made %d API calls: %v", n, client.Actions())
	}
}
