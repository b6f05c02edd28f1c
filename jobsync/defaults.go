package jobsync

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
// modified.
//
// It fills in what batch/v1 defaulting fills in when a field is unset:
//
//   - spec.completions and spec.parallelism: both 1 when both are unset;
//     otherwise parallelism 1 when unset, and completions stays unset;
//   - spec.backoffLimit: 6, or math.MaxInt32 when spec.backoffLimitPerIndex
//     is set;
//   - spec.completionMode: NonIndexed;
//   - spec.suspend and spec.manualSelector: false;
//   - spec.podReplacementPolicy: Failed when spec.podFailurePolicy is set,
//     TerminatingOrFailed otherwise;
//   - the status of each podFailurePolicy onPodConditions pattern: True.
//
// Unless spec.manualSelector is true it then does what the API server does
// to a Job it creates: the pod template gets the labels
// batch.kubernetes.io/controller-uid and controller-uid (the Job's UID) and
// batch.kubernetes.io/job-name and job-name (the Job's name), each only
// where the template has no such label already, and the selector gets
// matchLabels batch.kubernetes.io/controller-uid = UID unless that key is
// already there. Conflicting values the caller set are kept, as upstream
// keeps them, for Validate to report.
//
// The API server always assigns metadata.uid before this step. A Job without
// a UID is left without the generated selector and labels, none of them,
// rather than being given a selector on an empty UID that would match the
// pods of every other UID-less Job; Validate then reports metadata.uid and
// spec.selector as required. Set a UID (and keep it stable) before calling
// Default.
//
// Last, when the Job has no labels of its own and its pod template has a
// label map, the Job gets a copy of the template's labels, generated ones
// included: this is what a Job read back from the API server shows.
//
// Default leaves the pod template's spec alone. The API server's pod-spec
// defaults (dnsPolicy, schedulerName, terminationGracePeriodSeconds,
// securityContext, container defaults) play no part in the Job controller's
// decisions. Its restartPolicy default, Always, is one that Job validation
// rejects exactly as it rejects an empty one, so an unset restartPolicy
// stays unset here and Validate reports it as required. Status, generation
// and the rest of the metadata are kept as given, so Default also suits a
// Job already read from a cluster, on which it changes nothing.
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
// sets. It leaves every field already set as it is.
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
// tie its pods to it alone. job is a private copy with a non-empty UID.
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
