package oracle

import (
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The write-ahead rule: a tracking finalizer goes only once the status the
// API server holds records how the pod counts; and released-active: a
// running pod is released only when the Job is finishing or being deleted.

// Verdicts on a pod at the removal of its tracking finalizer.
const (
	countSucceeded = "succeeded"
	countFailed    = "failed"
	countNone      = "none"
	countActive    = "active" // a running pod released while nothing allows it
)

// FinalizerRemoval checks a tracking-finalizer removal against the status
// the API server holds at that moment (write-ahead), and fixes how the pod
// must be counted.
func (k *Checker) FinalizerRemoval(sp Pod, surplus bool, plan *jobsync.Plan, snap jobsync.Snapshot) {
	if !podlife.HasFinalizer(sp.Obj, k.fin) {
		return
	}
	uid := sp.Obj.UID
	var vp *corev1.Pod
	for _, p := range snap.Pods {
		if p.UID == uid {
			vp = p
		}
	}
	if vp == nil {
		k.violate("write-ahead", "finalizer of pod %s removed, a pod the controller does not see", sp.Obj.Name)
		return
	}
	job := snap.Job
	stored := &k.w.Job().Status
	u := stored.UncountedTerminatedPods
	if u == nil {
		u = &batchv1.UncountedTerminatedPods{}
	}
	ix, _ := podIndex(job, vp)
	// What the API server's status records decides first: a pod in
	// uncountedTerminatedPods is counted as recorded once its finalizer
	// is gone, whichever path removes it.
	if uidIn(u.Succeeded, uid) {
		k.record(uid, countSucceeded, ix)
		return
	}
	if uidIn(u.Failed, uid) {
		if isIndexed(job) && (vp.Status.Phase == corev1.PodSucceeded || sp.Obj.Status.Phase == corev1.PodSucceeded) {
			k.failedThenSucceeded[ix] = true
		}
		k.record(uid, countFailed, ix)
		return
	}
	if surplus {
		if podlife.IsTerminal(vp) || vp.DeletionTimestamp != nil {
			k.violate("write-ahead", "finalizer of pod %s removed for a deletion, but the controller saw it finished or terminating", sp.Obj.Name)
		}
		k.record(uid, countNone, -1)
		k.surplus[uid] = sp
		return
	}
	st := &job.Status
	if plan.InterimStatus != nil {
		st = plan.InterimStatus
	}
	verdict := judge(job, st, vp)
	switch verdict {
	case countSucceeded:
		if isIndexed(job) {
			// The Job's completions may have changed since the view the
			// plan came from: read the list without cutting it to either.
			limit := max(int(*k.w.Job().Spec.Completions), int(*job.Spec.Completions))
			done := indexes.ParseLenient(stored.CompletedIndexes, limit)
			if !done.Has(ix) {
				k.violate("write-ahead", "finalizer of succeeded pod %s (index %d) removed before the index is in completedIndexes %q", sp.Obj.Name, ix, stored.CompletedIndexes)
			}
		} else if !uidIn(u.Succeeded, uid) {
			k.violate("write-ahead", "finalizer of succeeded pod %s removed before it is in uncountedTerminatedPods.succeeded", sp.Obj.Name)
		}
	case countFailed:
		if !uidIn(u.Failed, uid) {
			k.violate("write-ahead", "finalizer of failed pod %s removed before it is in uncountedTerminatedPods.failed", sp.Obj.Name)
		}
	case countActive:
		k.violate("released-active", "finalizer of active pod %s removed while the Job is neither finishing nor being deleted", sp.Obj.Name)
	}
	k.record(uid, verdict, ix)
}

// judge says how the Job must count pod p (as the controller saw it) when
// its finalizer goes, given the status written before the removals.
func judge(job *batchv1.Job, st *batchv1.JobStatus, p *corev1.Pod) string {
	// A pod already recorded as uncounted keeps the verdict it was recorded
	// with, whatever it did since (a running pod recorded as failed when
	// the Job started failing may end with an exit code an Ignore rule
	// matches).
	if u := st.UncountedTerminatedPods; u != nil {
		if uidIn(u.Succeeded, p.UID) {
			return countSucceeded
		}
		if uidIn(u.Failed, p.UID) {
			return countFailed
		}
	}
	indexed := isIndexed(job)
	_, validIx := podIndex(job, p)
	if indexed && !validIx {
		return countNone
	}
	if p.Status.Phase == corev1.PodSucceeded {
		return countSucceeded
	}
	// A failing Job counts its running pods as failed, but a Job being
	// deleted releases them uncounted unless it recorded them (the caller
	// looks at the record first): a failing Job whose expectations are not
	// met, or whose deletions failed, drops its decision to fail for the
	// sync, upstream as here.
	failing := job.DeletionTimestamp == nil && conditionTrue(st, batchv1.JobFailureTarget) != nil
	if failedPod(job, p) || failing {
		if policyAction(job, p) == batchv1.PodFailurePolicyActionIgnore {
			return countNone
		}
		return countFailed
	}
	if job.DeletionTimestamp != nil || conditionTrue(st, batchv1.JobSuccessCriteriaMet) != nil {
		return countNone
	}
	return countActive
}

// recountedSurplus handles a pod whose finalizer the controller removed as
// surplus (suspend, scale-down) and whose deletion then failed: a stale
// view that still shows the finalizer lets a later sync record the pod in
// uncountedTerminatedPods (the Job is finishing) and count it, as upstream
// does, since it expects no observation of finalizers it removes for
// deletions. The pod is then counted once, as recorded; the checks list it
// in Result.Tolerated.
func (k *Checker) recountedSurplus(st *batchv1.JobStatus) {
	u := st.UncountedTerminatedPods
	if u == nil {
		return
	}
	uids := make([]types.UID, 0, len(k.surplus))
	for uid := range k.surplus {
		uids = append(uids, uid)
	}
	slices.Sort(uids)
	for _, uid := range uids {
		sp := k.surplus[uid]
		verdict := ""
		switch {
		case uidIn(u.Succeeded, uid):
			verdict = countSucceeded
		case uidIn(u.Failed, uid):
			verdict = countFailed
		default:
			continue
		}
		delete(k.surplus, uid)
		k.verdicts[uid] = verdict
		if verdict == countSucceeded && sp.Index >= 0 {
			k.succeededAt[sp.Index] = k.w.Now()
		}
		k.w.Tolerate(fmt.Sprintf(
			"%s: pod %s, released as surplus, is counted as %s: a stale view still showed its finalizer when the Job began finishing",
			k.w.Now().Format(time.RFC3339), sp.Obj.Name, verdict))
	}
}

func (k *Checker) record(uid types.UID, verdict string, ix int) {
	if _, seen := k.verdicts[uid]; seen {
		return
	}
	k.verdicts[uid] = verdict
	if verdict == countSucceeded && ix >= 0 {
		k.succeededAt[ix] = k.w.Now()
	}
}
