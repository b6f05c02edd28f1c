// Package jobtest_test runs the controller module's jobtest against a real
// kube-apiserver, as a suite of controller-runtime's envtest would.
package jobtest_test

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobtest"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

func TestMain(m *testing.M) { apiservertest.Main(m) }

func newJob(name string, completions, backoffLimit int32, labels map[string]string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec: batchv1.JobSpec{
			Completions: &completions, Parallelism: &completions, BackoffLimit: &backoffLimit,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
}

// waitFor polls the Job until done says it is what the test waits for.
func waitFor(t *testing.T, client kubernetes.Interface, name string, done func(*batchv1.Job) bool) *batchv1.Job {
	t.Helper()
	var job *batchv1.Job
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		job, err = client.BatchV1().Jobs("default").Get(ctx, name, metav1.GetOptions{})
		return err == nil && done(job), nil
	})
	if err != nil {
		t.Fatalf("Job %s: %v; status %+v", name, err, job.Status)
	}
	return job
}

func condition(job *batchv1.Job, ct batchv1.JobConditionType) *batchv1.JobCondition {
	for i, c := range job.Status.Conditions {
		if c.Type == ct && c.Status == corev1.ConditionTrue {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}

// TestJobsCompleteFailAndResume: with jobtest started, Jobs without
// spec.managedBy complete, fail by their backoff limit, and wait while
// suspended; once stopped, nothing runs Jobs any more.
func TestJobsCompleteFailAndResume(t *testing.T) {
	srv := apiservertest.Start(t)
	ctx := t.Context()
	env, err := jobtest.Start(ctx, srv.Config, jobtest.Options{
		Sync: jobsync.Options{BackoffBase: 100 * time.Millisecond},
		ScriptFor: func(job *batchv1.Job) *jobsynctest.Script {
			if job.Labels["outcome"] == "fail" {
				return &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 50 * time.Millisecond, ExitCode: 1}}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := srv.Client
	create := func(job *batchv1.Job) {
		t.Helper()
		if _, err := client.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	others := newJob("others", 1, 6, nil)
	others.Spec.ManagedBy = new("example.com/another-controller")
	create(others)
	create(newJob("ok", 2, 6, nil))
	create(newJob("fail", 1, 1, map[string]string{"outcome": "fail"}))
	suspended := newJob("suspended", 1, 6, nil)
	suspended.Spec.Suspend = new(true)
	create(suspended)

	ok := waitFor(t, client, "ok", func(j *batchv1.Job) bool { return condition(j, batchv1.JobComplete) != nil })
	if ok.Status.Succeeded != 2 || condition(ok, batchv1.JobSuccessCriteriaMet) == nil || ok.Status.StartTime == nil || ok.Status.CompletionTime == nil {
		t.Errorf("completed Job: %+v", ok.Status)
	}
	failed := waitFor(t, client, "fail", func(j *batchv1.Job) bool { return condition(j, batchv1.JobFailed) != nil })
	if c := condition(failed, batchv1.JobFailed); failed.Status.Failed != 2 || c.Reason != batchv1.JobReasonBackoffLimitExceeded || condition(failed, batchv1.JobFailureTarget) == nil {
		t.Errorf("failed Job: %+v", failed.Status)
	}

	// A suspended Job gets no pod.
	waitFor(t, client, "suspended", func(j *batchv1.Job) bool { return condition(j, batchv1.JobSuspended) != nil })
	pods, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=suspended"})
	if err != nil || len(pods.Items) != 0 {
		t.Fatalf("suspended Job's pods: %d, %v", len(pods.Items), err)
	}
	job, err := client.BatchV1().Jobs("default").Get(ctx, "suspended", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job.Spec.Suspend = new(false)
	if _, err := client.BatchV1().Jobs("default").Update(ctx, job, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	resumed := waitFor(t, client, "suspended", func(j *batchv1.Job) bool { return condition(j, batchv1.JobComplete) != nil })
	if resumed.Status.Succeeded != 1 {
		t.Errorf("resumed Job: %+v", resumed.Status)
	}
	// A Job another controller manages is left to it.
	pods, err = client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=others"})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("a Job managed by another controller got %d pods (%v)", len(pods.Items), err)
	}
	if j, err := client.BatchV1().Jobs("default").Get(ctx, "others", metav1.GetOptions{}); err != nil || j.Status.StartTime != nil || len(j.Status.Conditions) != 0 {
		t.Errorf("a Job managed by another controller got a status: %v", err)
	}
	if s := env.Stats(); s.Succeeded != 3 || s.Failed != 2 || s.Errors != 0 {
		t.Errorf("player stats %+v, want 3 pods succeeded and 2 failed, no error", s)
	}

	if err := env.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case <-env.Done():
	default:
		t.Fatal("Done is open after Stop returned")
	}
	create(newJob("after-stop", 1, 6, nil))
	time.Sleep(3 * time.Second)
	pods, err = client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=after-stop"})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("a Job created after Stop got %d pods (%v): something still runs Jobs", len(pods.Items), err)
	}
}
