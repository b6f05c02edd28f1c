package customresource

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

const ns = "default"

func ptr[T any](v T) *T { return &v }

// baseSpec is the spec every TrainingRun and Job of these tests starts
// from: one pod of one container, restartPolicy Never.
func baseSpec() batchv1.JobSpec {
	return batchv1.JobSpec{
		Parallelism: ptr(int32(1)),
		Completions: ptr(int32(1)),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
		}},
	}
}
