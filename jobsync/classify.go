package jobsync

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// scan is the one pass over every pod of the snapshot. It applies
// upstream's ownership rules (ControllerRefManager) and sorts the Job's pods
// into what the decisions need: the count of active pods (neither terminal
// nor being deleted), of ready ones among them and of terminating ones
// (being deleted but not terminal), and the list of pods that are terminal
// or being deleted (terminal ones only while they carry the tracking
// finalizer, unless a pod failure policy may read them), which is all later
// steps look at in a steady state.
//
// Ownership: a pod controlled by the Job (see isJobRef) is kept while the
// selector matches it and released otherwise (unless the Job is being
// deleted); an orphan that matches the selector, is not being deleted and
// lives in the Job's namespace is adopted, unless the Job is being deleted,
// and is seen with the tracking finalizer that adoption adds unless an
// owner reference already names the Job (see refersTo); any other pod is
// not the Job's.
//
// A nil pod is an error. Two pods with one UID are an error where the UID
// is used to count: among pods that are terminal or being deleted and carry
// the tracking finalizer. Elsewhere the check would cost a set of every UID
// on every sync, and no informer produces such input.
func (x *syncState) scan(all []*corev1.Pod, exp expectations.Expectations) error {
	job := x.job
	match := newLabelMatcher(job.Spec.Selector)
	deleting := job.DeletionTimestamp != nil
	x.expectedRemovals = exp.FinalizerRemovals
	x.uncountedSucceeded = uidSet(x.st.UncountedTerminatedPods.Succeeded)
	x.uncountedFailed = uidSet(x.st.UncountedTerminatedPods.Failed)
	if x.indexed {
		x.activeIndexes = newIndexSet(len(all))
	}
	x.pods = all // replaced by a filtered copy at the first pod not kept as it is
	copied := false
	// A terminal pod without the tracking finalizer (already counted) is
	// read by no later step but failJobMessage, which upstream runs over
	// every failed pod: such pods join x.done only under a pod failure
	// policy. In a long Job they are most of the pods; leaving them out
	// spares every later pass over x.done.
	keepUntracked := job.Spec.PodFailurePolicy != nil
	var foreign, orphaned int
	// counted holds the positions in all of the pods whose UIDs count; they
	// are checked for repeats after the loop, in one map of the right size.
	var counted []int
	for i, p := range all {
		if p == nil {
			// A repeated UID earlier in the list is reported first.
			if err := repeatedUID(all, counted); err != nil {
				return err
			}
			return inputErr(fmt.Sprintf("pods[%d]", i), nil, "is nil")
		}
		keep := false
		ref := controllerOf(p)
		switch {
		case p.Namespace != job.Namespace:
			foreign++
		case ref != nil && !isJobRef(ref, job):
			foreign++
		case ref != nil && match.matches(p.Labels):
			keep = true
		case ref != nil:
			if !deleting {
				x.plan.Releases = append(x.plan.Releases, release(job, p, x.opts.TrackingFinalizer))
			}
		case deleting || p.DeletionTimestamp != nil || !match.matches(p.Labels):
			orphaned++
		default:
			x.plan.Adoptions = append(x.plan.Adoptions, adoption(job, p, x.opts.TrackingFinalizer))
			if !hasFinalizer(p, x.opts.TrackingFinalizer) && !refersTo(p, job) {
				cp := p.DeepCopy()
				cp.Finalizers = append(cp.Finalizers, x.opts.TrackingFinalizer)
				p = cp
			}
			keep = true
		}
		if (!keep || p != all[i]) && !copied {
			x.pods = append(make([]*corev1.Pod, 0, len(all)), all[:i]...)
			copied = true
		}
		if !keep {
			continue
		}
		if copied {
			x.pods = append(x.pods, p)
		}

		terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		if !terminal && p.DeletionTimestamp == nil {
			x.activeCount++
			if podorder.IsReady(p) {
				x.ready++
			}
			if x.indexed {
				ix := indexes.Of(p.Annotations)
				if ix == indexes.Unknown || ix >= int(*job.Spec.Completions) || !x.activeIndexes.set(ix) {
					x.indexTrouble = true
				}
			}
			continue
		}
		if !terminal {
			x.terminating++
		}
		if hasFinalizer(p, x.opts.TrackingFinalizer) {
			counted = append(counted, i)
		} else if terminal && !keepUntracked {
			// Counted and released long ago: nothing but a FailJob rule
			// reads it again (see keepUntracked).
			continue
		}
		x.done = append(x.done, p)
	}
	if err := repeatedUID(all, counted); err != nil {
		return err
	}
	sortClaims(x.plan.Releases)
	sortClaims(x.plan.Adoptions)
	if foreign > 0 {
		x.plan.Notes = append(x.plan.Notes, count(foreign, "pod belongs to another controller or namespace and is", "pods belong to another controller or namespace and are")+" left alone")
	}
	if orphaned > 0 {
		x.plan.Notes = append(x.plan.Notes, count(orphaned, "orphan pod is", "orphan pods are")+" not adopted")
	}
	return nil
}

