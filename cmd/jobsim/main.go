// Command jobsim shows what Kubernetes' Job controller (v1.36) does to a
// Job, using the jobsync library.
//
//	jobsim plan -f job.yaml -f pods.yaml [--now RFC3339|now] [-o text|yaml|json]
//	jobsim run  -f job.yaml [--script FILE] [--seed N] [--faults LIST] [--check] [-v] [-o text|yaml|json]
//
// plan reads a Job and its pods as kubectl prints them and says what the
// controller would do in its next sync, and why. run simulates the Job in a
// fake cluster (package jobsync/jobsynctest) until it finishes and prints the
// timeline.
//
// Exit status: 0 on success, 1 when the input or the simulation fails, 2 for
// a usage error (unknown command or flag, missing -f, a malformed flag value).
//
// The manual, with examples of both commands' output, is README.md in this
// directory.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(jobsim(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// jobsim is main without the process: tests call it with their own
// arguments and writers and compare what it prints and returns.
func jobsim(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "plan":
		err = planCommand(args[1:], stdin, stdout, stderr)
	case "run":
		err = runCommand(args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, mainUsage)
		return 0
	case "version", "--version":
		fmt.Fprint(stdout, versionText())
		return 0
	default:
		err = usageErrorf("unknown command %q", args[0])
	}
	return report(err, stderr)
}

// Exit statuses.
const (
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a mistake in the command line rather than in the input.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelp says -h was asked for and the usage already printed.
var errHelp = errors.New("help requested")

func report(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "jobsim: %s\nRun 'jobsim help' for usage.\n", printable(err.Error()))
		return exitUsage
	default:
		fmt.Fprintf(stderr, "jobsim: %s\n", printable(err.Error()))
		return exitFailure
	}
}
