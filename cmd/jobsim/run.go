package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// runCommand is 'jobsim run': the Job in jobsynctest's fake cluster, from
// creation until it finishes.
func runCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", runUsage, stdout)
	var files fileList
	format := outputFormat("text")
	fs.Var(&files, "f", "the Job manifest (- for standard input)")
	fs.Var(&files, "filename", "the same as -f, as kubectl spells it")
	scriptFlag := fs.String("script", "", "a script: what each pod or index does, and changes to the Job\n(default: FILE.script.yaml next to the Job's FILE.yaml when there is one; 'none' for none)")
	seed := fs.Int64("seed", 1, "the seed of every random choice: pod names, pods the script leaves open, faults")
	faultsFlag := fs.String("faults", "", "faults to inject, comma-separated: apiError=P, crash=P, staleView=P,\npodDeletion=P (probabilities in [0,1]) and maxLag=DURATION")
	startFlag := fs.String("start", jobsynctest.DefaultStart.Format(time.RFC3339), "the simulated clock at the Job's creation (RFC 3339)")
	maxSyncs := fs.Int("max-syncs", jobsynctest.DefaultMaxSyncs, "stop after this many controller syncs")
	fs.Var(&format, "o", "output format: text, yaml or json (yaml and json hold every step and plan)")
	fs.Var(&format, "output", "the same as -o, as kubectl spells it")
	verbose := fs.Bool("v", false, "show every step, also the syncs that changed nothing")
	summary := fs.Bool("summary", false, "print the summary only, without the timeline; no steps or pods are kept\n(for Jobs of many pods; with -o yaml or json, the result without them)")
	controllerName := fs.String("controller-name", jobsync.DefaultControllerName, "the spec.managedBy value the simulated controller acts for (a Job managed\nby another controller is left alone, as kube-controller-manager leaves it)")
	check := fs.Bool("check", false, "check jobsynctest's invariants at every step (API status validation,\nwrite-ahead, parallelism, counts...); a violation makes jobsim exit 1")
	if err := fs.parse(args); err != nil {
		return err
	}
	if len(files) != 1 {
		return usageErrorf("run: give exactly one Job manifest with -f")
	}
	start, err := time.Parse(time.RFC3339, *startFlag)
	if err != nil {
		return usageErrorf("run: --start %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", *startFlag)
	}
	if start.IsZero() {
		return usageErrorf("run: --start %q is the zero time, which the simulator reads as unset; give a real time", *startFlag)
	}
	if outOfYears(start) {
		return usageErrorf("run: --start %q is in the year %d in UTC: Kubernetes writes times in UTC with a four-digit year", *startFlag, start.UTC().Year())
	}
	faults, err := parseFaults(*faultsFlag)
	if err != nil {
		return usageErrorf("run: --faults: %v", err)
	}
	if *maxSyncs <= 0 {
		return usageErrorf("run: --max-syncs must be positive")
	}
	if *controllerName == "" {
		return usageErrorf("run: --controller-name must not be empty")
	}

	objs, err := readFiles(files, stdin)
	if err != nil {
		return err
	}
	job, err := runJob(objs)
	if err != nil {
		return err
	}
	job, afresh := startAfresh(job)
	scriptPath := findScript(files[0], *scriptFlag)
	var script scriptFile
	if scriptPath != "" {
		if script, err = readScript(scriptPath); err != nil {
			return err
		}
	}
	faults.JobChanges = script.JobChanges
	cfg := jobsynctest.Config{Start: start, Seed: *seed, Script: script.Script, Faults: faults, MaxSyncs: *maxSyncs, Check: *check, DiscardSteps: *summary, DiscardPods: *summary,
		Options: jobsync.Options{ControllerName: *controllerName}}
	cluster, err := jobsynctest.NewCluster(job, cfg)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	res, runErr := cluster.Run()
	out := runReport{file: files[0], script: scriptPath, cfg: cfg, faultsText: *faultsFlag, verbose: *verbose, afresh: afresh, res: res, summary: *summary}
	if err := printRun(stdout, format, out); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("run: the simulation stopped: %w", runErr)
	}
	if n := len(res.Violations); n > 0 {
		return fmt.Errorf("run: %s of jobsynctest's invariants (listed in the summary)", plural(n, "violation"))
	}
	if why := unfinished(res, cfg); why != "" {
		return fmt.Errorf("run: the Job did not finish: %s", why)
	}
	return nil
}