// repeatedUID reports the first of the pods at positions at (ascending)
// whose UID an earlier one already has.
func repeatedUID(all []*corev1.Pod, at []int) error {
	if len(at) < 2 {
		return nil
	}
	first := make(map[types.UID]int, len(at))
	for _, i := range at {
		uid := all[i].UID
		if j, dup := first[uid]; dup {
			return inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), uid, fmt.Sprintf("is also the UID of pods[%d]", j))
		}
		first[uid] = i
	}
	return nil
}

// isJobRef reports whether a controller reference names the Job: its UID,
// kind Job and the Job's name. Upstream lists a Job's pods from an informer
// index keyed by the controller reference's kind, name and UID, so a pod
// whose controller reference carries the Job's UID under another kind or
// name is never listed: neither the Job's pod nor an orphan, it is left
// alone.
func isJobRef(ref *metav1.OwnerReference, job *batchv1.Job) bool {
	return ref.UID == job.UID && ref.Kind == "Job" && ref.Name == job.Name
}

// refersTo reports whether any owner reference of the pod, controller or
// not, carries the Job's UID. Upstream takes such a pod as one it did not
// adopt in this sync, so the adoption's finalizer is not assumed on it:
// an orphan with a non-controller reference to the Job is adopted, but
// tracked only from the next sync.
func refersTo(p *corev1.Pod, job *batchv1.Job) bool {
	for i := range p.OwnerReferences {
		if p.OwnerReferences[i].UID == job.UID {
			return true
		}
	}
	return false
}

// controllerOf returns the pod's controller owner reference (the first one
// marked as controller), or nil: metav1.GetControllerOfNoCopy without the
// interface call, for the one loop that visits every pod.
func controllerOf(p *corev1.Pod) *metav1.OwnerReference {
	refs := p.OwnerReferences
	for i := range refs {
		if c := refs[i].Controller; c != nil && *c {
			return &refs[i]
		}
	}
	return nil
}

// labelMatcher matches pod labels against the Job's selector. The usual
// selector (matchLabels only, as the API server generates it, most often
// the one controller-uid label) is matched by direct lookups, the single
// label inline; any other goes through the labels package. checkJob has
// already rejected selectors that do not parse. A nil selector matches
// nothing, as upstream's conversion makes it.
type labelMatcher struct {
	single     bool
	key, value string                  // the label, when single
	pairs      []struct{ k, v string } // matchLabels of several labels
	sel        labels.Selector         // any other selector; nil matches nothing
}

func newLabelMatcher(sel *metav1.LabelSelector) *labelMatcher {
	m := &labelMatcher{}
	if sel != nil && len(sel.MatchExpressions) == 0 && len(sel.MatchLabels) > 0 {
		for k, v := range sel.MatchLabels {
			m.key, m.value = k, v
			m.pairs = append(m.pairs, struct{ k, v string }{k, v})
		}
		m.single = len(m.pairs) == 1
		return m
	}
	if s, err := metav1.LabelSelectorAsSelector(sel); err == nil {
		m.sel = s
	}
	return m
}

func (m *labelMatcher) matches(l map[string]string) bool {
	if !m.single {
		return m.matchesSlow(l)
	}
	got, ok := l[m.key]
	return ok && got == m.value
}

func (m *labelMatcher) matchesSlow(l map[string]string) bool {
	if m.pairs != nil {
		for _, kv := range m.pairs {
			if got, ok := l[kv.k]; !ok || got != kv.v {
				return false
			}
		}
		return true
	}
	return m.sel != nil && m.sel.Matches(labels.Set(l))
}

