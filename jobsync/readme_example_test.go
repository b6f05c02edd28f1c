package jobsync_test

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// memory is what a controller keeps for each Job between syncs.
type memory struct {
	exp     expectations.Expectations
	backoff backoff.Record
}

// syncJob decides one sync of job and keeps the memory the plan returns.
// The caller then carries the plan out in the order of its fields, lowering
// mem.exp for each step that fails (see Plan.Expectations).
func syncJob(job *batchv1.Job, pods []*corev1.Pod, mem *memory) (jobsync.Plan, error) {
	plan, err := jobsync.Reconcile(jobsync.Snapshot{
		Job:          job,  // as your informer sees it (API-server defaulted: see jobsync.Default)
		Pods:         pods, // the Job's pods (and orphans matching its selector)
		Now:          time.Now(),
		Expectations: mem.exp, // returned by the previous plan, lowered by what you observed since
		Backoff:      mem.backoff,
	}, jobsync.Options{})
	if err != nil {
		return jobsync.Plan{}, err
	}
	mem.exp, mem.backoff = plan.Expectations, plan.Backoff
	return plan, nil
}

// End of README's snippet: TestREADMESnippet checks that README.md shows
// this file's code above this line, word for word.
