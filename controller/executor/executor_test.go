package executor

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// These tests use client-go's fake clientset for the order of calls and the
// events; what the API server itself does with them (names, UIDs,
// resourceVersions, validation) is tested in controller/integration.

func fakeJob() *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "job-uid", ResourceVersion: "1"}}
}

// calls returns "verb resource[/subresource]" of every call made.
func calls(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		out = append(out, s)
	}
	return out
}

// TestFinishingEventsWaitForTheFinalStatus: Completed and the failure
// reasons are recorded once the status carrying the terminal condition is
// written, never for a Job whose final write failed; Suspended and Resumed
// are recorded whatever happens later, as upstream records them.
func TestFinishingEventsWaitForTheFinalStatus(t *testing.T) {
	for _, finalFails := range []bool{false, true} {
		job := fakeJob()
		client := fake.NewClientset(job)
		writes := 0
		client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
			writes++
			if finalFails && writes >= 2 {
				return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "batch", Resource: "jobs"}, "pi", errors.New("stale"))
			}
			return false, nil, nil
		})
		rec := record.NewFakeRecorder(10)
		plan := jobsync.Plan{
			InterimStatus: &batchv1.JobStatus{},
			Status:        &batchv1.JobStatus{},
			Events: []jobsync.Event{
				{Type: corev1.EventTypeNormal, Reason: "Resumed", Message: "Job resumed"},
				{Type: corev1.EventTypeNormal, Reason: "Completed", Message: "Job completed"},
			},
		}
		x := &Executor{Client: client, Recorder: rec, TrackingFinalizer: "example.com/t"}
		_, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, plan))
		if finalFails != apierrors.IsConflict(err) {
			t.Fatalf("final write fails %v: Execute returned %v", finalFails, err)
		}
		close(rec.Events)
		var got []string
		for e := range rec.Events {
			got = append(got, e)
		}
		want := []string{"Normal Resumed Job resumed", "Normal Completed Job completed"}
		if finalFails {
			want = want[:1]
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("final write fails %v: events (-want +got):\n%s", finalFails, diff)
		}
	}
}
