package oracle

import (
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The count rule: a pod is counted once, as it was released, and nothing
// is left tracked or uncounted when the Job finished.

// scaleEvent is a change of the Job that lowered completions.
type scaleEvent struct {
	at          time.Time
	completions int
}

// JobChanged remembers when completions went down.
func (k *Checker) JobChanged(j *batchv1.Job) {
	if c := j.Spec.Completions; c != nil && isIndexed(j) {
		k.scaledDown = append(k.scaledDown, scaleEvent{at: k.w.Now(), completions: int(*c)})
	}
}

// AtEnd checks a Job that finished, Complete when complete and Failed
// otherwise: nothing tracked or uncounted, every pod counted once, and the
// terminal condition that the status leads to.
func (k *Checker) AtEnd(complete bool) {
	job := k.w.Job()
	st := &job.Status
	for _, sp := range k.w.SortedPods() {
		if k.w.Controlled(sp.Obj) && podlife.HasFinalizer(sp.Obj, k.fin) && !slices.Contains(k.unseen, sp.Obj.UID) {
			k.violate("count", "pod %s still has the tracking finalizer after the Job finished", sp.Obj.Name)
		}
	}
	if u := st.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		k.violate("count", "uncountedTerminatedPods not empty at the end: %v", u)
	}
	var succ, failed int
	for _, v := range k.verdicts {
		switch v {
		case countSucceeded:
			succ++
		case countFailed:
			failed++
		}
	}
	if want := int(k.initial.Failed) + failed; int(st.Failed) != want {
		k.violate("count", "status.failed is %d, but %d pods were released as failed (%d before the run)", st.Failed, failed, k.initial.Failed)
	}
	if isIndexed(job) {
		k.checkIndexedCount(job)
	} else if want := int(k.initial.Succeeded) + succ; int(st.Succeeded) != want {
		k.violate("count", "status.succeeded is %d, but %d pods were released as succeeded (%d before the run)", st.Succeeded, succ, k.initial.Succeeded)
	}

	k.checkTerminalCondition(job, complete)
}

// checkIndexedCount: status.succeeded is the number of completed indexes;
// every completed index had a pod released as succeeded, and every index
// released as succeeded is completed unless completions went down to it or
// below at some point.
func (k *Checker) checkIndexedCount(job *batchv1.Job) {
	st := &job.Status
	c := int(*job.Spec.Completions)
	done, err := indexes.Parse(st.CompletedIndexes, c)
	if err != nil {
		k.violate("count", "completedIndexes %q: %v", st.CompletedIndexes, err)
		return
	}
	if int(st.Succeeded) != done.Total() {
		k.violate("count", "status.succeeded is %d, but completedIndexes %q holds %d", st.Succeeded, st.CompletedIndexes, done.Total())
	}
	before := indexes.ParseLenient(k.initial.CompletedIndexes, c)
	for _, iv := range done {
		for ix := iv.First; ix <= iv.Last; ix++ {
			if _, ok := k.succeededAt[ix]; ok || before.Has(ix) {
				continue
			}
			if k.failedThenSucceeded[ix] {
				// Upstream's double count (v1.36.3): a running pod of a
				// failing Job is recorded as failed, succeeds before its
				// finalizer goes, and its index still joins
				// completedIndexes, since succeeded indexes are read from
				// the pods without looking at uncountedTerminatedPods.
				k.w.Tolerate(fmt.Sprintf(
					"index %d is in completedIndexes and its pod in status.failed: the pod was recorded as failed while the Job was failing, then succeeded", ix))
				continue
			}
			k.violate("count", "index %d is completed, but no pod of it was released as succeeded", ix)
		}
	}
	released := make([]int, 0, len(k.succeededAt))
	for ix := range k.succeededAt {
		released = append(released, ix)
	}
	slices.Sort(released)
	for _, ix := range released {
		if ix >= c || done.Has(ix) {
			continue
		}
		// Completions lowered to ix or below, before or after the release
		// (the controller's view of the Job may lag behind the change),
		// may have dropped the index.
		dropped := false
		for _, s := range k.scaledDown {
			if s.completions <= ix {
				dropped = true
			}
		}
		if !dropped {
			k.violate("count", "index %d had a pod released as succeeded, but is not in completedIndexes %q", ix, st.CompletedIndexes)
		}
	}
}
