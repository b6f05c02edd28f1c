package jobcontroller

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

const testController = "example.com/jobsync"

// testJob is a defaulted Job of testController, of one pod.
func testJob(uid types.UID) *batchv1.Job {
	return jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: uid, ResourceVersion: "1"},
		Spec: batchv1.JobSpec{
			Parallelism: new(int32(1)), Completions: new(int32(1)), ManagedBy: new(testController),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"job": "pi"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"job": "pi"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			},
		},
	})
}

// TestDeletedJobsMemoryIsDropped: the deletion of a Job drops its memory at
// once (upstream v1.37 drops a deleted Job's expectations in its deletion
// handler too), and a new Job of the same name, synced before any sync of
// the old one saw it gone, starts clean: it creates its pod although the
// old Job was still waiting for a creation.
func TestDeletedJobsMemoryIsDropped(t *testing.T) {
	client := fake.NewClientset()
	c, err := New(client, Options{ControllerName: testController, Recorder: record.NewFakeRecorder(100)})
	if err != nil {
		t.Fatal(err)
	}
	old := testJob("old-uid")
	jobs := c.factory.Batch().V1().Jobs().Informer().GetStore()
	if err := jobs.Add(old); err != nil {
		t.Fatal(err)
	}
	// The old Job's last sync created a pod its informer never showed.
	exp := expectations.Expectations{}.ExpectCreations(1, time.Now())
	c.store.Begin(jobsync.Snapshot{Job: old}, jobsync.Options{}, jobsync.Plan{Expectations: exp})
	if c.store.Len() != 1 {
		t.Fatal("no memory stored for the old Job")
	}
	if err := jobs.Delete(old); err != nil {
		t.Fatal(err)
	}
	c.handlers.DeleteJob(old)
	if n := c.store.Len(); n != 0 {
		t.Errorf("%d Jobs' memory kept after the Job's deletion, want none", n)
	}

	fresh := testJob("new-uid")
	if err := jobs.Add(fresh); err != nil {
		t.Fatal(err)
	}
	if err := client.Tracker().Add(fresh); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	if err := c.sync(context.Background(), "ns/pi"); err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "pods" {
			created++
		}
	}
	if created != 1 {
		t.Errorf("the new Job of the same name created %d pods in its first sync, want 1", created)
	}
}

// TestOrphanFinalizerRemovalIsRetriedWithBackoff: the pods of a deleted Job
// go to the orphan queue one by one, and a pod whose finalizer removal
// fails is retried with the rate limit (1s, then 2s), until it succeeds, as
// upstream v1.36.5 and v1.37 retry the pods their by-selector pass failed
// on.
func TestOrphanFinalizerRemovalIsRetriedWithBackoff(t *testing.T) {
	job := testJob("job-uid")
	c, client := newWithPod(t, job)
	var patches atomic.Int32
	client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if patches.Add(1) <= 2 {
			return true, nil, apierrors.NewInternalError(context.DeadlineExceeded)
		}
		return false, nil, nil
	})
	if err := c.factory.Batch().V1().Jobs().Informer().GetStore().Delete(job); err != nil {
		t.Fatal(err)
	}
	c.handlers.DeleteJob(job)
	if n := c.orphans.Len(); n != 1 {
		t.Fatalf("%d keys in the orphan queue after the Job's deletion, want its pod's", n)
	}
	key := "ns/pi-a"
	var at []time.Time
	start := time.Now()
	for range 3 {
		done := make(chan bool)
		go func() { done <- c.orphans.ProcessNext(context.Background()) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the orphan pod was not retried within 10s (%d patches)", patches.Load())
		}
		at = append(at, time.Now())
	}
	if n := patches.Load(); n != 3 {
		t.Errorf("%d finalizer patches, want 3 (two failed, one retried with success)", n)
	}
	if at[1].Sub(start) < 900*time.Millisecond || at[2].Sub(at[1]) < 1900*time.Millisecond {
		t.Errorf("retries at %v and %v after the first try, want after 1s and 2s more", at[1].Sub(start), at[2].Sub(at[1]))
	}
	if n := c.orphans.NumRequeues(key); n != 0 {
		t.Errorf("the rate limiter still counts %d failures once the removal succeeded", n)
	}
	pod, err := client.CoreV1().Pods("ns").Get(context.Background(), "pi-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(pod.Finalizers, c.finalizer) {
		t.Error("the pod keeps the tracking finalizer")
	}
}

// newWithPod is a controller on a fake clientset holding job and one pod
// of it with the tracking finalizer, both in the informer caches.
func newWithPod(t *testing.T, job *batchv1.Job) (*Controller, *fake.Clientset) {
	t.Helper()
	fin := TrackingFinalizerFor(testController)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi-a", UID: "pod-uid", ResourceVersion: "2",
			Labels: job.Spec.Template.Labels, Finalizers: []string{fin},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Spec:   job.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	client := fake.NewClientset(job, pod)
	c, err := New(client, Options{ControllerName: testController, Recorder: record.NewFakeRecorder(100)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.factory.Batch().V1().Jobs().Informer().GetStore().Add(job); err != nil {
		t.Fatal(err)
	}
	if err := c.podIndex.Add(pod); err != nil {
		t.Fatal(err)
	}
	return c, client
}
