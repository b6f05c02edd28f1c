package jobsync

import (
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/podorder"
)

// deleteAllActive deletes every active pod of a Job that is finishing. The
// finalizers stay: the tracking steps count the pods as failed and release
// them. Upstream sets no expectations for these deletions. It returns the
// pod counts once the deletions are carried out, and finish, or nil when
// the Job cannot be declared finished in this sync: failed, when not nil,
// says some deletion failed (see Resume), or pod creations and deletions
// of earlier syncs may not be seen yet. The deletions are in the plan part
// it returns, made from mem.
func (sync *syncState) deleteAllActive(census *podCensus, finish *batchv1.JobCondition, failed *PodFailures, mem Memory) (podCounts, *batchv1.JobCondition, Plan) {
	part := newPart(mem)
	c, finish := sync.deleteActive(&part, census, finish, failed)
	return c, finish, part
}

// deleteActive is deleteAllActive adding to part.
func (sync *syncState) deleteActive(part *Plan, census *podCensus, finish *batchv1.JobCondition, failed *PodFailures) (podCounts, *batchv1.JobCondition) {
	c := census.counts
	reason := fmt.Sprintf("the Job is finishing (%s)", finish.Reason)
	for _, p := range sync.sortedForPlan(census.activePods()) {
		sync.addDeletion(part, &c, p, podorder.IsReady(p), false, reason)
	}
	if failed.apply(&c, part.Deletions, false) { // resume.go
		// Upstream declares the Job finished only once every active
		// pod's deletion went through.
		part.Notes = append(part.Notes, "the Job is not declared finished: deleting its active pods failed")
		return c, nil
	}
	if !sync.satisfied {
		// Pods may exist that this census does not show yet; upstream waits
		// before declaring the Job finished.
		part.Notes = append(part.Notes, "the Job is not declared finished: pod creations or deletions are still expected")
		return c, nil
	}
	return c, finish
}

// managePods runs manage when the sync may create and delete pods
// (sync.manages), with failed, when not nil, saying which of its calls
// failed (see Resume), and returns the pod counts once its deletions and
// creations are carried out; otherwise it says why no pods change. What it
// decides is in the plan part it returns, made from mem.
func (sync *syncState) managePods(census *podCensus, counts finishedCounts, progress indexProgress, failed *PodFailures, mem Memory) (podCounts, Plan) {
	part := newPart(mem)
	pods := sync.manageOrSayWhy(&part, census, counts, progress, failed, mem.Expectations)
	return pods, part
}

// manageOrSayWhy is managePods adding to part; exp
// are the expectations it waits on when they are not satisfied.
func (sync *syncState) manageOrSayWhy(part *Plan, census *podCensus, counts finishedCounts, progress indexProgress, failed *PodFailures, exp expectations.Expectations) podCounts {
	switch {
	case sync.manages:
		pods := sync.manage(part, census, counts, progress)
		failed.apply(&pods, part.Deletions, true) // resume.go
		return pods
	case !sync.satisfied:
		part.Notes = append(part.Notes, fmt.Sprintf("no pods are created or deleted: waiting to observe %d creations and %d deletions", exp.Creations, exp.Deletions))
	default:
		part.Notes = append(part.Notes, "no pods are created or deleted: the Job is being deleted")
	}
	return census.counts
}

// manage brings the number of active pods to what the Job wants: all gone
// while suspended; otherwise deleting the surplus (and, for Indexed Jobs,
// pods with repeated or invalid indexes), or else creating what is missing
// unless the pod-failure backoff holds creation back. It returns the pod
// counts once its deletions and creations are carried out.
func (sync *syncState) manage(part *Plan, census *podCensus, counts finishedCounts, progress indexProgress) podCounts {
	job := sync.job
	c := census.counts
	active := c.active
	if sync.suspended {
		sync.deleteRanked(part, &c, sync.forRemoval(census, int(active)), func(*candidate) string { return "the Job is suspended" })
		return c
	}
	want := sync.wantActive(active, counts.succeeded)
	// Only the first MaxPodCreateDeletePerSync pods of the deletion order
	// go in one sync: ask for no more.
	rm := sync.forRemoval(census, int(max(0, min(active-want, int32(sync.opts.MaxPodCreateDeletePerSync)))))
	if len(rm) > sync.opts.MaxPodCreateDeletePerSync {
		rm = rm[:sync.opts.MaxPodCreateDeletePerSync]
	}
	if len(rm) > 0 {
		reason := fmt.Sprintf("%s active, the Job wants %d", count(int(active), "pod is", "pods are"), want)
		var repeated *indexSet
		if census.indexTrouble {
			repeated = sync.repeatedActiveIndexes(census.activePods())
		}
		sync.deleteRanked(part, &c, rm, func(d *candidate) string {
			if !census.indexTrouble {
				// Without trouble every active pod has its own valid
				// index: each goes as surplus.
				return reason
			}
			return sync.indexedDeletionReason(d.pod(), reason, repeated)
		})
		if sync.indexed {
			part.Notes = append(part.Notes, "no pods are created: a sync that deletes pods does not create any")
		}
		return c
	}
	var terminating int32
	if onlyReplaceFailed(job) {
		terminating = c.terminating
	}
	diff := want - terminating - active
	if diff <= 0 {
		if terminating > 0 && want-active > 0 {
			part.Notes = append(part.Notes, "no pods are created: "+count(int(terminating), "terminating pod is not replaced until it fails", "terminating pods are not replaced until they fail"))
		}
		return c
	}
	if !sync.perIndex {
		if left := counts.backoff.Remaining(sync.now, sync.opts.BackoffBase, sync.opts.BackoffMax); left > 0 {
			sync.requeue(part, left, true)
			part.Notes = append(part.Notes, fmt.Sprintf("no pods are created: pod-failure backoff after %s, %v left", count(int(counts.backoff.FailuresAfterLastSuccess), "failure", "failures"), left))
			return c
		}
	}
	sync.createMissing(part, &c, census, progress, want, min(diff, int32(sync.opts.MaxPodCreateDeletePerSync)))
	return c
}

