package jobsync

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// scan is the one pass over every pod of the snapshot, and returns the
// podView the later steps read. It applies upstream's ownership rules
// (ControllerRefManager), adds the adoptions and releases to the plan, and
// sorts the Job's pods into what the decisions need: the count of active pods (neither terminal
// nor being deleted), of ready ones among them and of terminating ones
// (being deleted but not terminal), and the list of pods that are terminal
// or being deleted (terminal ones only while they carry the tracking
// finalizer, unless a pod failure policy may read them), each classified
// into a podRecord, which is all later steps look at in a steady state.
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
//
// settled is the number of pods the caller left out as settled (see
// SettledFilter): the scan would have passed over each of them at its
// first test of a terminal pod without the finalizer. held is the caller's
// set of active pods (see ActivePods), nil for none: the scan adds its sums
// to what it counts in all, ranks its pods with the others when the sync
// may delete, and the view walks them only when asked for the active pods.
// done is the caller's set of succeeded pods (see SucceededPods), nil for
// none: the count and tracking steps read it. The scan checks that no pod
// of all has a UID either set holds (see listedAndHeld).
func (sync *syncState) scan(all []*corev1.Pod, settled int, held *ActivePods, done *SucceededPods, removals expectations.UIDSet) (podView, error) {
	job := sync.job
	if held != nil && !sameJob(held.job, job) {
		return podView{}, inputErr("active", uidOf(held.job), "was made for another Job (another UID, namespace, completion mode or pod failure policy)")
	}
	if done != nil && (!sameJob(done.job, job) || done.finalizer != sync.opts.TrackingFinalizer) {
		return podView{}, inputErr("succeeded", uidOf(done.job), "was made for another Job (another UID, namespace, completion mode or pod failure policy) or another tracking finalizer")
	}
	match := newLabelMatcher(job.Spec.Selector)
	deleting := job.DeletionTimestamp != nil
	view := podView{expectedRemovals: removals, settled: settled, held: held, done: done, shortlist: sync.newShortlist(len(all) + held.Len())}
	view.uncountedSucceeded = uidSet(sync.st.UncountedTerminatedPods.Succeeded)
	view.uncountedFailed = uidSet(sync.st.UncountedTerminatedPods.Failed)
	if sync.indexed {
		view.activeIndexes = newIndexSet(len(all))
	}
	view.pods = all // replaced by a filtered copy at the first pod not kept as it is
	copied := false
	// A terminal pod without the tracking finalizer (already counted) is
	// read by no later step but failJobMessage, which upstream runs over
	// every failed pod: such pods join view.finishedOrDeleting only under a pod failure
	// policy. In a long Job they are most of the pods; leaving them out
	// spares every later pass over view.finishedOrDeleting.
	keepUntracked := job.Spec.PodFailurePolicy != nil
	var foreign, orphaned int
	untracked := settled // terminal pods the Job controls, without the tracking finalizer
	// counted holds the positions in all of the pods whose UIDs count;
	// uids holds their hashes, and only when two hashes agree are the UIDs
	// at counted compared after the loop (see uidFilter).
	var counted []int32 // a slice of pods fits in memory: fewer than 2^31
	var uids *uidFilter // made at the first pod to count
	for i, p := range all {
		if p == nil {
			// A repeated UID earlier in the list is reported first.
			if err := repeatedUID(all, counted, uids); err != nil {
				return podView{}, err
			}
			return podView{}, inputErr(fmt.Sprintf("pods[%d]", i), nil, "is nil")
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
				sync.plan.Releases = append(sync.plan.Releases, release(job, p, sync.opts.TrackingFinalizer))
			}
		case deleting || p.DeletionTimestamp != nil || !match.matches(p.Labels):
			orphaned++
		default:
			sync.plan.Adoptions = append(sync.plan.Adoptions, adoption(job, p, sync.opts.TrackingFinalizer))
			if !hasFinalizer(p, sync.opts.TrackingFinalizer) && !refersTo(p, job) {
				cp := p.DeepCopy()
				cp.Finalizers = append(cp.Finalizers, sync.opts.TrackingFinalizer)
				p = cp
			}
			keep = true
		}
		if (!keep || p != all[i]) && !copied {
			view.pods = append(make([]*corev1.Pod, 0, len(all)), all[:i]...)
			copied = true
		}
		if !keep {
			continue
		}
		if copied {
			view.pods = append(view.pods, p)
		}

		terminal := isTerminal(p)
		if !terminal && p.DeletionTimestamp == nil {
			view.counts.active++
			ix := indexes.Unknown
			if sync.indexed {
				ix = indexes.Of(p.Annotations)
				if ix == indexes.Unknown || ix >= int(*job.Spec.Completions) || !view.activeIndexes.set(ix) || held.holdsIndex(ix) {
					view.indexTrouble = true
				}
			}
			if view.shortlist.starts(view.counts.active) {
				// The pods kept before this one: view.pods once copied,
				// else all of all[:i].
				earlier := all[:i]
				if copied {
					earlier = view.pods[:len(view.pods)-1]
				}
				view.shortlist.catchUp(earlier)
			}
			var ready bool
			if view.shortlist.ranking {
				ready = view.shortlist.add(p, ix)
			} else {
				ready = podorder.IsReady(p)
			}
			if ready {
				view.counts.ready++
			}
			continue
		}
		if !terminal {
			view.counts.terminating++
		}
		if hasFinalizer(p, sync.opts.TrackingFinalizer) {
			counted = appendExtrapolated(counted, int32(i), i+1, len(all))
			if uids == nil {
				uids = new(uidFilter)
			}
			uids.add(p.UID, i+1, len(all))
		} else if terminal {
			if ref != nil {
				// An orphan adopted now is counted once its adoption
				// has added the finalizer: only the Job's own count.
				untracked++
			}
			if !keepUntracked {
				// Counted and released long ago: nothing but a FailJob
				// rule reads it again (see keepUntracked).
				continue
			}
		}
		view.finishedOrDeleting = appendExtrapolated(view.finishedOrDeleting, sync.classifyPod(p, ref == nil, removals), i+1, len(all))
	}
	if err := repeatedUID(all, counted, uids); err != nil {
		return podView{}, err
	}
	if err := listedAndHeld(all, held, done); err != nil {
		return podView{}, err
	}
	if n := held.Len(); n > 0 {
		// The held pods come after those of all: they join the ranking
		// (started now if they take the count past parallelism) as the
		// pods of all did; their readiness is the set's sum.
		sl := &view.shortlist
		if !sl.ranking && sl.starts(view.counts.active+int32(n)) {
			sl.catchUp(view.pods)
		}
		if sl.ranking {
			for i := range held.pods {
				sl.add(held.pods[i].pod, held.pods[i].index)
			}
		}
		view.counts.active += int32(n)
		view.counts.ready += int32(held.ready)
		if sync.indexed && (held.indexes.repeated() || held.indexes.atOrAbove(int(*job.Spec.Completions))) {
			view.indexTrouble = true
		}
	}
	sortClaims(sync.plan.Releases)
	sortClaims(sync.plan.Adoptions)
	if foreign > 0 {
		sync.plan.Notes = append(sync.plan.Notes, count(foreign, "pod belongs to another controller or namespace and is", "pods belong to another controller or namespace and are")+" left alone")
	}
	if orphaned > 0 {
		sync.plan.Notes = append(sync.plan.Notes, count(orphaned, "orphan pod is", "orphan pods are")+" not adopted")
	}
	if note := sync.untrackedNote(untracked); note != "" {
		sync.plan.Notes = append(sync.plan.Notes, note)
	}
	return view, nil
}

