package executor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"

	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// deadlineJob is a new Job of three pods with an active deadline, as the
// API server stores it.
func deadlineJob() *batchv1.Job {
	three, deadline := int32(3), int64(20)
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "job-uid", ResourceVersion: "1"},
		Spec: batchv1.JobSpec{
			Parallelism: &three, Completions: &three, ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "pi"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "pi", Image: "perl"}}},
			},
		},
	})
	return job
}

// TestRefusedCreationsStillWriteTheStatus: a quota refuses every pod of
// a Job with an active deadline. As upstream does, the status is written
// anyway (startTime set, no pod active), so the deadline can fire, and the
// creation error is returned afterwards for a rate-limited retry. The
// events go through the events.k8s.io recorder.
func TestRefusedCreationsStillWriteTheStatus(t *testing.T) {
	job := deadlineJob()
	client := fake.NewClientset(job)
	quota := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("exceeded quota"))
	client.PrependReactor("create", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, quota
	})
	var written *batchv1.JobStatus
	client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		written = a.(k8stesting.UpdateAction).GetObject().(*batchv1.Job).Status.DeepCopy()
		return false, nil, nil
	})
	store := memory.NewStore()
	now := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	snap, err := store.Snapshot(job, now, memory.NoPods)
	if err != nil {
		t.Fatal(err)
	}
	opts := jobsync.Options{}
	plan, err := jobsync.Reconcile(snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := events.NewFakeRecorder(10)
	x := &Executor{Client: client, Events: rec, TrackingFinalizer: batchv1.JobTrackingFinalizer}
	res, err := x.Execute(context.Background(), store.Begin(snap, opts, plan))

	var stepErr *Error
	if !errors.As(err, &stepErr) || stepErr.Step != StepCreate || !apierrors.IsForbidden(err) {
		t.Fatalf("Execute returned %v, want the creation's Forbidden error", err)
	}
	if diff := cmp.Diff([]string{"create pods", "update jobs/status"}, calls(client)); diff != "" {
		t.Errorf("calls (-want +got): one creation (slow start), then the status\n%s", diff)
	}
	if written == nil || written.StartTime == nil || written.Active != 0 {
		t.Fatalf("status written %+v, want startTime set and nothing active", written)
	}
	if !res.InterimStatusWritten || res.Created != 0 {
		t.Errorf("result %+v", res)
	}
	if diff := cmp.Diff(jobsync.PodFailures{Creations: 3}, res.Progress.Pods); diff != "" {
		t.Errorf("pod failures (-want +got):\n%s", diff)
	}
	mem, _ := store.Get("ns", "pi", "job-uid")
	if mem.Expectations.Creations != 0 {
		t.Errorf("expected creations %d, want 0: none will ever be observed", mem.Expectations.Creations)
	}
	close(rec.Events)
	var got []string
	for e := range rec.Events {
		got = append(got, e)
	}
	if len(got) != 1 || got[0][:len("Warning FailedCreate")] != "Warning FailedCreate" {
		t.Errorf("events %q, want one FailedCreate", got)
	}
}

// TestFailedDeletionOfAFinishingJob: a Job past its deadline whose active
// pod cannot be deleted is not failed in this sync (upstream waits until
// every deletion went through); its status says the pod is still active,
// and the error is returned.
func TestFailedDeletionOfAFinishingJob(t *testing.T) {
	job := deadlineJob()
	start := metav1.NewTime(time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC))
	job.Status.StartTime = &start
	job.Status.Active = 1
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi-a", UID: "pod-a", Labels: job.Spec.Template.Labels,
		Finalizers:      []string{batchv1.JobTrackingFinalizer},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	client := fake.NewClientset(job, pod)
	client.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("etcd is away"))
	})
	var written []batchv1.JobStatus
	client.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		written = append(written, a.(k8stesting.UpdateAction).GetObject().(*batchv1.Job).Status)
		return false, nil, nil
	})
	store := memory.NewStore()
	snap, err := store.Snapshot(job, time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC), func(*batchv1.Job) ([]*corev1.Pod, error) { return []*corev1.Pod{pod}, nil })
	if err != nil {
		t.Fatal(err)
	}
	plan, err := jobsync.Reconcile(snap, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Deletions) != 1 || plan.InterimStatus == nil || len(plan.InterimStatus.Conditions) == 0 {
		t.Fatalf("want a plan deleting the pod and failing the Job, got %+v", plan)
	}
	_, err = (&Executor{Client: client, Events: events.NewFakeRecorder(10), TrackingFinalizer: batchv1.JobTrackingFinalizer}).
		Execute(context.Background(), store.Begin(snap, jobsync.Options{}, plan))
	var stepErr *Error
	if !errors.As(err, &stepErr) || stepErr.Step != StepDelete {
		t.Fatalf("Execute returned %v, want the deletion's error", err)
	}
	if len(written) == 0 {
		t.Fatal("no status written after the failed deletion")
	}
	for _, st := range written {
		if st.Active != 1 || len(st.Conditions) != 0 {
			t.Errorf("status written %+v, want the pod still active and no condition", st)
		}
	}
	for _, c := range calls(client) {
		if c == "patch pods" {
			t.Error("a finalizer was removed from a pod whose Job is not failing yet")
		}
	}
}
