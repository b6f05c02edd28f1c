package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// SettledFilter tells which pods a sync of one Job can do without.
//
// A settled pod is one the Job controls (its controller reference names the
// Job), in the Job's namespace, matching its selector, terminal (Succeeded
// or Failed) and without the tracking finalizer: counted in the Job's
// status long ago, and read by no decision again, unless the Job has a pod
// failure policy (whose FailJob rules upstream matches against every failed
// pod), in which case no pod is settled. In a long Job nearly every pod is
// settled: a Job of a million completions ends with a million of them,
// which every sync would otherwise read.
//
// A caller that keeps its pods by event (an informer handler, a simulator)
// can test each pod once, when it changes, keep the settled ones out of
// Snapshot.Pods and give their number in Snapshot.SettledPods. Reconcile
// then returns the same plan as for the whole list, and reads only the
// pods that can still change a decision. What makes a pod settled are
// fields of the Job the API server never lets change (UID, name, namespace,
// selector, pod failure policy), and Options.TrackingFinalizer: a caller
// that may see another Job under the same key, or other options, makes a
// new filter and tests its pods again.
//
// A SettledFilter only reads what it is given; it is safe for concurrent
// use.
type SettledFilter struct {
	job       *batchv1.Job
	match     *labelMatcher
	finalizer string
	ownerKind string // see Options.Owner
}

// NewSettledFilter returns the filter of a Job's settled pods for Reconcile
// called with opts. For a nil Job, or a Job with a pod failure policy, the
// filter settles nothing.
func NewSettledFilter(job *batchv1.Job, opts Options) *SettledFilter {
	if job == nil || job.Spec.PodFailurePolicy != nil {
		return &SettledFilter{}
	}
	opts = opts.withDefaults()
	return &SettledFilter{job: job, match: newLabelMatcher(job.Spec.Selector), finalizer: opts.TrackingFinalizer, ownerKind: opts.Owner.Kind}
}

// Settled reports whether Reconcile can do without the pod (see
// SettledFilter). A nil pod is not settled: Reconcile reports it.
func (f *SettledFilter) Settled(p *corev1.Pod) bool {
	if f.job == nil || p == nil {
		return false
	}
	if !isTerminal(p) || p.Namespace != f.job.Namespace || hasFinalizer(p, f.finalizer) {
		return false
	}
	ref := controllerOf(p)
	return ref != nil && isJobRef(ref, f.job, f.ownerKind) && f.match.matches(p.Labels)
}
