package oracle

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The rules of a pod creation: none while the Job is suspended (suspended),
// none once its active deadline passed (deadline), never more pods active
// than parallelism (parallelism); the backoff rule is in backoff.go.

// Created checks a pod creation against the snapshot and plan it came from.
func (k *Checker) Created(sp Pod, plan *jobsync.Plan, snap jobsync.Snapshot) {
	job := snap.Job
	k.checkSuspended(sp, job)
	k.checkDeadline(sp, job, plan)
	k.checkParallelism(sp, job)
	k.checkBackoff(sp, snap)
}

func (k *Checker) checkSuspended(sp Pod, job *batchv1.Job) {
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		k.violate("suspended", "pod %s created while the Job is suspended", sp.Obj.Name)
	}
}

// checkDeadline measures from the startTime the plan writes, if it writes
// one, as a creation follows the interim status.
func (k *Checker) checkDeadline(sp Pod, job *batchv1.Job, plan *jobsync.Plan) {
	ads := job.Spec.ActiveDeadlineSeconds
	if ads == nil {
		return
	}
	start := job.Status.StartTime
	if plan.InterimStatus != nil {
		start = plan.InterimStatus.StartTime
	}
	if now := k.w.Now(); start != nil && now.Sub(start.Time) >= time.Duration(*ads)*time.Second {
		k.violate("deadline", "pod %s created %v after the start, activeDeadlineSeconds %d", sp.Obj.Name, now.Sub(start.Time), *ads)
	}
}

// checkParallelism counts the pods the API server holds, the new one
// included: terminating pods count as active while the Job waits for
// them to fail.
func (k *Checker) checkParallelism(sp Pod, job *batchv1.Job) {
	active := 0
	for o := range k.w.Pods() {
		if !k.w.Controlled(o.Obj) || podlife.IsTerminal(o.Obj) {
			continue
		}
		if o.Obj.DeletionTimestamp == nil || onlyReplaceFailed(job) {
			active++
		}
	}
	if active > int(*job.Spec.Parallelism) {
		k.violate("parallelism", "pod %s created: %d pods active, parallelism %d", sp.Obj.Name, active, *job.Spec.Parallelism)
	}
}
