package traps

import (
	"context"
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

const controllerName = "example.com/jobsync"

var finalizer = jobcontroller.TrackingFinalizerFor(controllerName)

// runController runs a jobcontroller on cfg until the test ends, and waits
// for it to stop.
func runController(t *testing.T, cfg *rest.Config, opts jobcontroller.Options) *jobcontroller.Controller {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, -1
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opts.ControllerName == "" {
		opts.ControllerName = controllerName
	}
	c, err := jobcontroller.New(client, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the controller did not stop within 30s of its context's end")
		}
	})
	return c
}

func newJob(name string, completions, parallelism int32) *batchv1.Job {
	managedBy := controllerName
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: batchv1.JobSpec{
			Completions: &completions,
			Parallelism: &parallelism,
			ManagedBy:   &managedBy,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
}

// eventually polls cond every 100ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := cond()
		if ok {
			return
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v (last: %v)", what, timeout, last)
}

func podsOf(ctx context.Context, client kubernetes.Interface, job *batchv1.Job) ([]corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil, err
	}
	list, err := client.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func waitPods(t *testing.T, ctx context.Context, client kubernetes.Interface, job *batchv1.Job, n int) []corev1.Pod {
	t.Helper()
	var pods []corev1.Pod
	eventually(t, 30*time.Second, fmt.Sprintf("%d pods of %s", n, job.Name), func() (bool, error) {
		var err error
		pods, err = podsOf(ctx, client, job)
		return len(pods) == n, fmt.Errorf("%d pods, err %v", len(pods), err)
	})
	return pods
}

// finishPod plays the kubelet: the pod ran and exited with code.
func finishPod(t *testing.T, ctx context.Context, client kubernetes.Interface, pod corev1.Pod, code int32) {
	t.Helper()
	now := metav1.Now()
	p := pod.DeepCopy()
	p.Status.Phase = corev1.PodSucceeded
	if code != 0 {
		p.Status.Phase = corev1.PodFailed
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "main", Image: "busybox",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: now, FinishedAt: now}},
	}}
	if _, err := client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("finishing pod %s: %v", p.Name, err)
	}
}

func hasCondition(job *batchv1.Job, ct batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == ct && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
