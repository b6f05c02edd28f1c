package oracle

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The backoff rule: a pod is not created before the pod-failure backoff
// the controller owes ran out, for the Job or for the pod's index.

// updateCandidate works out the backoff record the controller should work
// with in the sync of snap: the remembered one, updated with the tracked
// pods newly finished.
func (k *Checker) updateCandidate(snap jobsync.Snapshot, plan jobsync.Plan) {
	job := snap.Job
	k.candidate = k.backoff
	if plan.Skipped != "" {
		k.candidate = plan.Backoff
		return
	}
	var succ, failed []*corev1.Pod
	u := job.Status.UncountedTerminatedPods
	for _, p := range tracked(snap, k.fin) {
		if isIndexed(job) {
			if _, ok := podIndex(job, p); !ok {
				continue
			}
		}
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			if u == nil || !uidIn(u.Succeeded, p.UID) {
				succ = append(succ, p)
			}
		case failedPod(job, p):
			if u == nil || !uidIn(u.Failed, p.UID) {
				failed = append(failed, p)
			}
		}
	}
	k.candidate = k.backoff.Update(succ, failed)
}

// PlanWritten tells the checker how far the plan got, to keep the backoff
// record the way the controller keeps it.
func (k *Checker) PlanWritten(plan *jobsync.Plan, interimWritten bool) {
	if plan.Skipped != "" || (plan.InterimStatus != nil && interimWritten) {
		k.backoff = k.candidate
	}
}

// Crashed forgets what the controller forgot.
func (k *Checker) Crashed() {
	k.backoff, k.candidate = backoff.Record{}, backoff.Record{}
}

// checkBackoff: a pod is created only once the Job's pod-failure backoff
// ran out (the index's, under backoffLimitPerIndex). snap is the view the
// controller planned the creation from.
func (k *Checker) checkBackoff(sp Pod, snap jobsync.Snapshot) {
	job := snap.Job
	if isIndexed(job) && job.Spec.BackoffLimitPerIndex != nil {
		k.checkIndexBackoff(sp, snap)
		return
	}
	if left := k.candidate.Remaining(k.w.Now(), k.base, k.max); left > 0 {
		k.violate("backoff", "pod %s created with %v of pod-failure backoff left (%d failures, last at %v)",
			sp.Obj.Name, left, k.candidate.FailuresAfterLastSuccess, k.candidate.LastFailureTime)
	}
}

// checkIndexBackoff: a pod replacing failed pods of its index waits for the
// backoff owed after the failures its annotations carry, from the finish of
// the latest failed pod of the index (see earliestFinish). A failed pod
// whose failure the controller could not see is left out of the measure
// (see hiddenFailure).
func (k *Checker) checkIndexBackoff(sp Pod, snap jobsync.Snapshot) {
	failures := indexFailures(sp.Obj)
	if failures == 0 {
		return
	}
	var last time.Time
	found := false
	for o := range k.w.Pods() {
		if o.Obj.UID == sp.Obj.UID || o.Index != sp.Index || o.Obj.Status.Phase != corev1.PodFailed {
			continue
		}
		if k.hiddenFailure(o, failures, snap) {
			k.w.Tolerate(fmt.Sprintf(
				"%s: pod %s for index %d created without waiting for the failure of pod %s, which the pod view showed released before the Job view held the status that recorded it",
				k.w.Now().Format(time.RFC3339), sp.Obj.Name, sp.Index, o.Obj.Name))
			continue
		}
		if t := k.earliestFinish(o.Obj); !found || t.After(last) {
			last, found = t, true
		}
	}
	if !found {
		return // the failed pods left the API server; nothing to measure from
	}
	if d := backoff.Delay(failures, k.base, k.max); k.w.Now().Sub(last) < d {
		k.violate("backoff", "pod %s for index %d created %v after the last failure of the index, owing %v after %d failures",
			sp.Obj.Name, sp.Index, k.w.Now().Sub(last), d, failures)
	}
}

// hiddenFailure reports whether the failure of o was out of the
// controller's sight in the sync of snap, when it created a pod whose
// annotations carry failures: a race of informer skew that upstream's
// controller has too. Its pod view already showed o released (tracking
// finalizer gone) while its Job view did not yet hold the status that
// recorded o, which the Job the API server stores does. A controller must
// take a released pod as counted, and upstream replaces only failed pods
// that still carry the finalizer, so it measures the index's backoff from
// an older failure and may retry an index that has in fact failed. The new
// pod's failures then do not include o's (o's own count is as high); an
// older failure that they include is not hidden, only already counted.
// The two watches never disagree so without skew: the status that records
// a pod is written before its finalizer goes.
func (k *Checker) hiddenFailure(o Pod, failures int32, snap jobsync.Snapshot) bool {
	stored := k.w.Job()
	if indexFailures(o.Obj) < failures || stored == nil || recordsFailure(snap.Job, o) || !recordsFailure(stored, o) {
		return false
	}
	for _, p := range snap.Pods {
		if p.UID == o.Obj.UID {
			return !podlife.HasFinalizer(p, k.fin)
		}
	}
	return false
}

// indexFailures is the failures of its index before p, as p's annotations
// carry them, ignored ones included.
func indexFailures(p *corev1.Pod) int32 {
	return annotationInt(p, batchv1.JobIndexFailureCountAnnotation) + annotationInt(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
}

// recordsFailure reports whether job's status holds o's failure while it
// waits to be counted or as a failed index.
func recordsFailure(job *batchv1.Job, o Pod) bool {
	st := &job.Status
	if u := st.UncountedTerminatedPods; u != nil && uidIn(u.Failed, o.Obj.UID) {
		return true
	}
	return st.FailedIndexes != nil && job.Spec.Completions != nil &&
		indexes.ParseLenient(*st.FailedIndexes, int(*job.Spec.Completions)).Has(o.Index)
}

// earliestFinish is the earliest finish time the controller may have read
// for a failed pod: while it was terminating, upstream's rule reads the
// moment of the delete call (deletion timestamp less the grace period),
// which can come before the containers' own finish. That moment is taken
// from the views the controller had (noteDeleteCall) as well as from the
// stored pod, whose timestamp the kubelet's final delete moves.
func (k *Checker) earliestFinish(p *corev1.Pod) time.Time {
	t := backoff.FinishTime(p)
	if d, ok := deleteCall(p); ok && d.Before(t) {
		t = d
	}
	if d, ok := k.deleteCalls[p.UID]; ok && d.Before(t) {
		t = d
	}
	return t
}

// noteDeleteCall remembers the earliest delete call a view of p showed.
func (k *Checker) noteDeleteCall(p *corev1.Pod) {
	d, ok := deleteCall(p)
	if !ok {
		return
	}
	if old, seen := k.deleteCalls[p.UID]; seen && !d.Before(old) {
		return
	}
	if k.deleteCalls == nil {
		k.deleteCalls = map[types.UID]time.Time{}
	}
	k.deleteCalls[p.UID] = d
}

// deleteCall is the moment of the delete call p shows, if it is deleted.
func deleteCall(p *corev1.Pod) (time.Time, bool) {
	if p.DeletionTimestamp == nil {
		return time.Time{}, false
	}
	var grace time.Duration
	if g := p.DeletionGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	return p.DeletionTimestamp.Add(-grace), true
}
