package jobspec

import (
	"maps"
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The unprefixed forms of the labels batchv1.JobNameLabel and
// batchv1.ControllerUidLabel, which the API server still puts on the pod
// templates of Jobs whose selector it generates.
const (
	legacyJobNameLabel       = "job-name"
	legacyControllerUIDLabel = "controller-uid"
)

// Default backoff limits the API server fills in when spec.backoffLimit is
// unset: a Job-wide budget of six failures, or no Job-wide budget at all when
// failures are counted per index instead.
const (
	defaultBackoffLimit         int32 = 6
	defaultBackoffLimitPerIndex int32 = math.MaxInt32
)

// Default returns a deep copy of job as the v1.36 API server would store it
// (feature gates at their defaults), so that a hand-written or generated Job
// can be given to Reconcile. A nil job gives nil; job itself is never
// modified. Status, generation and the rest of the metadata are kept as
// given, so Default also suits a Job already read from a cluster, on which
// it changes nothing.
//
// The steps are in this file, in the order they run, each documenting what
// it sets: defaultJobSpec (the batch/v1 defaults of unset spec fields),
// generateSelectorFromUID (the generated template labels and selector,
// unless spec.manualSelector is true, and only for a Job with a UID: set
// one, and keep it stable, before calling Default), and last the Job's
// labels copied from its template when it has none, as a Job read back from
// the API server shows. The pod template's spec is left alone (see
// defaultJobSpec for why).
func Default(job *batchv1.Job) *batchv1.Job {
	if job == nil {
		return nil
	}
	out := job.DeepCopy()
	defaultJobSpec(&out.Spec)
	if !*out.Spec.ManualSelector && out.UID != "" {
		generateSelectorFromUID(out)
	}
	if len(out.Labels) == 0 && out.Spec.Template.Labels != nil {
		out.Labels = maps.Clone(out.Spec.Template.Labels)
	}
	return out
}

// defaultJobSpec sets the unset fields of spec that batch/v1 defaulting
// sets, and leaves every field already set as it is:
//
//   - completions and parallelism: both 1 when both are unset; otherwise
//     parallelism 1 when unset, and completions stays unset;
//   - backoffLimit: 6, or math.MaxInt32 when backoffLimitPerIndex is set;
//   - completionMode: NonIndexed;
//   - suspend and manualSelector: false;
//   - podReplacementPolicy: Failed when podFailurePolicy is set,
//     TerminatingOrFailed otherwise;
//   - the status of each podFailurePolicy onPodConditions pattern: True.
//
// It leaves the pod template's spec alone: the API server's pod-spec
// defaults (dnsPolicy, schedulerName, terminationGracePeriodSeconds,
// securityContext, container defaults) play no part in the Job
// controller's decisions, and its restartPolicy default, Always, is one
// that Job validation rejects exactly as it rejects an empty one, so an
// unset restartPolicy stays unset and Validate reports it as required.
func defaultJobSpec(spec *batchv1.JobSpec) {
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = newInt32(1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = newInt32(1)
	}
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = newInt32(defaultBackoffLimitPerIndex)
		} else {
			spec.BackoffLimit = newInt32(defaultBackoffLimit)
		}
	}
	if spec.CompletionMode == nil {
		mode := batchv1.NonIndexedCompletion
		spec.CompletionMode = &mode
	}
	if spec.Suspend == nil {
		spec.Suspend = newBool(false)
	}
	if spec.PodReplacementPolicy == nil {
		policy := batchv1.TerminatingOrFailed
		if spec.PodFailurePolicy != nil {
			policy = batchv1.Failed
		}
		spec.PodReplacementPolicy = &policy
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = newBool(false)
	}
	if spec.PodFailurePolicy != nil {
		for i := range spec.PodFailurePolicy.Rules {
			patterns := spec.PodFailurePolicy.Rules[i].OnPodConditions
			for j := range patterns {
				if patterns[j].Status == "" {
					patterns[j].Status = corev1.ConditionTrue
				}
			}
		}
	}
}

// generateSelectorFromUID gives job the template labels and selector that
// tie its pods to it alone, as the API server does to a Job it creates: the
// template gets batch.kubernetes.io/controller-uid and controller-uid (the
// UID) and batch.kubernetes.io/job-name and job-name (the name), each only
// where it has no such label already, and the selector gets matchLabels
// batch.kubernetes.io/controller-uid = UID unless that key is there.
// Conflicting values the caller set are kept, as upstream keeps them, for
// Validate to report. job is a private copy with a non-empty UID: the API
// server always assigns one before this step, and a Job without one is
// left without any generated label or selector (a selector on an empty UID
// would match the pods of every other UID-less Job), for Validate to report
// metadata.uid and spec.selector as required.
func generateSelectorFromUID(job *batchv1.Job) {
	tmpl := &job.Spec.Template
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	generated := []struct{ key, value string }{
		{legacyJobNameLabel, job.Name},
		{batchv1.JobNameLabel, job.Name},
		{legacyControllerUIDLabel, string(job.UID)},
		{batchv1.ControllerUidLabel, string(job.UID)},
	}
	for _, l := range generated {
		if _, taken := tmpl.Labels[l.key]; !taken {
			tmpl.Labels[l.key] = l.value
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	sel := job.Spec.Selector
	if sel.MatchLabels == nil {
		sel.MatchLabels = map[string]string{}
	}
	if _, taken := sel.MatchLabels[batchv1.ControllerUidLabel]; !taken {
		sel.MatchLabels[batchv1.ControllerUidLabel] = string(job.UID)
	}
}

func newInt32(v int32) *int32 { return &v }

func newBool(v bool) *bool { return &v }