// activePods returns the active pods, built on first use: a steady-state
// sync of a NonIndexed Job never needs the list.
func (x *syncState) activePods() []*corev1.Pod {
	if x.active == nil {
		x.active = make([]*corev1.Pod, 0, x.activeCount)
		for _, p := range x.pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil {
				x.active = append(x.active, p)
			}
		}
	}
	return x.active
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
	return hasFinalizer(p, x.opts.TrackingFinalizer) && !x.expectedRemovals.Has(p.UID)
}

// validIndex returns the pod's completion index when it is usable, below
// completions, and false otherwise. Only for Indexed Jobs, whose
// completions are set (checkJob).
func (x *syncState) validIndex(p *corev1.Pod) (int, bool) {
	ix := indexes.Of(p.Annotations)
	return ix, ix != indexes.Unknown && ix < int(*x.job.Spec.Completions)
}

// hasValidIndex is validIndex without the index, for Indexed Jobs only.
func (x *syncState) hasValidIndex(p *corev1.Pod) bool {
	_, ok := x.validIndex(p)
	return ok
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
	for _, p := range x.done {
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

// listingCompare orders pods as upstream lists them before it sorts any:
// the Job's own pods before adopted ones, each group in the informer's
// arbitrary order, here completion index (Indexed Jobs), creation time,
// name and UID. Upstream's first match among failed pods, which a FailJob
// message names, is taken in this order.
func (x *syncState) listingCompare(a, b *corev1.Pod) int {
	if c := compareAdopted(isAdopted(a), isAdopted(b)); c != 0 {
		return c
	}
	if x.indexed {
		if c := cmp.Compare(indexes.Of(a.Annotations), indexes.Of(b.Annotations)); c != 0 {
			return c
		}
	}
	return compareByAge(a, b)
}

// isAdopted reports whether a pod the Job keeps is an orphan it adopts in
// this sync: the Job's own pods carry its controller reference, adopted ones
// carry none until the adoption is carried out.
func isAdopted(p *corev1.Pod) bool { return controllerOf(p) == nil }

// compareAdopted puts the Job's own pods (false) before adopted ones.
func compareAdopted(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// compareByAge orders pods by creation time, then name and UID, a total
// order for pods with distinct UIDs.
func compareByAge(a, b *corev1.Pod) int {
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

// indexSet is a set of completion indexes: a bitset for the dense low
// range, sized by the number of active pods rather than by completions (which
// may be in the billions), and a map for the rare index beyond it.
type indexSet struct {
	bits []uint64
	big  map[int]bool
}

func newIndexSet(activeHint int) *indexSet {
	return &indexSet{bits: make([]uint64, (2*activeHint+64)/64)}
}

// set adds i (non-negative) and reports whether it was absent.
func (b *indexSet) set(i int) bool {
	if w := i / 64; w < len(b.bits) {
		m := uint64(1) << (i % 64)
		if b.bits[w]&m != 0 {
			return false
		}
		b.bits[w] |= m
		return true
	}
	if b.big[i] {
		return false
	}
	if b.big == nil {
		b.big = make(map[int]bool)
	}
	b.big[i] = true
	return true
}

// has reports whether i is in the set.
func (b *indexSet) has(i int) bool {
	if b == nil || i < 0 {
		return false
	}
	if w := i / 64; w < len(b.bits) {
		return b.bits[w]&(uint64(1)<<(i%64)) != 0
	}
	return b.big[i]
}

// members returns the set as ordered intervals.
func (b *indexSet) members() indexes.Set {
	if b == nil {
		return nil
	}
	var out indexes.Set
	add := func(i int) {
		if n := len(out); n > 0 && out[n-1].Last == i-1 {
			out[n-1].Last = i
		} else {
			out = append(out, indexes.Interval{First: i, Last: i})
		}
	}
	for w, word := range b.bits {
		for word != 0 {
			add(w*64 + bitsTrailingZeros(word))
			word &= word - 1
		}
	}
	if len(b.big) > 0 {
		big := make([]int, 0, len(b.big))
		for i := range b.big {
			big = append(big, i)
		}
		slices.Sort(big)
		for _, i := range big {
			add(i)
		}
	}
	return out
}