// listedAndHeld reports the first pod of all (none of them nil) whose UID
// one of the caller's sets also holds. The caller either listed a pod it
// had put in a set, or listed a newer copy of a held pod without putting
// it again, leaving the old copy held: either way the pod would count
// twice, once from each place (a held succeeded pod, for one, would be
// counted again after its finalizer went). The check costs one lookup per
// listed pod, and nothing when both sets are empty. A pod held in both sets
// is not looked for: that would walk a set, of up to millions of pods, on
// every sync.
func listedAndHeld(all []*corev1.Pod, held *ActivePods, done *SucceededPods) error {
	if held.Len() == 0 && done.Len() == 0 {
		return nil
	}
	for i, p := range all {
		switch {
		case held.Has(p.UID):
			return inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), p.UID, "is also the UID of a pod in the snapshot's ActivePods")
		case done.Has(p.UID):
			return inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), p.UID, "is also the UID of a pod in the snapshot's SucceededPods")
		}
	}
	return nil
}

// repeatedUID reports the first of the pods at positions at (ascending)
// whose UID an earlier one already has. filter holds their UIDs' hashes:
// when no two agree, no UID repeats.
func repeatedUID(all []*corev1.Pod, at []int32, filter *uidFilter) error {
	if len(at) < 2 || !filter.maybe {
		return nil
	}
	// One map operation per pod: a UID already present leaves the set's
	// size unchanged, and only then is the earlier pod looked for.
	seen := make(map[types.UID]struct{}, len(at))
	for k, i := range at {
		uid := all[i].UID
		n := len(seen)
		seen[uid] = struct{}{}
		if len(seen) == n {
			for _, j := range at[:k] {
				if all[j].UID == uid {
					return inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), uid, fmt.Sprintf("is also the UID of pods[%d]", j))
				}
			}
		}
	}
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