// runJob finds the one Job to simulate and checks it as the API server
// would at creation, so that a bad manifest is reported with its file and
// line rather than by the simulator.
func runJob(objs []object) (*batchv1.Job, error) {
	var job *batchv1.Job
	var at source
	for _, o := range objs {
		switch {
		case o.pod != nil:
			return nil, errorAt(o.at, "run simulates a Job from its manifest and reads no pods (to decide on existing pods, use 'jobsim plan')")
		case job != nil:
			return nil, errorAt(o.at, "a second Job (%s); run simulates one Job, first seen at %s", o.job.Name, at)
		}
		job, at = o.job, o.at
	}
	if job == nil {
		return nil, fmt.Errorf("no Job in the input")
	}
	if job.Name == "" {
		return nil, errorAt(at, "Job is missing field metadata.name")
	}
	check := job.DeepCopy()
	if check.UID == "" {
		check.UID = "uid-to-be-assigned" // as the API server does before validating
	}
	if errs := jobspec.Validate(jobspec.Default(check)); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, errorAt(at, "the API server would refuse Job %s: %s", job.Name, strings.Join(msgs, "; "))
	}
	return job, nil
}

// startAfresh clears what a Job read from a cluster carries about its past
// (status, creation time, resourceVersion): run starts every Job at its
// creation, on the simulated clock. The UID stays, as the generated
// selector and labels name it. It reports whether anything was cleared.
func startAfresh(job *batchv1.Job) (*batchv1.Job, bool) {
	if equality.Semantic.DeepEqual(job.Status, batchv1.JobStatus{}) && job.CreationTimestamp.IsZero() && job.ResourceVersion == "" {
		return job, false
	}
	job = job.DeepCopy()
	job.Status = batchv1.JobStatus{}
	job.CreationTimestamp = metav1.Time{}
	job.ResourceVersion = ""
	job.ManagedFields = nil
	return job, true
}

// findScript returns the script to use: the one given, or else the
// NAME.script.yaml that sits next to NAME.yaml, so that each example under
// testdata/jobs runs as documented with nothing but -f.
func findScript(jobFile, flag string) string {
	switch flag {
	case "none":
		return ""
	case "":
		if jobFile == "-" || !strings.HasSuffix(jobFile, ".yaml") {
			return ""
		}
		next := strings.TrimSuffix(jobFile, ".yaml") + ".script.yaml"
		if _, err := os.Stat(next); err == nil {
			return next
		}
		return ""
	}
	return flag
}

// parseFaults reads --faults: key=value pairs, so that a fault run fits on
// one command line.
func parseFaults(s string) (jobsynctest.Faults, error) {
	var f jobsynctest.Faults
	if s == "" {
		return f, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return f, fmt.Errorf("%q: want key=value", kv)
		}
		if k == "maxLag" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return f, fmt.Errorf("maxLag=%s: want a positive duration such as 20s", v)
			}
			f.MaxLag = d
			continue
		}
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || !(p >= 0 && p <= 1) { // NaN is neither
			return f, fmt.Errorf("%s=%s: want a probability between 0 and 1", k, v)
		}
		switch k {
		case "apiError":
			f.APIError = p
		case "crash":
			f.Crash = p
		case "staleView":
			f.StaleView = p
		case "podDeletion":
			f.PodDeletion = p
		default:
			return f, fmt.Errorf("unknown fault %q: want apiError, crash, staleView, podDeletion or maxLag", k)
		}
	}
	return f, nil
}
