package kubeletplayer_test

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/jobsync/jobsync/controller/kubeletplayer"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// Play the pods of an Indexed Job: index 1 fails with exit code 42, the
// others succeed after 100ms. Here the API server is client-go's fake
// clientset and the pods are created by hand; in a test of a controller the
// client reaches a real API server (envtest, or the integration module's
// apiservertest) and the controller under test creates the pods.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()

	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "sample", Namespace: "default", UID: "0b5a6c2e-0000-4000-8000-000000000001"}}
	player := kubeletplayer.New(client, kubeletplayer.Options{})
	player.Play(job, jobsynctest.Script{
		Default: &jobsynctest.Behavior{RunTime: 100 * time.Millisecond},
		Pods:    []jobsynctest.PodRule{{Index: ptr(1), Behavior: jobsynctest.Behavior{RunTime: 100 * time.Millisecond, ExitCode: 42}}},
	})
	for i := range 3 {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("sample-%d", i), Namespace: "default",
				UID:         types.UID(fmt.Sprintf("pod-uid-%d", i)), // the fake clientset assigns none
				Labels:      map[string]string{batchv1.ControllerUidLabel: string(job.UID)},
				Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(i)},
			},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
		}
		if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			panic(err)
		}
	}
	go player.Run(ctx)

	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		panic(err)
	}
	pods, _ := client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	for _, p := range pods.Items {
		fmt.Println(p.Name, p.Status.Phase, "exit code", p.Status.ContainerStatuses[0].State.Terminated.ExitCode)
	}
	// Output:
	// sample-0 Succeeded exit code 0
	// sample-1 Failed exit code 42
	// sample-2 Succeeded exit code 0
}
