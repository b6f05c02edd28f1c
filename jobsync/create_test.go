package jobsync_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// TestCreatedPods pins the whole pod object that a creation carries, for a
// NonIndexed and for an Indexed Job with backoffLimitPerIndex.
func TestCreatedPods(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      map[string]string{"app": "pi", batchv1.ControllerUidLabel: "job-uid"},
			Annotations: map[string]string{"note": "kept"},
			Finalizers:  []string{"example.com/keep"},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:  corev1.RestartPolicyNever,
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox", Env: []corev1.EnvVar{{Name: "JOB_COMPLETION_INDEX", Value: "mine"}}}},
			Containers:     []corev1.Container{{Name: "main", Image: "perl"}},
		},
	}
	owner := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "job-uid", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	indexEnv := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']"}}}

	t.Run("NonIndexed", func(t *testing.T) {
		job := scenarioJob(batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi"}, Spec: batchv1.JobSpec{Completions: ptr(int32(1)), Template: *template.DeepCopy()}})
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: now}, jobsync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				GenerateName:    "pi-",
				Namespace:       "default",
				Labels:          map[string]string{"app": "pi", batchv1.ControllerUidLabel: "job-uid"},
				Annotations:     map[string]string{"note": "kept"},
				Finalizers:      []string{"example.com/keep", batchv1.JobTrackingFinalizer},
				OwnerReferences: []metav1.OwnerReference{owner},
			},
			Spec: *template.Spec.DeepCopy(),
		}
		if len(plan.Creations) != 1 {
			t.Fatalf("got %d creations, want 1", len(plan.Creations))
		}
		if d := cmp.Diff(want, plan.Creations[0].Pod); d != "" {
			t.Errorf("created pod (-want +got):\n%s", d)
		}
		if plan.Creations[0].CompletionIndex != nil {
			t.Errorf("NonIndexed pod has a completion index")
		}
	})

	t.Run("Indexed with backoffLimitPerIndex", func(t *testing.T) {
		job := scenarioJob(batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi"}, Spec: batchv1.JobSpec{
			Completions: ptr(int32(1)), CompletionMode: ptr(batchv1.IndexedCompletion), BackoffLimitPerIndex: ptr(int32(2)),
			Template: *template.DeepCopy(),
		}})
		failed := podFor(job, podShorthand{Name: "pi-0-a", Index: ptr(0), Phase: corev1.PodFailed,
			Finished:    &metav1.Time{Time: now.Add(-time.Hour)},
			Annotations: map[string]string{batchv1.JobIndexFailureCountAnnotation: "1", batchv1.JobIndexIgnoredFailureCountAnnotation: "2"}}, batchv1.JobTrackingFinalizer)
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{failed}, Now: now}, jobsync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		spec := template.Spec.DeepCopy()
		spec.Hostname = "pi-0"
		spec.Containers[0].Env = []corev1.EnvVar{indexEnv}
		want := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				GenerateName: "pi-0-",
				Namespace:    "default",
				Labels:       map[string]string{"app": "pi", batchv1.ControllerUidLabel: "job-uid", batchv1.JobCompletionIndexAnnotation: "0"},
				Annotations: map[string]string{"note": "kept", batchv1.JobCompletionIndexAnnotation: "0",
					batchv1.JobIndexFailureCountAnnotation: "2", batchv1.JobIndexIgnoredFailureCountAnnotation: "2"},
				Finalizers:      []string{"example.com/keep", batchv1.JobTrackingFinalizer},
				OwnerReferences: []metav1.OwnerReference{owner},
			},
			Spec: *spec,
		}
		if len(plan.Creations) != 1 {
			t.Fatalf("got %d creations, want 1 (plan %+v)", len(plan.Creations), plan.Notes)
		}
		if d := cmp.Diff(want, plan.Creations[0].Pod); d != "" {
			t.Errorf("created pod (-want +got):\n%s", d)
		}
		if ix := plan.Creations[0].CompletionIndex; ix == nil || *ix != 0 {
			t.Errorf("completion index = %v, want 0", ix)
		}
		// The failed pod keeps its finalizer until the replacement exists.
		if len(plan.FinalizerRemovals) != 0 {
			t.Errorf("finalizer of the failed pod removed before its replacement exists: %+v", plan.FinalizerRemovals)
		}
	})

	t.Run("long Job names are cut in generateName", func(t *testing.T) {
		name := "a-job-name-that-is-quite-long-and-goes-on-and-on-for-ever-x"
		job := scenarioJob(batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: batchv1.JobSpec{
			Completions: ptr(int32(20)), Parallelism: ptr(int32(20)), CompletionMode: ptr(batchv1.IndexedCompletion)}})
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Now: now}, jobsync.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := plan.Creations[12].Pod.GenerateName
		if want := name[:58-len("-12-")] + "-12-"; got != want || len(got) != 58 {
			t.Errorf("generateName = %q (%d chars), want %q", got, len(got), want)
		}
	})
}
