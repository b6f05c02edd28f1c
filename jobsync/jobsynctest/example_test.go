package jobsynctest_test

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

func ptr[T any](v T) *T { return &v }

// An Indexed Job of three completions whose index 1 fails once with exit
// code 42 before it succeeds; the failed pod is replaced after the
// pod-failure backoff.
func Example() {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "sample", Namespace: "default", UID: "0b5a6c2e-1d7f-4e0a-9c3b-000000000001"},
		Spec: batchv1.JobSpec{
			Completions:    ptr(int32(3)),
			Parallelism:    ptr(int32(3)),
			CompletionMode: ptr(batchv1.IndexedCompletion),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
	cluster, err := jobsynctest.NewCluster(job, jobsynctest.Config{
		Script: jobsynctest.Script{
			Default: &jobsynctest.Behavior{StartDelay: 2 * time.Second, RunTime: 30 * time.Second},
			Pods: []jobsynctest.PodRule{{
				Index: ptr(1), Attempt: ptr(0),
				Behavior: jobsynctest.Behavior{StartDelay: 2 * time.Second, RunTime: 10 * time.Second, ExitCode: 42},
			}},
		},
	})
	if err != nil {
		panic(err)
	}
	res, err := cluster.Run()
	if err != nil {
		panic(err)
	}
	start := jobsynctest.DefaultStart
	for _, s := range res.Steps {
		if s.Kind == jobsynctest.KindSync && (s.Plan == nil || len(s.Plan.Creations) == 0) {
			continue
		}
		fmt.Println(strings.Join(strings.Fields(fmt.Sprintf("%v %s %s %s", s.Time.Sub(start), s.Kind, s.Pod, s.Detail)), " "))
	}
	fmt.Println(res.Outcome, "succeeded:", res.Job.Status.Succeeded, "failed:", res.Job.Status.Failed, "pods created:", res.Created)
	// Output:
	// 0s sync 3 creations, status
	// 2s pod-running sample-0-dbjkm
	// 2s pod-running sample-1-6vkf8
	// 2s pod-running sample-2-vx7fm
	// 12s pod-failed sample-1-6vkf8 container main exited 42
	// 22s sync 1 creations, status
	// 24s pod-running sample-1-bltqf
	// 32s pod-succeeded sample-0-dbjkm
	// 32s pod-succeeded sample-2-vx7fm
	// 54s pod-succeeded sample-1-bltqf
	// Complete succeeded: 3 failed: 1 pods created: 4
}
