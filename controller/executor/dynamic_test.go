package executor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/controller/jobview"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

var (
	trainJob  = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TrainJob"}
	trainJobs = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "trainjobs"}
)

// trainJobResource is a stored TrainJob: a spec the API server did not
// default, a status with a field of the resource's own.
func trainJobResource() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "TrainJob",
		"metadata": map[string]any{"name": "pi", "namespace": "ns", "uid": "tj-uid", "resourceVersion": "5"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"restartPolicy": "Never", "containers": []any{map[string]any{"name": "main", "image": "pi"}},
		}}},
		"status": map[string]any{"active": int64(1), "epoch": int64(3)},
	}}
}

func dynamicCalls(c *dynamicfake.FakeDynamicClient) []string {
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

// TestDynamicStatusWriteConflicts is TestStatusWriteConflicts for a custom
// resource written through DynamicStatusWriter: a conflict with a change
// of metadata only is written again on the resource read afresh, one with
// a change of spec, status or deletion is returned. The view the plan was
// decided on is defaulted (jobspec.Prepare), the resource read afresh is
// not: that difference alone is no change.
func TestDynamicStatusWriteConflicts(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "example.com", Resource: "trainjobs"}, "pi", errors.New("the object has been modified"))
	tests := []struct {
		name      string
		change    func(*unstructured.Unstructured)
		refusals  int
		err       error
		wantCalls []string
		wantErr   func(error) bool
	}{{
		name:      "written at once",
		wantCalls: []string{"patch trainjobs/status"},
	}, {
		name:      "labels changed: written again",
		change:    func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"other": "writer"}) },
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"patch trainjobs/status", "get trainjobs", "patch trainjobs/status"},
	}, {
		name: "spec changed: conflict returned",
		change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, true, "spec", "suspend")
		},
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"patch trainjobs/status", "get trainjobs"},
		wantErr:   apierrors.IsConflict,
	}, {
		name: "status changed by another writer: conflict returned",
		change: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(7), "status", "failed")
		},
		refusals:  1,
		err:       conflict,
		wantCalls: []string{"patch trainjobs/status", "get trainjobs"},
		wantErr:   apierrors.IsConflict,
	}, {
		name:     "conflicts that never end: given up after the retries",
		change:   func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"other": "writer"}) },
		refusals: -1,
		err:      conflict,
		wantCalls: []string{"patch trainjobs/status", "get trainjobs", "patch trainjobs/status", "get trainjobs", "patch trainjobs/status",
			"get trainjobs", "patch trainjobs/status"},
		wantErr: apierrors.IsConflict,
	}, {
		name:      "server error: returned at once",
		refusals:  1,
		err:       apierrors.NewInternalError(errors.New("etcd is away")),
		wantCalls: []string{"patch trainjobs/status"},
		wantErr:   apierrors.IsInternalError,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stored := trainJobResource()
			client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{trainJobs: "TrainJobList"}, stored.DeepCopy())
			refused := 0
			client.PrependReactor("patch", "trainjobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if tc.refusals >= 0 && refused >= tc.refusals {
					return false, nil, nil
				}
				if refused == 0 && tc.change != nil {
					changed := stored.DeepCopy()
					tc.change(changed)
					if err := client.Tracker().Update(trainJobs, changed, "ns"); err != nil {
						t.Fatal(err)
					}
				}
				refused++
				return true, nil, tc.err
			})
			view, err := jobview.FromUnstructured(stored)
			if err != nil {
				t.Fatal(err)
			}
			job, errs := jobspec.Prepare(view)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			rec := record.NewFakeRecorder(10)
			rec.IncludeObject = true
			plan := jobsync.Plan{InterimStatus: &batchv1.JobStatus{Succeeded: 1}, Events: []jobsync.Event{{Type: corev1.EventTypeNormal, Reason: "Synced", Message: "ok"}}}
			x := &Executor{Client: fake.NewClientset(), Recorder: rec, TrackingFinalizer: "example.com/t",
				Status: DynamicStatusWriter(client, trainJobs), Owner: trainJob}
			opts := jobsync.Options{Owner: trainJob, TrackingFinalizer: "example.com/t"}
			res, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, opts, plan))
			if d := cmp.Diff(tc.wantCalls, dynamicCalls(client)); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			close(rec.Events)
			for e := range rec.Events {
				if !strings.Contains(e, "involvedObject{kind=TrainJob,apiVersion=example.com/v1}") {
					t.Errorf("event %q does not name the TrainJob", e)
				}
			}
			if tc.wantErr != nil {
				if !tc.wantErr(err) || res.InterimStatusWritten {
					t.Errorf("Execute returned %v (status written %v), want the write's error and no status written", err, res.InterimStatusWritten)
				}
				return
			}
			if err != nil || !res.InterimStatusWritten {
				t.Fatalf("Execute returned %v (status written %v), want the status written", err, res.InterimStatusWritten)
			}
			got, err := client.Tracker().Get(trainJobs, "ns", "pi")
			if err != nil {
				t.Fatal(err)
			}
			u := got.(*unstructured.Unstructured)
			status, _, _ := unstructured.NestedMap(u.Object, "status")
			if d := cmp.Diff(map[string]any{"succeeded": int64(1), "epoch": int64(3)}, status); d != "" {
				t.Errorf("stored status (-want +got):\n%s", d)
			}
			if res.Job == nil || res.Job.Status.Succeeded != 1 || res.Job.UID != "tj-uid" {
				t.Errorf("Result.Job = %+v, want the written resource seen as a Job", res.Job)
			}
			if tc.change != nil && u.GetLabels()["other"] != "writer" {
				t.Errorf("the other writer's labels are gone: %v", u.GetLabels())
			}
		})
	}
}

