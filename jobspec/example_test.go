package jobspec_test

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// A hand-written Job, as a simulator or a YAML file gives it, lacks what the
// API server fills in. Default fills it in (selector and labels from the
// UID, parallelism, backoffLimit, completion mode and more), Validate
// reports what the API server would reject, and Reconcile then takes it.
func ExampleDefault() {
	job := jobspec.Default(&batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default", UID: "3d8c1a7e"},
		Spec: batchv1.JobSpec{
			Completions: dvPtr[int32](3),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "pi", Image: "perl:5.34.0"}},
			}},
		},
	})
	fmt.Println("parallelism", *job.Spec.Parallelism, "backoffLimit", *job.Spec.BackoffLimit, "mode", *job.Spec.CompletionMode)
	fmt.Println("selector", job.Spec.Selector.MatchLabels)
	fmt.Println("errors:", jobspec.Validate(job))

	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}, jobsync.Options{})
	fmt.Println("creations:", len(plan.Creations), err)

	job.Spec.Parallelism = nil // as if never defaulted
	_, err = jobsync.Reconcile(jobsync.Snapshot{Job: job}, jobsync.Options{})
	fmt.Println(err)
	// Output:
	// parallelism 1 backoffLimit 6 mode NonIndexed
	// selector map[batch.kubernetes.io/controller-uid:3d8c1a7e]
	// errors: []
	// creations: 1 <nil>
	// job.spec.parallelism: is nil; the API server defaults it (see jobspec.Default)
}

// A custom resource that embeds a JobSpec is defaulted and checked on every
// sync with Prepare, seen as a Job; ValidateNew checks it in an admission
// webhook, before it has a UID.
func ExamplePrepare() {
	view := &batchv1.Job{ // the resource's metadata and embedded spec
		ObjectMeta: metav1.ObjectMeta{Name: "train", Namespace: "ml", UID: "7b1e52c4"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "trainer"}},
		}}},
	}
	job, errs := jobspec.Prepare(view)
	fmt.Println("errors:", errs, "selector:", job.Spec.Selector.MatchLabels)

	incoming := view.DeepCopy()
	incoming.UID = "" // at admission
	incoming.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
	fmt.Println(jobspec.ValidateNew(incoming))
	// Output:
	// errors: [] selector: map[batch.kubernetes.io/controller-uid:7b1e52c4]
	// [spec.template.spec.restartPolicy: Required value: one of ["OnFailure" "Never"]: a Job's pods must be able to finish]
}
