package jobcontroller

import (
	"context"
	"fmt"
	"slices"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

func jobManagedBy(name string, managedBy *string) *batchv1.Job {
	return jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"},
		Spec: batchv1.JobSpec{
			Parallelism: new(int32(2)), Completions: new(int32(2)), ManagedBy: managedBy,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"job": name}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			},
		},
	})
}

// TestBuiltInModeRunsTheBuiltInControllersJobs: in the built-in mode the
// controller answers to Jobs without spec.managedBy and to
// kubernetes.io/job-controller, and to no other; outside it, to neither.
func TestBuiltInModeRunsTheBuiltInControllersJobs(t *testing.T) {
	builtIn, err := New(fake.NewClientset(), Options{ActAsBuiltIn: true})
	if err != nil {
		t.Fatal(err)
	}
	external, err := New(fake.NewClientset(), Options{ControllerName: "example.com/jobsync"})
	if err != nil {
		t.Fatal(err)
	}
	if got := builtIn.TrackingFinalizer(); got != batchv1.JobTrackingFinalizer {
		t.Errorf("built-in mode finalizer %q, want %q", got, batchv1.JobTrackingFinalizer)
	}
	if builtIn.opts.Sync.ControllerName != jobsync.DefaultControllerName {
		t.Errorf("built-in mode syncs as %q", builtIn.opts.Sync.ControllerName)
	}
	for _, tt := range []struct {
		managedBy             *string
		wantBuiltIn, wantExtl bool
	}{
		{nil, true, false},
		{new(jobsync.DefaultControllerName), true, false},
		{new("example.com/jobsync"), false, true},
		{new("kueue.x-k8s.io/multikueue"), false, false},
	} {
		job := jobManagedBy("j", tt.managedBy)
		if got := builtIn.ours(job); got != tt.wantBuiltIn {
			t.Errorf("built-in mode runs a Job managed by %v: %v, want %v", ptrString(tt.managedBy), got, tt.wantBuiltIn)
		}
		if got := external.ours(job); got != tt.wantExtl {
			t.Errorf("external controller runs a Job managed by %v: %v, want %v", ptrString(tt.managedBy), got, tt.wantExtl)
		}
	}
}

func ptrString(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

func TestBuiltInModeRejectsAnotherName(t *testing.T) {
	if _, err := New(fake.NewClientset(), Options{ActAsBuiltIn: true, ControllerName: "example.com/jobsync"}); err == nil {
		t.Error("ActAsBuiltIn with ControllerName example.com/jobsync: no error")
	}
	if _, err := New(fake.NewClientset(), Options{ActAsBuiltIn: true, ControllerName: jobsync.DefaultControllerName}); err != nil {
		t.Errorf("ActAsBuiltIn with the built-in name: %v", err)
	}
}

// TestBuiltInModeSyncCreatesPodsWithTheBuiltInFinalizer: a sync of a Job
// without spec.managedBy creates its pods with upstream's tracking
// finalizer, as kube-controller-manager would.
func TestBuiltInModeSyncCreatesPodsWithTheBuiltInFinalizer(t *testing.T) {
	client := fake.NewClientset()
	// The fake clientset does not generate names.
	n := 0
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			n++
			pod.Name = fmt.Sprintf("%s%d", pod.GenerateName, n)
		}
		return false, nil, nil
	})
	c, err := New(client, Options{ActAsBuiltIn: true, Recorder: record.NewFakeRecorder(100)})
	if err != nil {
		t.Fatal(err)
	}
	job := jobManagedBy("pi", nil)
	if err := client.Tracker().Add(job); err != nil {
		t.Fatal(err)
	}
	if err := c.factory.Batch().V1().Jobs().Informer().GetStore().Add(job); err != nil {
		t.Fatal(err)
	}
	if err := c.sync(context.Background(), "ns/pi"); err != nil {
		t.Fatal(err)
	}
	pods, err := client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Fatalf("the sync created %d pods, want 2", len(pods.Items))
	}
	for _, p := range pods.Items {
		if !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
			t.Errorf("pod %s has finalizers %v, want %s", p.Name, p.Finalizers, batchv1.JobTrackingFinalizer)
		}
	}
}
