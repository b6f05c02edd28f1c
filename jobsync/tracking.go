package jobsync

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
)

// track does the finalizer-based accounting of terminated pods, upstream's
// write-ahead protocol:
//  1. record each newly terminated tracked pod in
//     status.uncountedTerminatedPods (Indexed Jobs record succeeded pods by
//     their index in completedIndexes instead), at most MaxUncountedPods;
//  2. write that status (InterimStatus), with any interim condition;
//  3. remove the tracking finalizers (FinalizerRemovals);
//  4. move the released UIDs from uncountedTerminatedPods into the
//     succeeded and failed counters, add the terminal condition once no pod
//     is uncounted or terminating, and write that (Status).
//
// st is the status being built, which track writes on from where the
// earlier steps left it. It reads the scan's census and the index step's
// progress; finish is the
// condition the Job is heading to (nil when none), terminating the pods
// still terminating once the sync's deletions are carried out, and
// newBackoff the backoff record to keep once the interim status is
// written. needsWrite says the status already differs from the Job's in
// ways that must be written. What it decides is in the plan part it
// returns, made from mem. It fails only when a counter would pass int32.
func (sync *syncState) track(st *batchv1.JobStatus, census *podCensus, progress indexProgress, finish *batchv1.JobCondition, terminating int32, newBackoff backoff.Record, needsWrite bool, mem Memory) (Plan, error) {
	part := newPart(mem)
	err := sync.trackInPart(&part, st, census, progress, finish, terminating, newBackoff, needsWrite)
	if err != nil {
		return Plan{}, err
	}
	return part, nil
}

// trackInPart is track adding to part.
func (sync *syncState) trackInPart(part *Plan, st *batchv1.JobStatus, census *podCensus, progress indexProgress, finish *batchv1.JobCondition, terminating int32, newBackoff backoff.Record, needsWrite bool) error {
	stillTracked := sync.stillTracked(st.UncountedTerminatedPods, census)
	// Pods recorded earlier whose finalizer is gone (or going) are counted now.
	if moved, err := moveCounted(st, stillTracked); err != nil {
		return err
	} else if moved {
		needsWrite = true
	}
	release, newSucceededIdx, capped, recorded := sync.recordNewlyFinished(part, st.UncountedTerminatedPods, census, progress, finish)
	if recorded {
		needsWrite = true
	}
	if sync.indexed && sync.setIndexes(st, progress, newSucceededIdx) {
		needsWrite = true
	}

	// The interim condition is written before any finalizer goes, so that a
	// crash cannot lose the decision; the terminal one comes after.
	if finish != nil && finish.Type == batchv1.JobFailureTarget {
		st.Conditions = append(st.Conditions, *finish)
		needsWrite = true
		finish = newCondition(batchv1.JobFailed, finish.Reason, finish.Message, sync.now)
	}
	if finish != nil && finish.Type == batchv1.JobSuccessCriteriaMet && finish.Status == corev1.ConditionTrue {
		if !hasTrueCondition(st.Conditions, batchv1.JobSuccessCriteriaMet) {
			st.Conditions = append(st.Conditions, *finish)
			needsWrite = true
		}
		finish = newCondition(batchv1.JobComplete, finish.Reason, finish.Message, sync.now)
	}

	if needsWrite {
		part.InterimStatus = st.DeepCopy()
		part.Backoff = newBackoff
		needsWrite = false
	}
	if len(release) > 0 {
		part.FinalizerRemovals = slices.Grow(part.FinalizerRemovals, len(release))
		uids := make([]types.UID, len(release))
		for i, r := range release {
			uids[i] = r.pod.UID
			part.FinalizerRemovals = append(part.FinalizerRemovals, FinalizerRemoval{Pod: refOf(r.pod), Reason: sync.releaseReason(r, finish)})
			delete(stillTracked, r.pod.UID)
		}
		part.Expectations = part.Expectations.ExpectFinalizerRemovals(uids...)
	}
	if moved, err := moveCounted(st, stillTracked); err != nil {
		return err
	} else if moved {
		needsWrite = true
	}

	finishedNow := !capped && sync.enactFinished(part, st, finish, terminating)
	if finishedNow {
		needsWrite = true
	}
	if needsWrite {
		part.Status = st.DeepCopy()
		if finishedNow {
			sync.recordFinished(part, st, finish)
			part.Expectations.JobFinished = true
		}
	}
	return nil
}

