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

func TestFinishingEventsWaitForTheFinalStatus(t *testing.T) {
	complete := &batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}
	for _, tc := range []struct {
		name       string
		status     *batchv1.JobStatus
		event      jobsync.Event
		finalFails bool
		want       []string
	}{
		{"finished, written", complete, jobsync.Event{Type: corev1.EventTypeNormal, Reason: "Completed", Message: "Job completed"}, false, []string{"Normal Completed Job completed"}},
		{"finished, refused", complete, jobsync.Event{Type: corev1.EventTypeNormal, Reason: "Completed", Message: "Job completed"}, true, nil},
		{"resumed, written", &batchv1.JobStatus{}, jobsync.Event{Type: corev1.EventTypeNormal, Reason: "Resumed", Message: "Job resumed"}, false, []string{"Normal Resumed Job resumed"}},
		{"resumed, refused", &batchv1.JobStatus{}, jobsync.Event{Type: corev1.EventTypeNormal, Reason: "Resumed", Message: "Job resumed"}, true, []string{"Normal Resumed Job resumed"}},
	} {
		job := fakeJob()
		client := fake.NewClientset(job)
		writes := 0
		client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
			writes++
			if tc.finalFails && writes >= 2 {
				return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "batch", Resource: "jobs"}, "pi", errors.New("stale"))
			}
			return false, nil, nil
		})
		rec := record.NewFakeRecorder(10)
		plan := jobsync.Plan{InterimStatus: &batchv1.JobStatus{}, Status: tc.status, Events: []jobsync.Event{tc.event}}
		x := &Executor{Client: client, Recorder: rec, TrackingFinalizer: "example.com/t"}
		_, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, jobsync.Options{}, plan))
		if tc.finalFails != apierrors.IsConflict(err) {
			t.Fatalf("%s: Execute returned %v", tc.name, err)
		}
		close(rec.Events)
		var got []string
		for e := range rec.Events {
			got = append(got, e)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", tc.name, diff)
		}
	}
}
