package jobsync_test

import (
	"fmt"
	"time"

	"github.com/jobsync/jobsync/jobsync"
)

// The caller's half of the plan contract: carry out each step, go on after
// failed pod calls with the plan Resume returns, stop where a failure stops
// the plan, and keep the memory Advance returns. Here a quota refuses both
// pod creations of a new Job with an active deadline: the status is still
// written, with startTime set and no pod active, so the deadline runs.
func ExampleAdvance() {
	job := exampleJob()
	job.Spec.ActiveDeadlineSeconds = ptr(int64(20))
	snap := jobsync.Snapshot{Job: job, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	opts := jobsync.Options{}
	plan, err := jobsync.Reconcile(snap, opts)
	if err != nil {
		panic(err)
	}
	var progress jobsync.Progress
	for steps := plan.Steps(); len(steps) > 0; {
		step := steps[0]
		steps = steps[1:]
		fmt.Printf("%s: %d calls\n", step.Kind, step.Calls)
		if step.Kind == jobsync.StepPods {
			progress.Pods.Creations = step.Calls // every creation refused
			if plan, err = jobsync.Resume(snap, opts, plan, progress.Pods); err != nil {
				panic(err)
			}
			steps = plan.StepsAfter(jobsync.StepPods)
			fmt.Printf("  refused; the rest: interim status active %d, startTime %s\n",
				plan.InterimStatus.Active, plan.InterimStatus.StartTime.UTC().Format(time.RFC3339))
		}
	}
	mem := jobsync.Advance(snap, plan, progress)
	fmt.Println("expected creations:", mem.Expectations.Creations)
	// Output:
	// pods: 2 calls
	//   refused; the rest: interim status active 0, startTime 2026-01-01T12:00:00Z
	// interim status: 1 calls
	// expected creations: 0
}
