package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

const mainUsage = `jobsim shows what Kubernetes' Job controller (v1.36) does to a Job.

Usage:
  jobsim plan -f job.yaml -f pods.yaml [--now TIME] [-o text|yaml|json]
      Read a Job and its pods as kubectl prints them and say what the
      controller does in its next sync, and why.
  jobsim run -f job.yaml [--script FILE] [--seed N] [--faults LIST] [--check] [--summary] [-v] [-o text|yaml|json]
      Simulate the Job in a fake cluster until it finishes; print the
      timeline and a summary.

  jobsim version
      Print jobsim's version and the Kubernetes version it follows.

Run 'jobsim plan -h' or 'jobsim run -h' for the flags of each command;
-f and -o are also spelt --filename and --output, as in kubectl.
Exit status: 0 done, 1 bad input, a failed simulation or a Job that did
not finish, 2 usage error.
`

const planUsage = `Usage: jobsim plan -f job.yaml -f pods.yaml [--now TIME] [-o text|yaml|json]

Reads what these commands print (single objects, kind: List, or several
YAML documents; "-" is standard input):
  kubectl get job NAME -o yaml
  kubectl get pods -l batch.kubernetes.io/job-name=NAME -o yaml
and prints what the Job controller does to the Job in its next sync: pods to
create and delete, finalizers to remove, status to write, when to look
again, events, and the reason for each.

The controller is taken as freshly started: it remembers no pending pod
creations or deletions and no earlier pod-failure backoff, so backoff comes
from failed pods that still carry the tracking finalizer.

Flags:
`

const runUsage = `Usage: jobsim run -f job.yaml [--script FILE] [--seed N] [--faults LIST] [--check] [--summary] [-v] [-o text|yaml|json]

Simulates the Job (a manifest, as you would kubectl apply it) in a fake
cluster until it finishes, and prints a timeline (time, action, counters,
conditions) and a summary. A script (YAML) says what each pod or index does
(exit code, run time, disruption) and when users change the Job:

  default: {startDelay: 2s, runTime: 10s}   # pods no rule matches
  pods:
  - index: 2                                # or pod: N (the N-th pod created)
    attempt: 0                              # optional: its first pod only
    behavior: {runTime: 5s, exitCode: 1}    # also container, disruption,
                                            # restarts, forever, shutdown
  jobChanges:
  - at: 60s
    suspend: false                          # or parallelism, scale, delete

Without --script, FILE.script.yaml next to FILE.yaml is used if it exists;
pods no script rule covers behave at random, from --seed. The simulated
clock starts at --start; the same flags give the same output every time.

A run ends when the Job finishes. One that cannot go on (a Job managed by
another controller, unless --controller-name names it; a suspended Job no
jobChange resumes) or that runs out of --max-syncs exits 1 and says why.

Flags:
`

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(v string) error {
	if v == "" {
		return errors.New("empty file name")
	}
	*f = append(*f, v)
	return nil
}

// outputFormat is the -o flag, checked when parsed so that a typo is a
// usage error before any work is done.
type outputFormat string

func (o *outputFormat) String() string { return string(*o) }

func (o *outputFormat) Set(v string) error {
	switch v {
	case "text", "yaml", "json":
		*o = outputFormat(v)
		return nil
	}
	return fmt.Errorf("want text, yaml or json")
}

// flagSet is a command's flags and its help text. Errors come back to us
// instead of being printed, so that every usage error looks the same and
// exits 2; the help goes to stdout, and only when asked for with -h.
type flagSet struct {
	*flag.FlagSet
	usage  string
	stdout io.Writer
}

func newFlagSet(name, usage string, stdout io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls it on every error too
	return &flagSet{FlagSet: fs, usage: usage, stdout: stdout}
}

// parse parses args and rejects positional arguments, which are almost
// always a forgotten -f.
func (fs *flagSet) parse(args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(fs.stdout, fs.usage)
			fs.SetOutput(fs.stdout)
			fs.PrintDefaults()
			return errHelp
		}
		return usageErrorf("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return usageErrorf("%s: unexpected argument %q (files are given with -f)", fs.Name(), fs.Arg(0))
	}
	return nil
}
