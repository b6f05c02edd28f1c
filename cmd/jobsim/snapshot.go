package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// planInput is the Job and pods of a plan, checked to belong together.
type planInput struct {
	job  *batchv1.Job
	pods []*corev1.Pod
	// jobAt and podsAt say where the Job and each pod were read.
	jobAt  source
	podsAt []source
}

// sourceOf locates an error of Reconcile: an *jobsync.InputError on
// "pods[i]..." is the i-th pod's, any other the Job's.
func (in planInput) sourceOf(err error) source {
	var ie *jobsync.InputError
	if errors.As(err, &ie) {
		var i int
		if _, scanErr := fmt.Sscanf(ie.Field, "pods[%d]", &i); scanErr == nil && i >= 0 && i < len(in.podsAt) {
			return in.podsAt[i]
		}
	}
	return in.jobAt
}

// assemblePlanInput finds the one Job among the objects and checks that
// every pod could be its own. A pod of another Job is refused rather than
// passed on (Reconcile would leave it alone): it almost always means the
// wrong file was given, and the plan would silently be about nothing.
func assemblePlanInput(objs []object) (planInput, error) {
	var in planInput
	var jobAt source
	for _, o := range objs {
		if o.job == nil {
			continue
		}
		if in.job != nil {
			return in, errorAt(o.at, "a second Job (%s); plan reads one Job, first seen at %s", o.job.Name, jobAt)
		}
		in.job, jobAt = o.job, o.at
	}
	in.jobAt = jobAt
	if in.job == nil {
		return in, fmt.Errorf("no Job in the input: give the output of 'kubectl get job NAME -o yaml' with -f")
	}
	job := in.job
	if err := checkServerJob(jobAt, job); err != nil {
		return in, err
	}
	names := map[string]source{}
	for _, o := range objs {
		if o.pod == nil {
			continue
		}
		p := o.pod
		if err := checkPod(o.at, p, job); err != nil {
			return in, err
		}
		if prev, dup := names[p.Name]; dup {
			return in, errorAt(o.at, "pod %s is given twice (also at %s)", p.Name, prev)
		}
		names[p.Name] = o.at
		in.pods = append(in.pods, p)
		in.podsAt = append(in.podsAt, o.at)
	}
	// Default changes nothing on a Job read from the API server; it fills in
	// what a hand-edited copy may have dropped (suspend, completionMode...).
	in.job = jobspec.Default(job)
	if errs := jobspec.Validate(in.job); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return in, errorAt(jobAt, "Job %s is not valid: %s", job.Name, strings.Join(msgs, "; "))
	}
	return in, nil
}

// checkServerJob requires what the API server sets on every Job it stores:
// plan decides about a Job in a cluster, and pods are tied to it by UID.
func checkServerJob(at source, job *batchv1.Job) error {
	switch {
	case job.Name == "":
		return errorAt(at, "Job is missing field metadata.name")
	case job.UID == "":
		return errorAt(at, "Job %s is missing field metadata.uid: plan reads a Job as the API server returns it (kubectl get job %s -o yaml); to try a manifest, use 'jobsim run'", job.Name, job.Name)
	case job.CreationTimestamp.IsZero():
		return errorAt(at, "Job %s is missing field metadata.creationTimestamp: plan reads a Job as the API server returns it (kubectl get job %s -o yaml)", job.Name, job.Name)
	}
	return nil
}

// checkPod requires the fields the controller reads on every pod and
// refuses pods that belong elsewhere.
func checkPod(at source, p *corev1.Pod, job *batchv1.Job) error {
	switch {
	case p.Name == "":
		return errorAt(at, "Pod is missing field metadata.name")
	case p.UID == "":
		return errorAt(at, "pod %s is missing field metadata.uid (the controller counts pods by UID)", p.Name)
	case p.CreationTimestamp.IsZero():
		return errorAt(at, "pod %s is missing field metadata.creationTimestamp", p.Name)
	case p.Namespace != job.Namespace:
		return errorAt(at, "pod %s is in namespace %q, the Job %s in %q", p.Name, p.Namespace, job.Name, job.Namespace)
	}
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
		if ref.Kind == "Job" && ref.UID != job.UID {
			return errorAt(at, "pod %s belongs to another Job: its controller is Job %s (uid %s), not Job %s (uid %s)", p.Name, ref.Name, ref.UID, job.Name, job.UID)
		}
		if ref.Kind != "Job" {
			return errorAt(at, "pod %s belongs to %s %s, not to Job %s", p.Name, ref.Kind, ref.Name, job.Name)
		}
		return nil
	}
	// An orphan that the selector matches may be adopted, even with labels
	// of another Job (the documentation's manualSelector example adopts the
	// pods of a Job deleted with --cascade=orphan). One that it does not
	// match and whose labels name another Job is the wrong file.
	if sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector); err == nil && sel.Matches(labels.Set(p.Labels)) {
		return nil
	}
	for _, l := range []struct{ key, want string }{
		{batchv1.JobNameLabel, job.Name}, {"job-name", job.Name},
		{batchv1.ControllerUidLabel, string(job.UID)}, {"controller-uid", string(job.UID)},
	} {
		if v, ok := p.Labels[l.key]; ok && v != l.want {
			return errorAt(at, "pod %s belongs to another Job: its label %s is %q, not %q", p.Name, l.key, v, l.want)
		}
	}
	return nil
}

// latestTime is plan's default clock: the latest timestamp in the input.
// It is deterministic (the same files give the same plan tomorrow) and it
// is the moment just after the last thing that happened, which is when a
// controller would have synced.
func latestTime(in planInput) (time.Time, bool) {
	var ts []time.Time
	add := func(t *metav1.Time) {
		if t != nil && !t.IsZero() {
			ts = append(ts, t.Time)
		}
	}
	job := in.job
	add(&job.CreationTimestamp)
	add(job.DeletionTimestamp)
	add(job.Status.StartTime)
	add(job.Status.CompletionTime)
	for i := range job.Status.Conditions {
		add(&job.Status.Conditions[i].LastProbeTime)
		add(&job.Status.Conditions[i].LastTransitionTime)
	}
	for _, p := range in.pods {
		add(&p.CreationTimestamp)
		add(p.DeletionTimestamp)
		add(p.Status.StartTime)
		for i := range p.Status.Conditions {
			add(&p.Status.Conditions[i].LastProbeTime)
			add(&p.Status.Conditions[i].LastTransitionTime)
		}
		for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
			for i := range list {
				s := &list[i]
				for _, st := range []corev1.ContainerState{s.State, s.LastTerminationState} {
					if st.Running != nil {
						add(&st.Running.StartedAt)
					}
					if st.Terminated != nil {
						add(&st.Terminated.StartedAt)
						add(&st.Terminated.FinishedAt)
					}
				}
			}
		}
	}
	if len(ts) == 0 {
		return time.Time{}, false
	}
	return slices.MaxFunc(ts, time.Time.Compare), true
}