// stillTracked returns the UIDs of uncounted, the status's
// uncountedTerminatedPods, whose pod still carries the tracking finalizer
// (nil when none is recorded): those are not counted yet.
func (sync *syncState) stillTracked(uncounted *batchv1.UncountedTerminatedPods, census *podCensus) map[types.UID]bool {
	n := len(uncounted.Succeeded) + len(uncounted.Failed)
	if n == 0 {
		return nil
	}
	stillTracked := make(map[types.UID]bool, n)
	for i := range census.finishedOrDeleting {
		r := &census.finishedOrDeleting[i]
		if r.tracked && (census.uncountedSucceeded[r.pod.UID] || census.uncountedFailed[r.pod.UID]) {
			stillTracked[r.pod.UID] = true
		}
	}
	// An active pod is in uncountedTerminatedPods only when a failing
	// Job counted it as failed before its deletion was seen.
	tracked := func(p *corev1.Pod) bool {
		return hasFinalizer(p, sync.opts.TrackingFinalizer) && !census.expectedRemovals.Has(p.UID)
	}
	for _, p := range census.pods {
		if isActive(p) && (census.uncountedSucceeded[p.UID] || census.uncountedFailed[p.UID]) && tracked(p) {
			stillTracked[p.UID] = true
		}
	}
	// The pods held in the caller's sets are looked up by the UIDs
	// recorded, not walked: in both sets, since a snapshot may give
	// one UID to two pods.
	if census.active.Len() > 0 || census.succeeded.Len() > 0 {
		for _, uids := range []map[types.UID]bool{census.uncountedSucceeded, census.uncountedFailed} {
			for uid := range uids {
				for _, p := range [2]*corev1.Pod{census.active.get(uid), census.succeeded.get(uid)} {
					if p != nil && tracked(p) {
						stillTracked[uid] = true
					}
				}
			}
		}
	}
	return stillTracked
}

// recordNewlyFinished takes the pods whose finalizer may go in canonical
// order until the uncounted-pods cap is reached, and records each newly
// finished one in the status being built: its UID in uncounted, the
// status's uncountedTerminatedPods, or for a succeeded pod of an Indexed
// Job its index, returned in newSucceededIdx to be added to
// completedIndexes. It returns the pods to release, whether the cap was
// reached (noted in part) and whether it recorded a UID.
func (sync *syncState) recordNewlyFinished(part *Plan, uncounted *batchv1.UncountedTerminatedPods, census *podCensus, progress indexProgress, finish *batchv1.JobCondition) (release []*podRecord, newSucceededIdx []int, capped, recorded bool) {
	// A queue orders only as many as are taken. Each taken pod records at
	// most one UID or index, so at least the cap's room is taken.
	room := max(sync.opts.MaxUncountedPods-len(uncounted.Succeeded)-len(uncounted.Failed), 1)
	// A held succeeded pod taken before the cap either records its UID or
	// is in uncountedTerminatedPods already: no more than these can be.
	mostDone := room + len(census.uncountedSucceeded) + len(census.uncountedFailed)
	src := sync.releaseCandidates(census, progress, finish, mostDone)
	candidates := newPodQueue(src, room)
	if src.n > 0 {
		release = make([]*podRecord, 0, min(room, src.n))
	}
	failing := finish != nil && finish.Type != batchv1.JobSuccessCriteriaMet
	for r := candidates.pop(); r != nil; r = candidates.pop() {
		uid := r.pod.UID
		release = append(release, r)
		if r.succeeded && !census.uncountedFailed[uid] {
			if sync.indexed {
				if r.validIndex && !progress.prevSucceeded.Has(r.index) {
					if newSucceededIdx == nil {
						newSucceededIdx = make([]int, 0, min(room, src.n))
					}
					newSucceededIdx = append(newSucceededIdx, r.index)
				}
			} else if !census.uncountedSucceeded[uid] {
				uncounted.Succeeded = appendRoom(uncounted.Succeeded, uid, room)
				recorded = true
			}
		} else if r.failed || failing {
			// Once the Job is failing, every pod not yet terminated counts as failed.
			// The index is read only for Indexed Jobs: a work-queue Job
			// has no completions to check it against, and its pods may
			// carry the annotation from their template.
			if !census.uncountedFailed[uid] && (!sync.indexed || r.validIndex) && r.verdict().counts() {
				uncounted.Failed = appendRoom(uncounted.Failed, uid, room)
				recorded = true
			}
		}
		if len(newSucceededIdx)+len(uncounted.Succeeded)+len(uncounted.Failed) >= sync.opts.MaxUncountedPods {
			part.Notes = append(part.Notes, fmt.Sprintf("at most %d pods are recorded as uncounted per sync; the rest wait for the next sync", sync.opts.MaxUncountedPods))
			return release, newSucceededIdx, true, recorded
		}
	}
	return release, newSucceededIdx, false, recorded
}