// TestDynamicStatusWriterNeedsAResourceVersion: a status write without a
// resourceVersion to be conditional on is refused before any call.
func TestDynamicStatusWriterNeedsAResourceVersion(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{trainJobs: "TrainJobList"}, trainJobResource())
	w := DynamicStatusWriter(client, trainJobs)
	base := fakeJob()
	base.ResourceVersion = ""
	if _, err := w.UpdateStatus(context.Background(), base, &batchv1.JobStatus{}); err == nil {
		t.Error("no error")
	}
	if len(client.Actions()) != 0 {
		t.Errorf("calls %v, want none", dynamicCalls(client))
	}
}

// TestEventsNameTheJobByDefault: with no Owner, events name a batch/v1 Job
// as before.
func TestEventsNameTheJobByDefault(t *testing.T) {
	job := fakeJob()
	rec := record.NewFakeRecorder(10)
	rec.IncludeObject = true
	plan := jobsync.Plan{Events: []jobsync.Event{{Type: corev1.EventTypeNormal, Reason: "Synced", Message: "ok"}}}
	x := &Executor{Client: fake.NewClientset(job), Recorder: rec, TrackingFinalizer: "example.com/t"}
	if _, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, jobsync.Options{}, plan)); err != nil {
		t.Fatal(err)
	}
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	if d := cmp.Diff([]string{"Normal Synced ok involvedObject{kind=Job,apiVersion=batch/v1}"}, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if job.Kind != "" || job.APIVersion != "" {
		t.Errorf("the executor set the TypeMeta of the caller's Job: %+v", job.TypeMeta)
	}
}

// TestDynamicAdoptionRereadsTheResource: before adopting pods the executor
// reads the custom resource afresh through the StatusWriter, and adopts
// nothing when it is being deleted or was replaced.
func TestDynamicAdoptionRereadsTheResource(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*unstructured.Unstructured)
		adopted int
	}{
		{name: "live", adopted: 1},
		{name: "being deleted", change: func(u *unstructured.Unstructured) {
			u.Object["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
		}},
		{name: "replaced", change: func(u *unstructured.Unstructured) { u.SetUID("another") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := trainJobResource()
			if tc.change != nil {
				tc.change(stored)
			}
			client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{trainJobs: "TrainJobList"}, stored)
			view, err := jobview.FromUnstructured(trainJobResource())
			if err != nil {
				t.Fatal(err)
			}
			job, _ := jobspec.Prepare(view)
			pod := &corev1.Pod{}
			pod.Namespace, pod.Name, pod.UID = "ns", "stray", "stray-uid"
			pods := fake.NewClientset(pod)
			opts := jobsync.Options{Owner: trainJob, TrackingFinalizer: "example.com/t"}
			ref := jobsync.OwnerReference(job, opts)
			plan := jobsync.Plan{Adoptions: []jobsync.PodClaim{{
				Pod: jobsync.PodRef{Namespace: "ns", Name: "stray", UID: "stray-uid"}, OwnerReference: ref,
				Patch: []byte(`{"metadata":{"ownerReferences":[{"apiVersion":"example.com/v1","kind":"TrainJob","name":"pi","uid":"tj-uid","controller":true}]}}`),
			}}}
			x := &Executor{Client: pods, TrackingFinalizer: "example.com/t", Status: DynamicStatusWriter(client, trainJobs), Owner: trainJob}
			res, err := x.Execute(context.Background(), memory.NewStore().Begin(jobsync.Snapshot{Job: job}, opts, plan))
			if d := cmp.Diff([]string{"get trainjobs"}, dynamicCalls(client)); d != "" {
				t.Errorf("calls of the resource (-want +got):\n%s", d)
			}
			if res.Adopted != tc.adopted || (tc.adopted == 0) != (err != nil) {
				t.Errorf("adopted %d (err %v), want %d", res.Adopted, err, tc.adopted)
			}
			if tc.adopted == 1 {
				got, err := pods.CoreV1().Pods("ns").Get(context.Background(), "stray", metav1.GetOptions{})
				if err != nil || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].Kind != "TrainJob" {
					t.Errorf("the pod's owner references after adoption: %+v (%v)", got.OwnerReferences, err)
				}
			}
		})
	}
}
