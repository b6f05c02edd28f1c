package jobsync

import (
	"cmp"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// classify sorts the pods into the groups the decisions need: active pods
// (neither terminal nor being deleted), ready ones among them, terminating
// ones (being deleted but not terminal), and it loads the uncounted and
// expected-removal UID sets.
func (x *syncState) classify(exp expectations.Expectations) error {
	x.active = make([]*corev1.Pod, 0, len(x.pods))
	for _, p := range x.pods {
		terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		switch {
		case !terminal && p.DeletionTimestamp == nil:
			x.active = append(x.active, p)
			if podorder.IsReady(p) {
				x.ready++
			}
		case !terminal:
			x.terminating++
		}
	}
	x.activeCount = int32(len(x.active))
	x.uncountedSucceeded = uidSet(x.st.UncountedTerminatedPods.Succeeded)
	x.uncountedFailed = uidSet(x.st.UncountedTerminatedPods.Failed)
	x.expectedRemovals = uidSet(exp.FinalizerRemovals)
	return nil
}

func uidSet(uids []types.UID) map[types.UID]bool {
	if len(uids) == 0 {
		return nil
	}
	m := make(map[types.UID]bool, len(uids))
	for _, u := range uids {
		m[u] = true
	}
	return m
}

// tracked reports whether a pod still has to be accounted for by this
// controller: it carries the tracking finalizer and its removal is not
// already under way.
func (x *syncState) tracked(p *corev1.Pod) bool {
	return hasFinalizer(p, x.opts.TrackingFinalizer) && !x.expectedRemovals[p.UID]
}

// validIndex returns the pod's completion index when it is usable, below
// completions, and false otherwise.
func (x *syncState) validIndex(p *corev1.Pod) (int, bool) {
	ix := indexes.Of(p.Annotations)
	return ix, ix != indexes.Unknown && ix < int(*x.job.Spec.Completions)
}

// isFailed reports whether a pod counts as failed: it is in the Failed
// phase, or, unless only failed pods are replaced, it is being deleted
// without having succeeded (orphaned pods may never reach a terminal phase).
func (x *syncState) isFailed(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	if onlyReplaceFailed(x.job) {
		return false
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded
}

// onlyReplaceFailed reports whether pods are replaced only once they are
// Failed, not while they terminate: podReplacementPolicy Failed, or any pod
// failure policy.
func onlyReplaceFailed(job *batchv1.Job) bool {
	if p := job.Spec.PodReplacementPolicy; p != nil && *p == batchv1.Failed {
		return true
	}
	return job.Spec.PodFailurePolicy != nil
}

// newlyFinished returns the tracked pods that finished since the last count
// and are not yet in uncountedTerminatedPods: succeeded ones and failed ones
// (the latter whatever a pod failure policy says of them). For Indexed Jobs,
// pods without a valid index are left out.
func (x *syncState) newlyFinished() (succeeded, failed []*corev1.Pod) {
	for _, p := range x.pods {
		if !x.tracked(p) {
			continue
		}
		if x.indexed {
			if _, ok := x.validIndex(p); !ok {
				continue
			}
		}
		if p.Status.Phase == corev1.PodSucceeded {
			if !x.uncountedSucceeded[p.UID] {
				succeeded = append(succeeded, p)
			}
		} else if x.isFailed(p) && !x.uncountedFailed[p.UID] {
			failed = append(failed, p)
		}
	}
	return succeeded, failed
}

// canonicalCompare orders pods where upstream's order is that of its
// informer cache, which is arbitrary: by completion index for Indexed Jobs
// (as upstream sorts them), then creation time, name and UID.
func (x *syncState) canonicalCompare(a, b *corev1.Pod) int {
	if x.indexed {
		if c := cmp.Compare(indexes.Of(a.Annotations), indexes.Of(b.Annotations)); c != 0 {
			return c
		}
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

func sortClaims(cs []PodClaim) {
	slices.SortFunc(cs, func(a, b PodClaim) int {
		if c := strings.Compare(a.Pod.Name, b.Pod.Name); c != 0 {
			return c
		}
		return strings.Compare(string(a.Pod.UID), string(b.Pod.UID))
	})
}