// setIndexes writes an Indexed Job's succeeded count, completedIndexes
// (with newSucceeded added) and failedIndexes into st, and
// reports whether they need a write: new succeeded indexes, or index
// lists that differ from the Job's.
func (sync *syncState) setIndexes(st *batchv1.JobStatus, progress indexProgress, newSucceeded []int) bool {
	changed := len(newSucceeded) > 0
	succeeded := progress.succeeded.WithIndexes(newSucceeded)
	s := succeeded.String()
	if s != st.CompletedIndexes {
		changed = true
	}
	st.Succeeded = int32(succeeded.Total())
	st.CompletedIndexes = s
	var failed *string
	if sync.perIndex {
		f := progress.failed.String()
		failed = &f
	}
	if !equalStringPtr(st.FailedIndexes, failed) {
		st.FailedIndexes = failed
		changed = true
	}
	return changed
}

// releaseCandidates returns the tracked pods whose finalizer may go now, in
// no particular order (track takes them in canonical order; upstream's order
// is its cache's, or by index for Indexed Jobs): every pod when the Job is
// being deleted or is finishing, succeeded pods, and failed pods unless one
// must wait for its replacement to carry the index failure count. A
// record's position is its place in census.finishedOrDeleting, followed by
// the active pods' records when they go too, then by the records of the
// first mostDone held succeeded pods in canonical order (the only ones the
// cap can let through).
func (sync *syncState) releaseCandidates(census *podCensus, progress indexProgress, finish *batchv1.JobCondition, mostDone int) recordSource {
	all := sync.job.DeletionTimestamp != nil || finish != nil
	finished := census.finishedOrDeleting
	if len(finished) == 0 && !all && census.succeeded.Len() == 0 {
		return recordSource{} // the steady state: nothing to release
	}
	// more holds the records of pods the scan did not classify: the
	// active pods when they go too (this is the one step that reads them as
	// records), and the held succeeded pods the cap can let through.
	var more []podRecord
	if all {
		pods := census.activePods()
		more = make([]podRecord, 0, len(pods))
		for _, p := range pods {
			if r := sync.classifyPod(p, isAdopted(p), census.expectedRemovals); r.tracked {
				more = append(more, r)
			}
		}
	}
	if census.succeeded.Len() > 0 {
		for _, p := range census.succeeded.first(mostDone, census.expectedRemovals) {
			more = append(more, sync.classifyPod(p, false, census.expectedRemovals))
		}
	}
	each := func(yield func(int, *podRecord) bool) {
		for i := range finished {
			r := &finished[i]
			if !r.tracked {
				continue
			}
			if !all && !r.succeeded {
				if !r.failed {
					continue
				}
				if sync.perIndex && r.validIndex {
					if d := progress.delayedRemoval[r.index]; d != nil && d.pod.UID == r.pod.UID {
						continue
					}
				}
			}
			if !yield(i, r) {
				return
			}
		}
		for i := range more {
			if !yield(len(finished)+i, &more[i]) {
				return
			}
		}
	}
	at := func(pos int) *podRecord {
		if pos < len(finished) {
			return &finished[pos]
		}
		return &more[pos-len(finished)]
	}
	return recordSource{all: each, at: at, n: len(finished) + len(more)}
}

// appendRoom appends uid to uids, making room for the room UIDs a sync
// may add at most when uids is full, so that the list grows once.
func appendRoom(uids []types.UID, uid types.UID, room int) []types.UID {
	if len(uids) == cap(uids) {
		uids = slices.Grow(uids, room)
	}
	return append(uids, uid)
}