// wantActive is how many active pods the Job wants, given active now and
// succeeded so far: what remains of the completions, at most parallelism;
// a work queue (no completions) wants parallelism until a pod succeeds,
// after which the rest finish on their own and nothing new starts.
func (sync *syncState) wantActive(active, succeeded int32) int32 {
	parallelism := *sync.job.Spec.Parallelism
	if sync.job.Spec.Completions == nil {
		if succeeded > 0 {
			return active
		}
		return parallelism
	}
	return max(0, min(*sync.job.Spec.Completions-succeeded, parallelism))
}

// deleteRanked adds to part the deletions of the ranked pods rm, in their
// order, each with the reason reason gives it, and expects them.
func (sync *syncState) deleteRanked(part *Plan, c *podCounts, rm []*candidate, reason func(*candidate) string) {
	part.Expectations = part.Expectations.ExpectDeletions(len(rm), sync.now)
	part.Deletions = slices.Grow(part.Deletions, len(rm))
	for _, d := range rm {
		sync.addDeletion(part, c, d.pod(), d.rank.Ready(), d.finalizer, reason(d))
	}
}

// createMissing creates up to diff pods of a Job that wants want active
// pods: for an Indexed Job, those of its first pending indexes past their
// per-index backoff.
func (sync *syncState) createMissing(part *Plan, c *podCounts, census *podCensus, progress indexProgress, want, diff int32) {
	if len(sync.job.Spec.Template.Labels) == 0 && !sync.indexed {
		// The pod control refuses to create pods without labels; upstream
		// sets and then lowers its expectations and retries with a rate
		// limit, as the caller should. An Indexed Job's pods always have
		// one: their completion index.
		part.Expectations = part.Expectations.ExpectCreations(0, sync.now)
		part.Notes = append(part.Notes, "no pods are created: the pod template has no labels, and pods without labels are refused")
		return
	}
	if !sync.indexed {
		part.Expectations = part.Expectations.ExpectCreations(int(diff), sync.now)
		reason := fmt.Sprintf("%s active, the Job wants %d", count(int(c.active), "pod is", "pods are"), want)
		for range diff {
			sync.addCreation(part, c, indexes.Unknown, reason, nil)
		}
		return
	}
	toAdd := sync.pendingIndexes(census, progress, int(diff))
	if sync.perIndex {
		var wait time.Duration
		toAdd, wait = sync.indexesPastBackoff(toAdd, progress.delayedRemoval)
		if wait > 0 {
			sync.requeue(part, wait, true)
			part.Notes = append(part.Notes, fmt.Sprintf("no pods are created: every pending index is in its pod-failure backoff, the first ends in %v", wait))
			return
		}
	}
	part.Expectations = part.Expectations.ExpectCreations(len(toAdd), sync.now)
	for _, ix := range toAdd {
		sync.addCreation(part, c, ix, fmt.Sprintf("index %d is pending", ix), progress.delayedRemoval[ix])
	}
}

// pendingIndexes returns up to n indexes below completions that have no
// active pod, have not succeeded and have not failed; with replacement of
// failed pods only, indexes of terminating pods are not pending either.
func (sync *syncState) pendingIndexes(census *podCensus, progress indexProgress, n int) []int {
	taken := progress.succeeded.Union(census.activeIndexSet())
	if onlyReplaceFailed(sync.job) {
		var terminating []int
		for i := range census.finishedOrDeleting {
			if r := &census.finishedOrDeleting[i]; r.terminating && r.index != indexes.Unknown {
				terminating = append(terminating, r.index)
			}
		}
		slices.Sort(terminating)
		taken = taken.WithIndexes(terminating)
	}
	return indexes.FirstMissing(n, int(*sync.job.Spec.Completions), taken, progress.failed)
}

// indexesPastBackoff keeps the indexes whose per-index backoff has run out.
// When none has, it returns the shortest wait among them.
func (sync *syncState) indexesPastBackoff(ixs []int, delayed map[int]*podRecord) ([]int, time.Duration) {
	var ready []int
	var wait time.Duration
	for _, ix := range ixs {
		left := time.Duration(0)
		if p := delayed[ix]; p != nil {
			// The failure that ended p counts too; the int32 sum wraps
			// as upstream's does (a negative count owes the base delay).
			failures := absoluteFailureCount(p.pod) + 1
			left = backoff.RemainingFor(failures, backoff.FinishTime(p.pod), sync.now, sync.opts.BackoffBase, sync.opts.BackoffMax)
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

// addDeletion adds the deletion of pod p to part and takes it out of
// the active, ready and terminating counts as upstream does on success.
// ready is the pod's readiness and removeFinalizer whether the deletion
// also removes the tracking finalizer (the pod carries it, and the
// deletion is one that removes it): the caller has them from the pod's
// rank, so that no pod is read again in deletion order.
func (sync *syncState) addDeletion(part *Plan, c *podCounts, p *corev1.Pod, ready, removeFinalizer bool, reason string) {
	part.Deletions = append(part.Deletions, PodDeletion{
		Pod:             refOf(p),
		RemoveFinalizer: removeFinalizer,
		Ready:           ready,
		Reason:          reason,
	})
	c.active--
	c.terminating++
	if ready {
		c.ready--
	}
}
