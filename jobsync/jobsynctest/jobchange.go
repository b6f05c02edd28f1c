package jobsynctest

import (
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// changeJob carries out a user's change to the Job's spec.
func (c *Cluster) changeJob(ch JobChange) StepRecord {
	rec := StepRecord{Detail: ch.String()}
	switch {
	case ch.Suspend != nil && *ch.Suspend:
		rec.Kind = KindJobSuspended
	case ch.Suspend != nil:
		rec.Kind = KindJobResumed
	case ch.Delete:
		rec.Kind = KindJobDeleted
	default:
		rec.Kind = KindJobScaled
	}
	if c.job == nil || c.job.DeletionTimestamp != nil {
		rec.Detail += ": the Job is gone or being deleted, nothing changes"
		return rec
	}
	if isFinished(c.job) && !ch.Delete {
		rec.Detail += ": the Job has finished, nothing changes"
		return rec
	}
	c.result.Faults.JobChanges++
	j := c.job.DeepCopy()
	switch {
	case ch.Suspend != nil:
		j.Spec.Suspend = ptr(*ch.Suspend)
	case ch.Parallelism != nil:
		j.Spec.Parallelism = ptr(*ch.Parallelism)
	case ch.Scale != nil:
		j.Spec.Parallelism = ptr(*ch.Scale)
		j.Spec.Completions = ptr(*ch.Scale)
	case ch.Delete:
		now := metav1.NewTime(c.now)
		j.DeletionTimestamp = &now
		j.Finalizers = append(j.Finalizers, metav1.FinalizerDeleteDependents)
	}
	j.Generation++
	c.storeJob(j)
	if c.check != nil {
		c.check.JobChanged(j)
	}
	return rec
}

func isFinished(job *batchv1.Job) bool {
	return hasTrueCondition(job, batchv1.JobComplete) || hasTrueCondition(job, batchv1.JobFailed)
}

func (c *Cluster) storeJob(j *batchv1.Job) {
	j.ResourceVersion = c.nextRV()
	c.job, c.lastJob = j, j
	c.emitJob(j, false)
}