func (sync *syncState) releaseReason(r *podRecord, finish *batchv1.JobCondition) string {
	switch {
	case r.succeeded:
		return "the pod succeeded and is counted"
	case r.failed:
		v := r.verdict()
		switch {
		case v.rule < 0:
			return "the pod failed and is counted"
		case !v.counts():
			return fmt.Sprintf("the pod failed and is not counted: podFailurePolicy rule %d %s", v.rule, v.action)
		default:
			return fmt.Sprintf("the pod failed and is counted: podFailurePolicy rule %d %s", v.rule, v.action)
		}
	case sync.job.DeletionTimestamp != nil:
		return "the Job is being deleted"
	case finish != nil && finish.Type == batchv1.JobFailed:
		return "the Job is failing: the pod counts as failed"
	default:
		return "the Job succeeded: the pod is not counted"
	}
}

// moveCounted moves the UIDs of uncountedTerminatedPods that are not in
// stillTracked into the succeeded and failed counters. It reports whether
// anything moved. A UID listed twice is counted twice, as upstream counts
// it. A counter that would pass int32 is an InputError (upstream wraps it
// around; conformance/DEVIATIONS.md D1), and st is then left half moved.
func moveCounted(st *batchv1.JobStatus, stillTracked map[types.UID]bool) (bool, error) {
	u := st.UncountedTerminatedPods
	keepS, movedS := partitionUIDs(u.Succeeded, stillTracked)
	keepF, movedF := partitionUIDs(u.Failed, stillTracked)
	if movedS > 0 {
		n, err := addCounts("job.status.succeeded", int(st.Succeeded), movedS)
		if err != nil {
			return false, err
		}
		st.Succeeded = n
		u.Succeeded = keepS
	}
	if movedF > 0 {
		n, err := addCounts("job.status.failed", int(st.Failed), movedF)
		if err != nil {
			return false, err
		}
		st.Failed = n
		u.Failed = keepF
	}
	return movedS > 0 || movedF > 0, nil
}

// partitionUIDs returns the uids that are in keep, in their order (nil when
// none), and how many were not.
func partitionUIDs(uids []types.UID, keep map[types.UID]bool) ([]types.UID, int) {
	var kept []types.UID
	for _, u := range uids {
		if keep[u] {
			kept = append(kept, u)
		}
	}
	return kept, len(uids) - len(kept)
}

// enactFinished adds the terminal condition finish to st once no pod
// remains uncounted or terminating, and reports whether it did; while one
// does, a note in part says so.
func (sync *syncState) enactFinished(part *Plan, st *batchv1.JobStatus, finish *batchv1.JobCondition, terminating int32) bool {
	if finish == nil {
		return false
	}
	u := st.UncountedTerminatedPods
	if n := len(u.Succeeded) + len(u.Failed); n > 0 {
		part.Notes = append(part.Notes, fmt.Sprintf("the Job is not yet %s: %s still uncounted", finish.Type, count(n, "pod is", "pods are")))
		return false
	}
	if terminating > 0 {
		part.Notes = append(part.Notes, fmt.Sprintf("the Job is not yet %s: %s still terminating", finish.Type, count(int(terminating), "pod is", "pods are")))
		return false
	}
	f := finish
	st.Conditions, _ = setCondition(st.Conditions, f.Type, f.Status, f.Reason, f.Message, sync.now)
	if f.Type == batchv1.JobComplete {
		t := f.LastTransitionTime
		st.CompletionTime = &t
	}
	return true
}

// recordFinished adds to part the events upstream records when a Job
// finishes with condition f, with st its final status.
func (sync *syncState) recordFinished(part *Plan, st *batchv1.JobStatus, f *batchv1.JobCondition) {
	if f.Type == batchv1.JobComplete {
		if c := sync.job.Spec.Completions; c != nil && st.Succeeded > *c {
			part.Events = append(part.Events, Event{corev1.EventTypeWarning, "TooManySucceededPods", "Too many succeeded pods running after completion count reached"})
		}
		part.Events = append(part.Events, Event{corev1.EventTypeNormal, "Completed", "Job completed"})
		return
	}
	part.Events = append(part.Events, Event{corev1.EventTypeWarning, f.Reason, f.Message})
}

func equalStringPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
