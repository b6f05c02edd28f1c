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

// syncJob decides one sync of job, has carryOut carry the plan out step by
// step (Plan.Steps; after failed pod calls, on with jobsync.Resume's plan),
// and keeps the memory jobsync.Advance returns. The memory is read before
// the pods are listed: the other order counts a pod twice.
func syncJob(job *batchv1.Job, listPods func(*batchv1.Job) []*corev1.Pod, mem *memory,
	carryOut func(jobsync.Snapshot, jobsync.Plan) (jobsync.Plan, jobsync.Progress)) error {
	snap := jobsync.Snapshot{
		Job:          job, // as your informer sees it (API-server defaulted: see jobspec.Default)
		Now:          time.Now(),
		Expectations: mem.exp, // kept by Advance, lowered since by what you observed (jobsync.Observe)
		Backoff:      mem.backoff,
	}
	snap.Pods = listPods(job) // then the Job's pods (and orphans matching its selector)
	plan, err := jobsync.Reconcile(snap, jobsync.Options{})
	if err != nil {
		return err
	}
	done, progress := carryOut(snap, plan)
	kept := jobsync.Advance(snap, done, progress)
	mem.exp, mem.backoff = kept.Expectations, kept.Backoff
	return nil
}

// End of README's snippet: TestREADMESnippet checks that README.md shows
// this file's code above this line, word for word.
