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
	c.written.Wrote(jobAt("a", "10"))
	client.ClearActions()
	if err := c.sync(context.Background(), "ns/pi"); err == nil {
		t.Error("sync on a cached Job older than its own status write returned no error")
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("sync on a stale Job made %d API calls: %v", n, client.Actions())
	}
}
