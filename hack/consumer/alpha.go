//go:build ignore

// The alpha part of the program, built on k8s.io v0.36 only: the
// WorkloadWithJob gate of 1.36 through alpha/workload136.
package main

import (
	"fmt"
	"os"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/alpha/workload136"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

func init() {
	job := jobspec.Default(newGangJob())
	plan, err := workload136.Reconcile(workload136.Snapshot{Snapshot: jobsync.Snapshot{Job: job, Now: time.Now()}}, jobsync.Options{})
	if err != nil || plan.WorkloadCreation == nil || plan.PodGroupCreation == nil {
		fmt.Fprintf(os.Stderr, "workload136: no Workload and PodGroup for a gang Job (error %v)\n", err)
		os.Exit(1)
	}
	fmt.Printf("workload136: Workload %s, PodGroup %s\n", plan.WorkloadCreation.Name, plan.PodGroupCreation.Name)
}

func newGangJob() *batchv1.Job {
	job := newJob()
	mode := batchv1.IndexedCompletion
	job.Spec.CompletionMode = &mode
	return job
}
