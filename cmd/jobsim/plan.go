package main

import (
	"io"
	"time"

	"github.com/jobsync/jobsync/jobsync"
)

// planCommand is 'jobsim plan': one Reconcile on the snapshot the files
// describe.
func planCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("plan", planUsage, stdout)
	var files fileList
	format := outputFormat("text")
	fs.Var(&files, "f", "a file with the Job, its pods, or both (repeatable; - for standard input)")
	fs.Var(&files, "filename", "the same as -f, as kubectl spells it")
	nowFlag := fs.String("now", "", "the controller's clock: an RFC 3339 time, or 'now' for the wall clock\n(default: the latest timestamp in the input)")
	fs.Var(&format, "o", "output format: text, yaml or json")
	fs.Var(&format, "output", "the same as -o, as kubectl spells it")
	controllerName := fs.String("controller-name", jobsync.DefaultControllerName, "the spec.managedBy value the controller acts for (a Job managed by another\ncontroller is left alone, as kube-controller-manager leaves it)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErrorf("plan: no input: give the Job and its pods with -f")
	}
	if *controllerName == "" {
		return usageErrorf("plan: --controller-name must not be empty")
	}
	var now time.Time
	nowSource := "the latest timestamp in the input"
	switch *nowFlag {
	case "":
	case "now":
		now, nowSource = time.Now().UTC(), "the wall clock (--now now)"
	default:
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return usageErrorf("plan: --now %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", *nowFlag)
		}
		if t.IsZero() {
			return usageErrorf("plan: --now %q is the zero time, which plan reads as unset; give a real time or leave --now out", *nowFlag)
		}
		if outOfYears(t) {
			return usageErrorf("plan: --now %q is in the year %d in UTC: Kubernetes writes times in UTC with a four-digit year", *nowFlag, t.UTC().Year())
		}
		now, nowSource = t, "--now"
	}

	objs, err := readFiles(files, stdin)
	if err != nil {
		return err
	}
	in, err := assemblePlanInput(objs)
	if err != nil {
		return err
	}
	if now.IsZero() {
		now, _ = latestTime(in) // the Job's creationTimestamp is always there
	}
	plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: in.job, Pods: in.pods, Now: now}, jobsync.Options{ControllerName: *controllerName})
	if err != nil {
		return errorAt(in.sourceOf(err), "the controller cannot decide on this input: %v", err)
	}
	return printPlan(stdout, format, planReport{in: in, now: now, nowSource: nowSource, plan: plan, controllerName: *controllerName})
}
