package jobsync

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// deleteAllActive deletes every active pod of a Job that is finishing. The
// finalizers stay: the tracking steps count the pods as failed and release
// them. Upstream sets no expectations for these deletions.
func (x *syncState) deleteAllActive() {
	pods := x.sortedForPlan(x.activePods())
	for _, p := range pods {
		x.addDeletion(p, false, fmt.Sprintf("the Job is finishing (%s)", x.finished.Reason))
	}
}

// manage brings the number of active pods to what the Job wants: all gone
// while suspended; otherwise deleting the surplus (and, for Indexed Jobs,
// pods with repeated or invalid indexes), or else creating what is missing
// unless the pod-failure backoff holds creation back.
func (x *syncState) manage() {
	job := x.job
	active := x.activeCount
	if x.suspended {
		rm := x.forRemoval(int(active))
		x.plan.Expectations = x.plan.Expectations.ExpectDeletions(len(rm), x.now)
		x.plan.Deletions = slices.Grow(x.plan.Deletions, len(rm))
		for _, p := range rm {
			x.addDeletion(p, true, "the Job is suspended")
		}
		return
	}

	parallelism := *job.Spec.Parallelism
	var want int32
	if job.Spec.Completions == nil {
		// A work queue: once any pod succeeded, the rest finish on their own
		// and nothing new starts.
		if x.succeeded > 0 {
			want = active
		} else {
			want = parallelism
		}
	} else {
		want = max(0, min(*job.Spec.Completions-x.succeeded, parallelism))
	}

	// Only the first MaxPodCreateDeletePerSync pods of the deletion order
	// go in one sync: ask for no more.
	rm := x.forRemoval(int(max(0, min(active-want, int32(x.opts.MaxPodCreateDeletePerSync)))))
	if len(rm) > x.opts.MaxPodCreateDeletePerSync {
		rm = rm[:x.opts.MaxPodCreateDeletePerSync]
	}
	if len(rm) > 0 {
		x.plan.Expectations = x.plan.Expectations.ExpectDeletions(len(rm), x.now)
		reason := fmt.Sprintf("%s active, the Job wants %d", count(int(active), "pod is", "pods are"), want)
		var repeated *indexSet
		if x.indexTrouble {
			repeated = x.repeatedActiveIndexes()
		}
		x.plan.Deletions = slices.Grow(x.plan.Deletions, len(rm))
		for _, p := range rm {
			r := reason
			if x.indexed {
				r = x.indexedDeletionReason(p, reason, repeated)
			}
			x.addDeletion(p, true, r)
		}
		if x.indexed {
			x.plan.Notes = append(x.plan.Notes, "no pods are created: a sync that deletes pods does not create any")
		}
		return
	}

	var terminating int32
	if onlyReplaceFailed(job) {
		terminating = x.terminating
	}
	diff := want - terminating - active
	if diff <= 0 {
		if terminating > 0 && want-active > 0 {
			x.plan.Notes = append(x.plan.Notes, "no pods are created: "+count(int(terminating), "terminating pod is not replaced until it fails", "terminating pods are not replaced until they fail"))
		}
		return
	}
	if !x.perIndex {
		if left := x.newBackoff.Remaining(x.now, x.opts.BackoffBase, x.opts.BackoffMax); left > 0 {
			x.requeue(left, true)
			x.plan.Notes = append(x.plan.Notes, fmt.Sprintf("no pods are created: pod-failure backoff after %s, %v left", count(int(x.newBackoff.FailuresAfterLastSuccess), "failure", "failures"), left))
			return
		}
	}
	diff = min(diff, int32(x.opts.MaxPodCreateDeletePerSync))
	if len(job.Spec.Template.Labels) == 0 && !x.indexed {
		// The pod control refuses to create pods without labels; upstream
		// sets and then lowers its expectations and retries with a rate
		// limit, as the caller should. An Indexed Job's pods always have
		// one: their completion index.
		x.plan.Expectations = x.plan.Expectations.ExpectCreations(0, x.now)
		x.plan.Notes = append(x.plan.Notes, "no pods are created: the pod template has no labels, and pods without labels are refused")
		return
	}

	if !x.indexed {
		x.plan.Expectations = x.plan.Expectations.ExpectCreations(int(diff), x.now)
		reason := fmt.Sprintf("%s active, the Job wants %d", count(int(active), "pod is", "pods are"), want)
		for range diff {
			x.addCreation(indexes.Unknown, reason)
		}
		return
	}

	toAdd := x.pendingIndexes(int(diff))
	if x.perIndex {
		var wait time.Duration
		toAdd, wait = x.indexesPastBackoff(toAdd)
		if wait > 0 {
			x.requeue(wait, true)
			x.plan.Notes = append(x.plan.Notes, fmt.Sprintf("no pods are created: every pending index is in its pod-failure backoff, the first ends in %v", wait))
			return
		}
	}
	x.plan.Expectations = x.plan.Expectations.ExpectCreations(len(toAdd), x.now)
	for _, ix := range toAdd {
		x.addCreation(ix, fmt.Sprintf("index %d is pending", ix))
	}
}

