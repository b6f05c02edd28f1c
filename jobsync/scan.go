package jobsync

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// scan is the one pass over every pod of the snapshot, and returns the
// podCensus the later steps read. It applies upstream's ownership rules
// (ControllerRefManager), returns the adoptions and releases, with notes
// on the pods left alone, in a plan part made from mem, and sorts the Job's pods into what the decisions need: the count of active pods (neither terminal
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
// first test of a terminal pod without the finalizer. active is the caller's
// set of active pods (see ActivePods), nil for none: the scan adds its sums
// to what it counts in all, ranks its pods with the others when the sync
// may delete, and the census walks them only when asked for the active pods.
// succeeded is the caller's set of succeeded pods (see SucceededPods), nil for
// none: the count and tracking steps read it. The scan checks that no pod
// of all has a UID either set holds (see listedAndHeld).
func (sync *syncState) scan(all []*corev1.Pod, settled int, active *ActivePods, succeeded *SucceededPods, removals expectations.UIDSet, mem Memory) (podCensus, Plan, error) {
	if err := sync.checkSets(active, succeeded); err != nil {
		return podCensus{}, Plan{}, err
	}
	census := sync.newPodCensus(len(all), settled, active, succeeded, removals)
	census.pods = all // replaced by a filtered copy at the first pod not kept as it is
	copied := false
	claims := claimer{sync: sync, match: newLabelMatcher(sync.job.Spec.Selector), deleting: sync.job.DeletionTimestamp != nil, part: newPart(mem)}
	// A terminal pod without the tracking finalizer (already counted) is
	// read by no later step but failJobMessage, which upstream runs over
	// every failed pod: such pods are recorded only under a pod failure
	// policy. In a long Job they are most of the pods.
	keepUntracked := sync.job.Spec.PodFailurePolicy != nil
	untracked := settled    // terminal pods the Job controls, without the tracking finalizer
	var counted countedUIDs // the UIDs that count, checked for repeats
	for i, p := range all {
		if p == nil {
			// A repeated UID earlier in the list is reported first.
			if err := counted.check(all); err != nil {
				return podCensus{}, Plan{}, err
			}
			return podCensus{}, Plan{}, inputErr(fmt.Sprintf("pods[%d]", i), nil, "is nil")
		}
		ref := controllerOf(p)
		p, keep := claims.claim(p, ref)
		if (!keep || p != all[i]) && !copied {
			census.pods = append(make([]*corev1.Pod, 0, len(all)), all[:i]...)
			copied = true
		}
		if !keep {
			continue
		}
		if copied {
			census.pods = append(census.pods, p)
		}
		terminal := isTerminal(p)
		if !terminal && p.DeletionTimestamp == nil {
			// The pods kept before this one: census.pods once copied, else
			// all of all[:i].
			earlier := all[:i]
			if copied {
				earlier = census.pods[:len(census.pods)-1]
			}
			census.countActive(sync, p, earlier)
			continue
		}
		if !terminal {
			census.counts.terminating++
		}
		if hasFinalizer(p, sync.opts.TrackingFinalizer) {
			counted.add(all, i)
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
		census.finishedOrDeleting = appendExtrapolated(census.finishedOrDeleting, sync.classifyPod(p, ref == nil, removals), i+1, len(all))
	}
	if err := counted.check(all); err != nil {
		return podCensus{}, Plan{}, err
	}
	if err := listedAndHeld(all, active, succeeded); err != nil {
		return podCensus{}, Plan{}, err
	}
	census.addActive(sync, active)
	return census, claims.finish(untracked), nil
}

// newPodCensus makes the census the scan of n listed pods fills in.
func (sync *syncState) newPodCensus(n, settled int, active *ActivePods, succeeded *SucceededPods, removals expectations.UIDSet) podCensus {
	census := podCensus{expectedRemovals: removals, settled: settled, active: active, succeeded: succeeded, shortlist: sync.newShortlist(n + active.Len())}
	if u := sync.job.Status.UncountedTerminatedPods; u != nil {
		census.uncountedSucceeded = uidSet(u.Succeeded)
		census.uncountedFailed = uidSet(u.Failed)
	}
	if sync.indexed {
		census.activeIndexes = newIndexSet(n)
	}
	return census
}

// checkSets checks that the caller's sets were made for this Job (and, for
// the succeeded pods, this tracking finalizer); nil sets pass.
func (sync *syncState) checkSets(active *ActivePods, succeeded *SucceededPods) error {
	job := sync.job
	if active != nil && !sameJob(active.job, job) {
		return inputErr("active", uidOf(active.job), "was made for another Job (another UID, namespace, completion mode or pod failure policy)")
	}
	if succeeded != nil && (!sameJob(succeeded.job, job) || succeeded.finalizer != sync.opts.TrackingFinalizer) {
		return inputErr("succeeded", uidOf(succeeded.job), "was made for another Job (another UID, namespace, completion mode or pod failure policy) or another tracking finalizer")
	}
	if active != nil && active.ownerKind != sync.opts.Owner.Kind {
		return inputErr("active", active.ownerKind, "was made for another owner kind (see NewActivePodsFor)")
	}
	if succeeded != nil && succeeded.ownerKind != sync.opts.Owner.Kind {
		return inputErr("succeeded", succeeded.ownerKind, "was made for another owner kind")
	}
	return nil
}

// countActive counts active pod p (neither terminal nor being deleted),
// ready or not, notes trouble with its completion index, and ranks it for
// deletion when the sync may delete. earlier are the pods kept before p,
// ranked at once should ranking start at p.
func (census *podCensus) countActive(sync *syncState, p *corev1.Pod, earlier []*corev1.Pod) {
	census.counts.active++
	ix := indexes.Unknown
	if sync.indexed {
		ix = indexes.Of(p.Annotations)
		if ix == indexes.Unknown || ix >= int(*sync.job.Spec.Completions) || !census.activeIndexes.set(ix) || census.active.holdsIndex(ix) {
			census.indexTrouble = true
		}
	}
	if census.shortlist.starts(census.counts.active) {
		census.shortlist.catchUp(earlier)
	}
	var ready bool
	if census.shortlist.ranking {
		ready = census.shortlist.add(p, ix)
	} else {
		ready = podorder.IsReady(p)
	}
	if ready {
		census.counts.ready++
	}
}

// addActive adds the sums of the caller's set of active pods (nil for none)
// to what the scan counted in the listed pods. The held pods come after
// the listed ones: they join the ranking (started now if they take the
// count past parallelism) as the listed pods did; their readiness is the
// set's sum.
func (census *podCensus) addActive(sync *syncState, active *ActivePods) {
	n := active.Len()
	if n == 0 {
		return
	}
	sl := &census.shortlist
	if !sl.ranking && sl.starts(census.counts.active+int32(n)) {
		sl.catchUp(census.pods)
	}
	if sl.ranking {
		for i := range active.pods {
			sl.add(active.pods[i].pod, active.pods[i].index)
		}
	}
	census.counts.active += int32(n)
	census.counts.ready += int32(active.ready)
	if sync.indexed && (active.indexes.repeated() || active.indexes.atOrAbove(int(*sync.job.Spec.Completions))) {
		census.indexTrouble = true
	}
}

// claimer applies upstream's ownership rules (ControllerRefManager) to the
// pods the scan reads, adding the adoptions and releases to a plan part of
// its own, and counts the pods it leaves alone for the part's notes.
type claimer struct {
	sync              *syncState
	match             *labelMatcher
	deleting          bool // the Job is being deleted
	foreign, orphaned int
	part              Plan // the claims so far
}

// claim decides whether pod p, controlled by ref (nil for none), is the
// Job's, and returns the pod as the Job's steps see it: an orphan adopted
// now carries the tracking finalizer the adoption adds.
func (c *claimer) claim(p *corev1.Pod, ref *metav1.OwnerReference) (*corev1.Pod, bool) {
	sync, job := c.sync, c.sync.job
	switch {
	case p.Namespace != job.Namespace:
		c.foreign++
	case ref != nil && !isJobRef(ref, job, sync.opts.Owner.Kind):
		c.foreign++
	case ref != nil && c.match.matches(p.Labels):
		return p, true
	case ref != nil:
		if !c.deleting {
			c.part.Releases = append(c.part.Releases, release(job, p, sync.opts.TrackingFinalizer))
		}
	case c.deleting || p.DeletionTimestamp != nil || !c.match.matches(p.Labels):
		c.orphaned++
	default:
		c.part.Adoptions = append(c.part.Adoptions, adoption(job, p, sync.opts))
		if !hasFinalizer(p, sync.opts.TrackingFinalizer) && !refersTo(p, job) {
			cp := p.DeepCopy()
			cp.Finalizers = append(cp.Finalizers, sync.opts.TrackingFinalizer)
			p = cp
		}
		return p, true
	}
	return p, false
}

// finish puts the claims in the plan's order, notes the pods left alone
// and the untracked terminal pods of the Job, and returns the part.
func (c *claimer) finish(untracked int) Plan {
	plan := &c.part
	sortClaims(plan.Releases)
	sortClaims(plan.Adoptions)
	if c.foreign > 0 {
		plan.Notes = append(plan.Notes, count(c.foreign, "pod belongs to another controller or namespace and is", "pods belong to another controller or namespace and are")+" left alone")
	}
	if c.orphaned > 0 {
		plan.Notes = append(plan.Notes, count(c.orphaned, "orphan pod is", "orphan pods are")+" not adopted")
	}
	if note := c.sync.untrackedNote(untracked); note != "" {
		plan.Notes = append(plan.Notes, note)
	}
	return c.part
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
func listedAndHeld(all []*corev1.Pod, active *ActivePods, succeeded *SucceededPods) error {
	if active.Len() == 0 && succeeded.Len() == 0 {
		return nil
	}
	for i, p := range all {
		switch {
		case active.Has(p.UID):
			return inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), p.UID, "is also the UID of a pod in the snapshot's ActivePods")
		case succeeded.Has(p.UID):
			return inputErr(fmt.Sprintf("pods[%d].metadata.uid", i), p.UID, "is also the UID of a pod in the snapshot's SucceededPods")
		}
	}
	return nil
}

// countedUIDs gathers the pods of a listing whose UIDs count (see scan),
// to check that no two share a UID without a set of every UID.
type countedUIDs struct {
	// at holds the positions in the listing of the pods whose UIDs count;
	// filter holds their hashes, and only when two hashes agree are the
	// UIDs at those positions compared (see uidFilter).
	at     []int32    // a slice of pods fits in memory: fewer than 2^31
	filter *uidFilter // made at the first pod to count
}

// add records that the UID of all[i] counts.
func (c *countedUIDs) add(all []*corev1.Pod, i int) {
	c.at = appendExtrapolated(c.at, int32(i), i+1, len(all))
	if c.filter == nil {
		c.filter = new(uidFilter)
	}
	c.filter.add(all[i].UID, i+1, len(all))
}

// check reports the first counted pod of all whose UID an earlier counted
// one has.
func (c *countedUIDs) check(all []*corev1.Pod) error { return repeatedUID(all, c.at, c.filter) }

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
