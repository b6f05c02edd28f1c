package jobview_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/jobsync/jobsync/controller/jobview"
)

var (
	trainJob  = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TrainJob"}
	trainJobs = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "trainjobs"}
)

// resource is a TrainJob as the API server stores it: a spec with the
// JobSpec fields it embeds and one of its own, a status with JobStatus
// fields and one of its own.
func resource() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "TrainJob",
		"metadata": map[string]any{
			"name": "train", "namespace": "ml", "uid": "tj-uid", "resourceVersion": "7", "generation": int64(2),
			"labels": map[string]any{"team": "a"},
		},
		"spec": map[string]any{
			"parallelism": int64(2),
			"completions": int64(4),
			"suspend":     true,
			"dataset":     "s3://bucket", // the resource's own
			"template": map[string]any{"spec": map[string]any{
				"restartPolicy": "Never",
				"containers":    []any{map[string]any{"name": "main", "image": "trainer"}},
			}},
		},
		"status": map[string]any{
			"active":    int64(1),
			"succeeded": int64(2),
			"uncountedTerminatedPods": map[string]any{
				"succeeded": []any{"p1"},
				"failed":    []any{"p2"},
			},
			"completedIndexes": "0,1",
			"epoch":            int64(9), // the resource's own
		},
	}}
}

func TestFromUnstructured(t *testing.T) {
	u := resource()
	before := u.DeepCopy()
	job, err := jobview.FromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	want := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "TrainJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ml", UID: "tj-uid", ResourceVersion: "7", Generation: 2,
			Labels: map[string]string{"team": "a"}},
		Spec: batchv1.JobSpec{
			Parallelism: new(int32(2)), Completions: new(int32(4)), Suspend: new(true),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "trainer"}},
			}},
		},
		Status: batchv1.JobStatus{
			Active: 1, Succeeded: 2, CompletedIndexes: "0,1",
			UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"p1"}, Failed: []types.UID{"p2"}},
		},
	}
	if d := cmp.Diff(want, job); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, u); d != "" {
		t.Errorf("FromUnstructured modified its input:\n%s", d)
	}
	job.Labels["team"] = "b"
	if u.GetLabels()["team"] != "a" {
		t.Error("the view shares its labels with the resource")
	}

	back, err := jobview.ToUnstructured(job, trainJob)
	if err != nil {
		t.Fatal(err)
	}
	again, err := jobview.FromUnstructured(back)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(job, again); d != "" {
		t.Errorf("ToUnstructured then FromUnstructured (-view +round trip):\n%s", d)
	}
	if back.GetKind() != "TrainJob" || back.GetAPIVersion() != "example.com/v1" {
		t.Errorf("ToUnstructured names %s %s", back.GetAPIVersion(), back.GetKind())
	}

	bad := resource()
	bad.Object["spec"].(map[string]any)["parallelism"] = "two"
	if _, err := jobview.FromUnstructured(bad); err == nil || !strings.Contains(err.Error(), "TrainJob ml/train") {
		t.Errorf("a parallelism of the wrong shape: got %v, want an error naming the resource", err)
	}
	if _, err := jobview.FromUnstructured(nil); err == nil {
		t.Error("nil: no error")
	}
}

// TestStatusPatch applies the patch as the API server (here client-go's
// dynamic fake, which applies merge patches the same way) would: the
// JobStatus fields become the new status, unset ones are gone at every
// depth, and the resource's own status field stays.
func TestStatusPatch(t *testing.T) {
	u := resource()
	view, err := jobview.FromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	to := &batchv1.JobStatus{
		Succeeded:               3,
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{Failed: []types.UID{"p2", "p3"}},
		Conditions:              []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended"}},
	}
	body, err := jobview.StatusPatch(view.ResourceVersion, &view.Status, to)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"resourceVersion":"7"`) {
		t.Errorf("patch %s has no resourceVersion precondition", body)
	}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{trainJobs: "TrainJobList"}, u)
	patched, err := client.Resource(trainJobs).Namespace("ml").Patch(context.Background(), "train", types.MergePatchType, body, metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	got, err := jobview.FromUnstructured(patched)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(*to, got.Status); d != "" {
		t.Errorf("status after the patch (-want +got):\n%s", d)
	}
	if epoch, _, _ := unstructured.NestedInt64(patched.Object, "status", "epoch"); epoch != 9 {
		t.Errorf("the resource's own status field is %d after the patch, want 9 kept", epoch)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(patched.Object, "status", "uncountedTerminatedPods", "succeeded"); found {
		t.Error("uncountedTerminatedPods.succeeded survived the patch")
	}
	if d := cmp.Diff(u.Object["spec"], patched.Object["spec"]); d != "" {
		t.Errorf("the patch changed the spec:\n%s", d)
	}
}
