package jobsynctest_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// A test that needs a Job the way a controller leaves it when its pods fail
// past the backoff limit asks for the status, instead of writing
// conditions by hand, and sets it on the Job it gives a fake client.
func ExampleFinalStatus() {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "report", Namespace: "default", UID: "9c1d0000-0000-4000-8000-000000000001",
			CreationTimestamp: metav1.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr(int32(1)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
	st, err := jobsynctest.FinalStatus(job, jobsynctest.FailFirst(2, 1))
	if err != nil {
		panic(err)
	}
	job.Status = st
	fmt.Println("failed:", st.Failed, "active:", st.Active)
	for _, c := range st.Conditions {
		fmt.Println(c.Type, c.Status, c.Reason, c.LastTransitionTime.UTC().Format(time.RFC3339))
	}
	// Output:
	// failed: 2 active: 0
	// FailureTarget True BackoffLimitExceeded 2026-03-01T09:00:33Z
	// Failed True BackoffLimitExceeded 2026-03-01T09:00:33Z
}

// Each status a controller writes on the way, in order, for a test that
// follows a Job through its life: two pods that succeed.
func ExampleStatuses() {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pair", Namespace: "default", UID: "9c1d0000-0000-4000-8000-000000000002"},
		Spec: batchv1.JobSpec{
			Completions: ptr(int32(2)),
			Parallelism: ptr(int32(2)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
	all, err := jobsynctest.Statuses(job, jobsynctest.AllSucceed())
	if err != nil {
		panic(err)
	}
	for _, st := range all {
		var conds []string
		for _, c := range st.Conditions {
			conds = append(conds, string(c.Type))
		}
		fmt.Printf("active %d ready %d succeeded %d uncounted %d %v\n", st.Active, *st.Ready, st.Succeeded, len(st.UncountedTerminatedPods.Succeeded), conds)
	}
	// Output:
	// active 2 ready 0 succeeded 0 uncounted 0 []
	// active 2 ready 2 succeeded 0 uncounted 0 []
	// active 0 ready 0 succeeded 0 uncounted 2 [SuccessCriteriaMet]
	// active 0 ready 0 succeeded 2 uncounted 0 [SuccessCriteriaMet Complete]
}