// forRemoval returns at least n active pods to delete, in deletion order:
// for Indexed Jobs first every pod with an invalid or repeated index, then
// as many of the others as needed.
//
// The deletion order is podorder's, a strict total order: which pods come
// first does not depend on the order of the snapshot's pods.
func (x *syncState) forRemoval(n int) []*corev1.Pod {
	if !x.indexTrouble {
		// NonIndexed, or every active pod has its own valid index: only
		// the surplus goes. (A steady sync never builds the list.)
		if n <= 0 {
			return nil
		}
		if x.indexed {
			return podorder.FirstForRemovalIndexed(x.activePods(), n)
		}
		return podorder.FirstForRemoval(x.activePods(), n)
	}
	rm, left := x.indexedForRemoval(x.activePods())
	if len(rm) < n {
		rm = append(rm, podorder.FirstForRemovalIndexed(left, n-len(rm))...)
	}
	return rm
}

// repeatedActiveIndexes returns the valid indexes held by more than one
// active pod.
func (x *syncState) repeatedActiveIndexes() *indexSet {
	active := x.activePods()
	seen, repeated := newIndexSet(len(active)), newIndexSet(0)
	completions := int(*x.job.Spec.Completions)
	for _, p := range active {
		if ix := indexes.Of(p.Annotations); ix != indexes.Unknown && ix < completions && !seen.set(ix) {
			repeated.set(ix)
		}
	}
	return repeated
}

// indexedDeletionReason says why pod p of an Indexed Job is deleted;
// repeated holds the indexes of more than one active pod (nil for none).
func (x *syncState) indexedDeletionReason(p *corev1.Pod, surplus string, repeated *indexSet) string {
	ix := indexes.Of(p.Annotations)
	switch {
	case ix == indexes.Unknown:
		return "the pod has no valid completion index"
	case ix >= int(*x.job.Spec.Completions):
		return fmt.Sprintf("index %d is not below completions (%d)", ix, *x.job.Spec.Completions)
	case repeated.has(ix):
		return fmt.Sprintf("index %d has more than one active pod", ix)
	}
	return surplus
}

// pendingIndexes returns up to n indexes below completions that have no
// active pod, have not succeeded and have not failed; with replacement of
// failed pods only, indexes of terminating pods are not pending either.
func (x *syncState) pendingIndexes(n int) []int {
	taken := x.succeededIndexes.Union(x.activeIndexes.members())
	if onlyReplaceFailed(x.job) {
		var terminating []int
		for i := range x.finishedOrDeleting {
			if r := &x.finishedOrDeleting[i]; r.terminating && r.index != indexes.Unknown {
				terminating = append(terminating, r.index)
			}
		}
		slices.Sort(terminating)
		taken = taken.WithIndexes(terminating)
	}
	return indexes.FirstMissing(n, int(*x.job.Spec.Completions), taken, x.failedIndexes)
}

// indexesPastBackoff keeps the indexes whose per-index backoff has run out.
// When none has, it returns the shortest wait among them.
func (x *syncState) indexesPastBackoff(ixs []int) ([]int, time.Duration) {
	var ready []int
	var wait time.Duration
	for _, ix := range ixs {
		left := time.Duration(0)
		if p := x.delayedRemoval[ix]; p != nil {
			failures := saturatingInc(int32(min(absoluteFailureCount(p.pod), int64(1<<31-2))))
			left = backoff.RemainingFor(failures, backoff.FinishTime(p.pod), x.now, x.opts.BackoffBase, x.opts.BackoffMax)
		}
		if left == 0 {
			ready = append(ready, ix)
		} else if wait == 0 || left < wait {
			wait = left
		}
	}
	if len(ready) > 0 {
		return ready, 0
	}
	return nil, wait
}

// updateSuspendCondition keeps the Suspended condition in step with
// spec.suspend: True with the Suspended event when the Job is suspended
// (clearing startTime), False with the Resumed event when it runs again
// (restarting startTime, so that activeDeadlineSeconds counts only time
// spent running). It reports whether the condition changed.
func (x *syncState) updateSuspendCondition() bool {
	var changed bool
	if x.suspended {
		x.st.Conditions, changed = setCondition(x.st.Conditions, "Suspended", corev1.ConditionTrue, reasonSuspended, msgSuspended, x.now)
		if changed {
			x.plan.Events = append(x.plan.Events, Event{corev1.EventTypeNormal, "Suspended", msgSuspended})
			if !x.opts.KeepStartTimeOnSuspend {
				x.st.StartTime = nil
			}
		}
		return changed
	}
	x.st.Conditions, changed = setCondition(x.st.Conditions, "Suspended", corev1.ConditionFalse, reasonResumed, msgResumed, x.now)
	if changed {
		x.plan.Events = append(x.plan.Events, Event{corev1.EventTypeNormal, "Resumed", msgResumed})
		x.st.StartTime = ptrTime(x.now)
	}
	return changed
}

// addDeletion adds one pod deletion to the plan and takes it out of the
// active, ready and terminating counts as upstream does on success.
func (x *syncState) addDeletion(p *corev1.Pod, removeFinalizer bool, reason string) {
	ready := podorder.IsReady(p)
	x.plan.Deletions = append(x.plan.Deletions, PodDeletion{
		Pod:             refOf(p),
		RemoveFinalizer: removeFinalizer && hasFinalizer(p, x.opts.TrackingFinalizer),
		Ready:           ready,
		Reason:          reason,
	})
	x.activeCount--
	x.terminating++
	if ready {
		x.ready--
	}
}
