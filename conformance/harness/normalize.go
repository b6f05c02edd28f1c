package harness

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/jobsync/jobsync/conformance/upstream"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// maxUncountedPods is upstream's per-sync cap on newly uncounted pods.
const maxUncountedPods = 500

// view holds what the normalisation needs to know about a snapshot: where
// upstream's own choices are not determined by the snapshot.
type view struct {
	// tieKey maps the name of an active pod to the name that stands for
	// its tie class. Upstream picks pods to delete by sorting active pods
	// with sort.Sort (not stable) on controller.ActivePods, starting from the
	// informer's order (a map's). Among pods that ActivePods ranks equal,
	// which ones go is therefore not determined; which tie classes go, and
	// how many from each, is. Deletions are compared by class.
	tieKey map[string]string
	// capped says upstream may stop at MaxUncountedPods in this sync: which
	// terminated pods make it into this sync depends on the informer's order
	// (for Indexed Jobs, an unstable sort by index). Then only the number of
	// uncounted UIDs and finalizer removals is compared, not which.
	capped bool
	// failJobMessages are the FailJob messages any pod would give; upstream
	// reports the first failed pod it meets in the informer's order.
	failJobMessages []string
}

func newView(s jobsync.Snapshot) view {
	var v view
	job := s.Job
	var owned, active []*corev1.Pod
	tracked := 0
	for _, p := range s.Pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil || ref.UID != job.UID {
			continue
		}
		owned = append(owned, p)
		if controller.IsPodActive(p) {
			active = append(active, p)
		}
		if hasTrackingFinalizer(p) && !s.Expectations.ExpectsFinalizerRemoval(p.UID) {
			tracked++
		}
	}
	// Orphans that would be adopted count as tracked too.
	// With the informer order fixed (see informerOrder), only Indexed Jobs
	// keep a choice here: upstream sorts pods by index with an unstable sort.
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	v.capped = indexed && tracked+len(s.Pods)-len(owned) >= maxUncountedPods
	v.tieKey = tieClasses(active)
	v.failJobMessages = upstream.FailJobMessages(job, owned)
	return v
}

// tieClasses groups pods that controller.ActivePods ranks equal and names
// each group after its first member by name.
func tieClasses(pods []*corev1.Pod) map[string]string {
	if len(pods) < 2 {
		return nil
	}
	sortedPods := slices.Clone(pods)
	sort.SliceStable(sortedPods, func(i, j int) bool { return sortedPods[i].Name < sortedPods[j].Name })
	less := func(a, b *corev1.Pod) bool { return controller.ActivePods([]*corev1.Pod{a, b}).Less(0, 1) }
	sort.SliceStable(sortedPods, func(i, j int) bool { return less(sortedPods[i], sortedPods[j]) })
	out := map[string]string{}
	rep := sortedPods[0].Name
	for i, p := range sortedPods {
		if i > 0 && less(sortedPods[i-1], p) {
			rep = p.Name
		}
		if rep != p.Name {
			out[p.Name] = "tie-class-of:" + rep
			out[rep] = "tie-class-of:" + rep
		}
	}
	return out
}

// normalize puts o in the canonical form compared by Diff.
func (v view) normalize(o *Outcome) {
	for i, d := range o.Deletions {
		if k, ok := v.tieKey[d.Pod]; ok {
			o.Deletions[i].Pod = k
		}
	}
	sort.Slice(o.Deletions, func(i, j int) bool {
		a, b := o.Deletions[i], o.Deletions[j]
		if a.Pod != b.Pod {
			return a.Pod < b.Pod
		}
		return !a.RemoveFinalizer && b.RemoveFinalizer
	})
	if len(o.Deletions) == 0 {
		o.Deletions = nil
	}

	creations := make([]*corev1.Pod, len(o.Creations))
	for i, p := range o.Creations {
		creations[i] = p.DeepCopy()
	}
	sort.SliceStable(creations, func(i, j int) bool {
		a, b := creations[i], creations[j]
		if ia, ib := completionIndex(a), completionIndex(b); ia != ib {
			return ia < ib
		}
		return a.GenerateName < b.GenerateName
	})
	if len(creations) == 0 {
		creations = nil
	}
	o.Creations = creations

	for _, st := range []*batchv1.JobStatus{o.InterimStatus, o.Status} {
		if st == nil || st.UncountedTerminatedPods == nil {
			continue
		}
		u := st.UncountedTerminatedPods
		u.Succeeded, u.Failed = sortUIDs(u.Succeeded), sortUIDs(u.Failed)
		if v.capped {
			u.Succeeded, u.Failed = anonymous(u.Succeeded), anonymous(u.Failed)
		}
	}
	e := &o.Expectations
	if e.Creations <= 0 && e.Deletions <= 0 {
		// The moment only matters while something is pending.
		e.SetAt = time.Time{}
	}
	if v.capped {
		// Which pods is up to upstream's order; how many is not.
		e.FinalizerRemovals = anonymousSet(e.FinalizerRemovals.Len())
		if n := len(o.FinalizerRemovals); n > 0 {
			o.FinalizerRemovals = []string{fmt.Sprintf("(%d pods, which ones is up to upstream's informer order)", n)}
		}
	}
}

// anonymousSet is a set of n placeholders.
func anonymousSet(n int) expectations.UIDSet {
	var s expectations.UIDSet
	for i := range n {
		s = s.Add(types.UID(fmt.Sprintf("(any #%d)", i+1)))
	}
	return s
}

func anonymous(uids []types.UID) []types.UID {
	out := make([]types.UID, len(uids))
	for i := range out {
		out[i] = "(any)"
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// alignFailJobMessage: when both sides fail the Job through a FailJob rule
// but name different pods, and the library's pod is one upstream could have
// met first, upstream's message is replaced by the library's.
func (v view) alignFailJobMessage(up, lib *Outcome) {
	lm, um := failJobMessage(lib), failJobMessage(up)
	if lm == "" || um == "" || lm == um {
		return
	}
	if !slices.Contains(v.failJobMessages, lm) || !slices.Contains(v.failJobMessages, um) {
		return
	}
	for _, st := range []*batchv1.JobStatus{up.InterimStatus, up.Status} {
		if st == nil {
			continue
		}
		for i := range st.Conditions {
			if st.Conditions[i].Message == um {
				st.Conditions[i].Message = lm
			}
		}
	}
	for i := range up.Events {
		if up.Events[i].Message == um {
			up.Events[i].Message = lm
		}
	}
}

func failJobMessage(o *Outcome) string {
	for _, st := range []*batchv1.JobStatus{o.InterimStatus, o.Status} {
		if st == nil {
			continue
		}
		for _, c := range st.Conditions {
			if c.Reason == batchv1.JobReasonPodFailurePolicy && strings.Contains(c.Message, "FailJob rule") {
				return c.Message
			}
		}
	}
	return ""
}
