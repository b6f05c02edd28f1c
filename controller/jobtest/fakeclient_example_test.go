package jobtest_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// Without an API server: a fake clientset holds the Job with the status a
// controller leaves when its pods fail past the backoff limit, and the
// code under test reads it as it would read a real one.
func Example_fakeClient() {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "report", Namespace: "default", UID: "9c1d0000-0000-4000-8000-000000000003",
			CreationTimestamp: metav1.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)},
		Spec: batchv1.JobSpec{
			BackoffLimit: new(int32(1)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
	var err error
	job.Status, err = jobsynctest.FinalStatus(job, jobsynctest.FailFirst(2, 1)) // Failed, BackoffLimitExceeded
	if err != nil {
		panic(err)
	}
	client := fake.NewClientset(job)

	got, err := client.BatchV1().Jobs("default").Get(context.Background(), "report", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	for _, c := range got.Status.Conditions {
		fmt.Println(c.Type, c.Status, c.Reason)
	}
	fmt.Println("failed:", got.Status.Failed, "startTime set:", got.Status.StartTime != nil)
	// Output:
	// FailureTarget True BackoffLimitExceeded
	// Failed True BackoffLimitExceeded
	// failed: 2 startTime set: true
}

// TestREADMEFakeClient: the first line of README's fake-client snippet is
// Example_fakeClient's, so the README's call stays one that compiles, and
// the second names the constructor the example uses.
func TestREADMEFakeClient(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("fakeclient_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"job.Status, err = jobsynctest.FinalStatus(job, jobsynctest.FailFirst(2, 1)) // Failed, BackoffLimitExceeded\n",
		"client := fake.NewClientset(job)",
	} {
		if !strings.Contains(string(readme), "\n"+line) || !strings.Contains(string(src), "\t"+line) {
			t.Errorf("README.md and this example no longer share the line %q", strings.TrimSpace(line))
		}
	}
}
