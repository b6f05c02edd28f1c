package scenarios

import (
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// scenario is one Job's life: its spec, how its pods behave, what users do
// to it and when, and how it must end.
type scenario struct {
	name string
	// description says what a generated scenario drew.
	description string
	// job shapes baseJob.
	job func(j *batchv1.Job)
	// script drives the Job's pods.
	script jobsynctest.Script
	// before runs before the Job is created, after runs once it is (each
	// once per Job of the run).
	before, after func(e *env, r *jobRun)
	// steps are user actions, at times from the Job's creation.
	steps []step
	// untilGone waits for the Job to be gone instead of finished.
	untilGone bool
	timeout   time.Duration
	// want is the outcome to reach (see expect), unless anyOutcome (the
	// generated Jobs, judged against upstream only).
	want       expect
	anyOutcome bool
	// check adds assertions on the record; it returns what is wrong.
	check func(rec *record) []string
}

// expect is the part of an outcome a scenario pins.
type expect struct {
	gone             bool
	finished         batchv1.JobConditionType // Complete, Failed, or "" when gone
	reason           string
	succeeded        int32
	failed           int32
	completedIndexes string
	failedIndexes    *string
}

// step is a user action.
type step struct {
	at   time.Duration
	what string
	do   func(e *env, r *jobRun) error
}

func patchJob(what string, at time.Duration, body string) step {
	return step{at: at, what: what, do: func(e *env, r *jobRun) error {
		_, err := e.srv.Client.BatchV1().Jobs(ns).Patch(e.ctx, r.name, types.MergePatchType, []byte(body), metav1.PatchOptions{})
		return err
	}}
}

func suspendAt(at time.Duration) step { return patchJob("suspend", at, `{"spec":{"suspend":true}}`) }
func resumeAt(at time.Duration) step  { return patchJob("resume", at, `{"spec":{"suspend":false}}`) }
func scaleAt(at time.Duration, n int32) step {
	return patchJob("scale", at, `{"spec":{"completions":`+itoa(n)+`,"parallelism":`+itoa(n)+`}}`)
}
func parallelismAt(at time.Duration, n int32) step {
	return patchJob("parallelism", at, `{"spec":{"parallelism":`+itoa(n)+`}}`)
}

// deleteAt deletes the Job with background propagation. No garbage
// collector runs in these tests, so the pods stay; what matters is that the
// Job's controller removes their tracking finalizers.
func deleteAt(at time.Duration) step {
	return step{at: at, what: "delete", do: func(e *env, r *jobRun) error {
		return e.srv.Client.BatchV1().Jobs(ns).Delete(e.ctx, r.name, metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)})
	}}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

func run(d time.Duration) *jobsynctest.Behavior { return &jobsynctest.Behavior{RunTime: d} }

func indexed(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion) }

func sizes(completions, parallelism int32) func(j *batchv1.Job) {
	return func(j *batchv1.Job) {
		j.Spec.Completions, j.Spec.Parallelism = ptr(completions), ptr(parallelism)
		if completions < 0 {
			j.Spec.Completions = nil
		}
	}
}

func all(fs ...func(j *batchv1.Job)) func(j *batchv1.Job) {
	return func(j *batchv1.Job) {
		for _, f := range fs {
			f(j)
		}
	}
}

// podTemplateLabels are the labels a scenario's own pods carry to match a
// Job with a manual selector.
func manualSelector(key string) func(j *batchv1.Job) {
	return func(j *batchv1.Job) {
		j.Spec.ManualSelector = ptr(true)
		labels := map[string]string{"scenario-job": key + "-" + j.Name}
		j.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
		j.Spec.Template.Labels = labels
	}
}

// podFor is a pod like the Job's own, created by the scenario.
func podFor(r *jobRun, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns,
			Labels:      r.job.Spec.Template.Labels,
			Annotations: map[string]string{forJobAnnotation: r.name},
		},
		Spec: *r.job.Spec.Template.Spec.DeepCopy(),
	}
}
