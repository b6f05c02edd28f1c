package customresource

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	example "github.com/jobsync/jobsync/examples/customresource"
)

// TestCRDKeepsJobFields stores a TrainingRun whose spec sets every JobSpec
// field the CRD declares and whose status sets every JobStatus field, and
// reads both back unchanged: the API server prunes what a structural
// schema does not declare, and a pruned field would silently change what
// the controller decides or reports.
func TestCRDKeepsJobFields(t *testing.T) {
	srv := apiservertest.Start(t)
	_, ctx := ktesting.NewTestContext(t)
	installCRD(t, ctx, srv.Config)
	runs := dynamic.NewForConfigOrDie(srv.Config).Resource(example.Resource).Namespace(ns)

	spec := baseSpec()
	spec.Parallelism, spec.Completions = ptr(int32(2)), ptr(int32(4))
	spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	spec.BackoffLimit, spec.BackoffLimitPerIndex, spec.MaxFailedIndexes = ptr(int32(3)), ptr(int32(1)), ptr(int32(2))
	spec.ActiveDeadlineSeconds, spec.Suspend = ptr(int64(600)), ptr(true)
	spec.PodReplacementPolicy = ptr(batchv1.Failed)
	spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailIndex,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{3}},
	}}}
	spec.Template.Labels = map[string]string{"app": "train"}
	spec.Template.Spec.Containers[0].Args = []string{"--epochs=3"}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": example.Kind.GroupVersion().String(), "kind": example.Kind.Kind,
		"metadata": map[string]any{"name": "every-field", "namespace": ns},
		"spec":     toMap(t, spec),
	}}
	created, err := runs.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the TrainingRun: %v", err)
	}
	var gotSpec batchv1.JobSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(created.Object["spec"].(map[string]any), &gotSpec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(spec, gotSpec); diff != "" {
		t.Errorf("the stored spec differs from the one sent (-sent +stored):\n%s", diff)
	}

	now := metav1.NewTime(time.Now().Truncate(time.Second))
	status := batchv1.JobStatus{
		StartTime: &now, CompletionTime: &now,
		Active: 1, Succeeded: 2, Failed: 3, Terminating: ptr(int32(1)), Ready: ptr(int32(1)),
		CompletedIndexes: "0,2", FailedIndexes: ptr("1"),
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"a"}, Failed: []types.UID{"b"}},
		Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes",
			Message: "Job has failed indexes", LastProbeTime: now, LastTransitionTime: now}},
	}
	created.Object["status"] = toMap(t, status)
	written, err := runs.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("writing the status: %v", err)
	}
	var gotStatus batchv1.JobStatus
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(written.Object["status"].(map[string]any), &gotStatus); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(status, gotStatus); diff != "" {
		t.Errorf("the stored status differs from the one written (-written +stored):\n%s", diff)
	}
}

// toMap is v as the unstructured map its JSON makes.
func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// installCRD creates the example's CustomResourceDefinition and waits
// until the API server serves it.
func installCRD(t *testing.T, ctx context.Context, cfg *rest.Config) {
	t.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(example.CRD, &crd); err != nil {
		t.Fatalf("reading crd.yaml: %v", err)
	}
	client := apiextensions.NewForConfigOrDie(cfg)
	if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the CRD: %v", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("the CRD is not established: %v", err)
	}
	// Established can come a moment before discovery and the dynamic
	// client's requests are served.
	dyn := dynamic.NewForConfigOrDie(cfg)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(example.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("TrainingRuns are not served: %v", err)
	}
}
