package oracle

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/jobsync"
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
// ran out (the index's, under backoffLimitPerIndex).
func (k *Checker) checkBackoff(sp Pod, job *batchv1.Job) {
	if isIndexed(job) && job.Spec.BackoffLimitPerIndex != nil {
		k.checkIndexBackoff(sp)
		return
	}
	if left := k.candidate.Remaining(k.w.Now(), k.base, k.max); left > 0 {
		k.violate("backoff", "pod %s created with %v of pod-failure backoff left (%d failures, last at %v)",
			sp.Obj.Name, left, k.candidate.FailuresAfterLastSuccess, k.candidate.LastFailureTime)
	}
}

// checkIndexBackoff: a pod replacing failed pods of its index waits for the
// backoff owed after the failures its annotations carry, from the finish of
// the latest failed pod of the index (see earliestFinish).
func (k *Checker) checkIndexBackoff(sp Pod) {
	failures := annotationInt(sp.Obj, batchv1.JobIndexFailureCountAnnotation) + annotationInt(sp.Obj, batchv1.JobIndexIgnoredFailureCountAnnotation)
	if failures == 0 {
		return
	}
	var last time.Time
	found := false
	for o := range k.w.Pods() {
		if o.Obj.UID == sp.Obj.UID || o.Index != sp.Index || o.Obj.Status.Phase != corev1.PodFailed {
			continue
		}
		if t := earliestFinish(o.Obj); !found || t.After(last) {
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

// earliestFinish is the earliest finish time the controller may have read
// for a failed pod: while it was terminating, upstream's rule reads the
// moment of the delete call (deletion timestamp less the grace period),
// which can come before the containers' own finish.
func earliestFinish(p *corev1.Pod) time.Time {
	t := backoff.FinishTime(p)
	if p.DeletionTimestamp != nil {
		var grace time.Duration
		if g := p.DeletionGracePeriodSeconds; g != nil {
			grace = time.Duration(*g) * time.Second
		}
		if d := p.DeletionTimestamp.Add(-grace); d.Before(t) {
			t = d
		}
	}
	return t
}
