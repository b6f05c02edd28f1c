package jobsync

import (
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/indexes"
)

const (
	completionIndexEnv = "JOB_COMPLETION_INDEX"
	// maxGeneratedNamePrefix is the longest generateName the API server
	// accepts in full: 63 characters less the 5 random ones it appends.
	maxGeneratedNamePrefix = 58
)

// addCreation adds one pod creation to part, for completion index ix
// (indexes.Unknown outside Indexed Jobs), and counts the pod as active.
// lastFailure is newPod's.
func (sync *syncState) addCreation(part *Plan, c *podCounts, ix int, reason string, lastFailure *podRecord) {
	pod := sync.newPod(ix, lastFailure)
	creation := PodCreation{Pod: pod, Reason: reason}
	if ix != indexes.Unknown {
		v := ix
		creation.CompletionIndex = &v
	}
	part.Creations = append(part.Creations, creation)
	c.active++
}

// newPod builds the pod upstream creates from the Job's template: the
// template's labels, annotations, finalizers and spec, plus the tracking
// finalizer, the controller owner reference (naming Options.Owner) and
// generateName "<job>-". An
// Indexed pod also gets its index as annotation and label, the hostname
// "<job>-<index>", generateName "<job>-<index>-", JOB_COMPLETION_INDEX in
// every container and init container, and with backoffLimitPerIndex the
// failure counts of its index, one more than lastFailure's (the index's
// last failed pod, nil for none).
func (sync *syncState) newPod(ix int, lastFailure *podRecord) *corev1.Pod {
	job := sync.job
	tmpl := &job.Spec.Template
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    job.Name + "-",
			Namespace:       job.Namespace,
			Labels:          make(map[string]string, len(tmpl.Labels)+1),
			Annotations:     make(map[string]string, len(tmpl.Annotations)+3),
			Finalizers:      append(make([]string, 0, len(tmpl.Finalizers)+1), tmpl.Finalizers...),
			OwnerReferences: []metav1.OwnerReference{OwnerReference(job, sync.opts)},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	for k, v := range tmpl.Labels {
		pod.Labels[k] = v
	}
	for k, v := range tmpl.Annotations {
		pod.Annotations[k] = v
	}
	if !hasFinalizer(pod, sync.opts.TrackingFinalizer) {
		pod.Finalizers = append(pod.Finalizers, sync.opts.TrackingFinalizer)
	}
	if ix == indexes.Unknown {
		return pod
	}
	for i := range pod.Spec.InitContainers {
		addIndexEnv(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		addIndexEnv(&pod.Spec.Containers[i])
	}
	s := strconv.Itoa(ix)
	pod.Annotations[batchv1.JobCompletionIndexAnnotation] = s
	pod.Labels[batchv1.JobCompletionIndexAnnotation] = s
	pod.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, ix)
	pod.GenerateName = indexedGenerateName(job.Name, ix)
	if sync.perIndex {
		count, ignored := replacementFailureCounts(lastFailure)
		pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(count))
		if ignored > 0 {
			pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(ignored))
		}
	}
	return pod
}

// addIndexEnv gives a container JOB_COMPLETION_INDEX from the pod's index
// label, unless it already defines the variable.
func addIndexEnv(c *corev1.Container) {
	for _, e := range c.Env {
		if e.Name == completionIndexEnv {
			return
		}
	}
	c.Env = append(c.Env, corev1.EnvVar{
		Name: completionIndexEnv,
		ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: fmt.Sprintf("metadata.labels['%s']", batchv1.JobCompletionIndexAnnotation),
		}},
	})
}

// indexedGenerateName is "<job>-<index>-", the job name cut so that the
// whole stays within what the API server extends with random characters.
func indexedGenerateName(jobName string, ix int) string {
	suffix := "-" + strconv.Itoa(ix) + "-"
	if len(jobName)+len(suffix) > maxGeneratedNamePrefix {
		jobName = jobName[:max(0, maxGeneratedNamePrefix-len(suffix))]
	}
	return jobName + suffix
}
