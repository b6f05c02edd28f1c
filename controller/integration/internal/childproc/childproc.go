// Package childproc runs part of a test in a process of its own, the
// test binary started again, so that what that part costs (CPU seconds,
// peak resident memory, API calls) is read apart from the API server and
// the rest of the test, which share the parent process.
//
// The parent calls Start with a spec; the child's TestMain reads it with
// Spec from the environment variable the parent named, runs its part and
// exits on SIGTERM.
package childproc

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Start runs the test binary again, running no test, with the environment
// variable env set to spec as JSON. The returned stop sends the child
// SIGTERM and waits for it to exit; it may be called more than once, and
// the test's cleanup calls it too.
func Start(t testing.TB, env string, spec any) (stop func()) {
	t.Helper()
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("encoding the child's spec: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+string(data))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the child process: %v", err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// Spec reports whether this process is a child that Start started with
// the environment variable env, and decodes the spec it was given into v.
// A spec that does not decode ends the process with status 2: the parent
// wrote it, so it is a bug of the test, not a result.
func Spec(env string, v any) bool {
	raw := os.Getenv(env)
	if raw == "" {
		return false
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		fmt.Fprintf(os.Stderr, "child process: the spec in %s: %v\n", env, err)
		os.Exit(2)
	}
	return true
}

// PeakRSS is this process's high-water resident set (VmHWM) in bytes, 0
// where /proc does not tell it.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
