package main

import (
	"fmt"

	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// unfinished says why a run ended without the Job finishing (Stuck or
// MaxSyncs), and "" for a run that finished. A run that does not finish
// exits 1 with this reason, so that a script or CI job waiting for the
// Job's end is not told all went well.
func unfinished(res jobsynctest.Result, cfg jobsynctest.Config) string {
	switch res.Outcome {
	case jobsynctest.OutcomeStuck:
		job := res.Job
		name := cfg.Options.ControllerName
		if name == "" {
			name = jobsync.DefaultControllerName
		}
		switch {
		case job == nil:
			return "nothing more can happen"
		case job.Spec.ManagedBy != nil && *job.Spec.ManagedBy != name:
			// kube-controller-manager leaves such a Job to its manager,
			// and so does the simulated controller.
			return fmt.Sprintf("the Job is managed by %q (spec.managedBy) and the simulated controller acts for %q only; pass --controller-name %s to act for it",
				*job.Spec.ManagedBy, name, *job.Spec.ManagedBy)
		case job.Spec.Suspend != nil && *job.Spec.Suspend:
			return "the Job is suspended, and no jobChanges in the script resume it"
		}
		return "no pod, sync or change to the Job is due (pods that run forever, say)"
	case jobsynctest.OutcomeMaxSyncs:
		return fmt.Sprintf("the Job had not finished when --max-syncs (%d) ran out", cfg.MaxSyncs)
	}
	return ""
}
