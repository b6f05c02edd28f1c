package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite cmd/jobsim/testdata/golden/*.golden from jobsim's output")

// goldenCase is one jobsim command line and the golden file holding what it
// prints and the exit status it returns.
type goldenCase struct {
	name string
	args []string
}

const bad = "cmd/jobsim/testdata/bad/"

// errorCases are the bad inputs and command lines, each with its message
// and exit status pinned.
var errorCases = []goldenCase{
	{"usage-no-command", nil},
	{"usage-unknown-command", []string{"plam", "-f", "x.yaml"}},
	{"usage-unknown-flag", []string{"plan", "-x"}},
	{"usage-plan-no-files", []string{"plan"}},
	{"usage-plan-positional", []string{"plan", "testdata/jobs/pi.yaml"}},
	{"usage-plan-bad-output", []string{"plan", "-f", "testdata/jobs/pi.yaml", "-o", "xml"}},
	{"usage-plan-bad-now", []string{"plan", "-f", "testdata/jobs/pi.yaml", "--now", "yesterday"}},
	{"help-plan", []string{"plan", "-h"}},
	{"help", []string{"help"}},
	{"error-no-such-file", []string{"plan", "-f", "testdata/jobs/nope.yaml"}},
	{"error-yaml-syntax", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", bad + "yaml-syntax.yaml"}},
	{"error-unknown-kind", []string{"plan", "-f", bad + "unknown-kind.yaml"}},
	{"error-missing-kind", []string{"plan", "-f", bad + "missing-kind.yaml"}},
	{"error-unknown-field", []string{"plan", "-f", bad + "unknown-field.yaml"}},
	{"error-wrong-type", []string{"plan", "-f", bad + "wrong-type.yaml"}},
	{"error-wrong-apiversion", []string{"plan", "-f", bad + "wrong-apiversion.yaml"}},
	{"error-empty-file", []string{"plan", "-f", bad + "empty.yaml"}},
	{"error-plan-manifest-without-uid", []string{"plan", "-f", "testdata/jobs/pi.yaml"}},
	{"error-plan-no-job", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/pods.yaml"}},
	{"error-plan-two-jobs", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "testdata/jobs/plan/deadline/job.yaml"}},
	{"error-plan-pod-of-other-job", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", bad + "other-job-pod.yaml"}},
	{"error-plan-orphan-of-other-job", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", bad + "orphan-of-other-job.yaml"}},
	{"error-plan-pod-without-uid", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", bad + "pod-without-uid.yaml"}},
	{"usage-run-two-files", []string{"run", "-f", "testdata/jobs/pi.yaml", "-f", "testdata/jobs/parallel.yaml"}},
	{"usage-run-bad-faults", []string{"run", "-f", "testdata/jobs/pi.yaml", "--faults", "crash=2"}},
	{"usage-run-unknown-fault", []string{"run", "-f", "testdata/jobs/pi.yaml", "--faults", "meteor=0.1"}},
	{"help-run", []string{"run", "--help"}},
	{"error-run-pods", []string{"run", "-f", "testdata/jobs/plan/pi-backoff/pods.yaml"}},
	{"error-run-invalid-job", []string{"run", "-f", bad + "restart-always.yaml"}},
	{"error-run-script-typo", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "typo.script.yaml"}},
	{"error-run-script-duration", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "bad-duration.script.yaml"}},
	{"error-run-no-such-script", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", "testdata/jobs/nope.script.yaml"}},
	{"error-plan-pods-of-wrong-job", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "testdata/jobs/plan/deadline/pods.yaml"}},
	{"error-plan-negative-status", []string{"plan", "-f", bad + "negative-status.yaml"}},
	{"plan-control-bytes-name", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", bad + "control-bytes-name.yaml"}},
	{"error-run-script-negative-parallelism", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "negative-parallelism.script.yaml"}},
	{"error-run-script-negative-at", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "negative-at.script.yaml"}},
	{"error-run-script-huge-duration", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "huge-duration.script.yaml"}},
	{"error-run-script-negative-runtime", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "negative-runtime.script.yaml"}},
	{"error-run-script-negative-index", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "negative-index.script.yaml"}},
	{"error-run-script-bad-at", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "bad-at.script.yaml"}},
	{"error-run-script-negative-default", []string{"run", "-f", "testdata/jobs/pi.yaml", "--script", bad + "negative-default.script.yaml"}},
	{"usage-run-nan-fault", []string{"run", "-f", "testdata/jobs/pi.yaml", "--faults", "apiError=NaN"}},
	{"usage-run-zero-start", []string{"run", "-f", "testdata/jobs/pi.yaml", "--start", "0001-01-01T00:00:00Z"}},
	{"run-work-queue-index-annotation", []string{"run", "-f", "cmd/jobsim/testdata/odd/work-queue-index-annotation.yaml"}},
	{"usage-plan-zero-now", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "--now", "0001-01-01T00:00:00Z"}},
	{"error-separator-content", []string{"plan", "-f", bad + "separator-content.yaml"}},
	{"error-after-end-marker", []string{"plan", "-f", bad + "after-end-marker.yaml"}},
	{"error-plan-year-10000", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", bad + "year-10000.yaml", "-o", "json"}},
	{"usage-plan-now-year-10000", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "--now", "9999-12-31T23:00:00-05:00", "-o", "yaml"}},
	{"usage-run-start-year-10000", []string{"run", "-f", "testdata/jobs/pi.yaml", "--start", "9999-12-31T23:00:00-05:00"}},
	{"run-managed-by", []string{"run", "-f", "cmd/jobsim/testdata/odd/managed-by.yaml"}},
	{"run-managed-by-controller-name", []string{"run", "-f", "cmd/jobsim/testdata/odd/managed-by.yaml", "--controller-name", "example.com/batch", "--summary"}},
	{"run-max-syncs", []string{"run", "-f", "testdata/jobs/pi.yaml", "--max-syncs", "2", "--summary"}},
	{"run-suspended-for-good", []string{"run", "-f", "testdata/jobs/suspended.yaml", "--script", "none", "--summary"}},
	{"usage-run-empty-controller-name", []string{"run", "-f", "testdata/jobs/pi.yaml", "--controller-name", ""}},
	{"plan-managed-by", []string{"plan", "-f", "cmd/jobsim/testdata/odd/plan-managed-by.yaml"}},
	{"plan-managed-by-controller-name", []string{"plan", "-f", "cmd/jobsim/testdata/odd/plan-managed-by.yaml", "--controller-name", "example.com/batch"}},
	{"error-run-json-past-year-9999", []string{"run", "-f", "testdata/jobs/pi.yaml", "--start", "9999-12-31T23:59:50Z", "-o", "json"}},
	{"plan-late-clock-json", []string{"plan", "-f", "cmd/jobsim/testdata/odd/late-clock.yaml", "--now", "9999-12-31T23:00:00Z", "-o", "json"}},
}

// planCases are jobsim plan on every job and pods pair under
// testdata/jobs/plan, plus the other clocks and output formats.
func planCases(t *testing.T) []goldenCase {
	dirs, err := filepath.Glob("testdata/jobs/plan/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no plan inputs under testdata/jobs/plan: %v", err)
	}
	var cases []goldenCase
	for _, d := range dirs {
		cases = append(cases, goldenCase{"plan-" + filepath.Base(d), []string{"plan", "-f", d + "/job.yaml", "-f", d + "/pods.yaml"}})
	}
	return append(cases,
		goldenCase{"plan-deadline-exceeded", []string{"plan", "-f", "testdata/jobs/plan/deadline/job.yaml", "-f", "testdata/jobs/plan/deadline/pods.yaml", "--now", "2026-01-05T14:01:45Z"}},
		goldenCase{"plan-pi-backoff-yaml", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "testdata/jobs/plan/pi-backoff/pods.yaml", "-o", "yaml"}},
		goldenCase{"plan-pi-backoff-json", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "testdata/jobs/plan/pi-backoff/pods.yaml", "-o", "json"}},
		goldenCase{"plan-job-only", []string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml"}},
	)
}

// TestGolden runs jobsim from the repository root, as the README's
// commands do, so that the file names in its output are the ones a user
// sees.
func TestGolden(t *testing.T) {
	goldenDir, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..")
	cases := append(planCases(t), runCases(t)...)
	cases = append(cases, errorCases...)
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases named %s", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			got := runGolden(c.args)
			path := filepath.Join(goldenDir, c.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/jobsim -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("jobsim %s: output differs from %s (go test ./cmd/jobsim -update rewrites it; read the diff)\n--- got\n%s--- want\n%s",
					strings.Join(c.args, " "), path, got, want)
			}
		})
	}
	if *update {
		stale, _ := filepath.Glob(filepath.Join(goldenDir, "*.golden"))
		for _, f := range stale {
			if !seen[strings.TrimSuffix(filepath.Base(f), ".golden")] {
				t.Errorf("golden file %s has no case; delete it", f)
			}
		}
	}
}

// runGolden runs jobsim and renders everything it did: the command, the
// exit status, standard output and standard error.
func runGolden(args []string) string {
	var stdout, stderr bytes.Buffer
	code := jobsim(args, strings.NewReader(""), &stdout, &stderr)
	return fmt.Sprintf("$ jobsim %s\nexit status %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
}

// TestDeterministic runs each plan case twice: the output must not depend
// on the wall clock or on map order.
func TestDeterministic(t *testing.T) {
	t.Chdir("../..")
	for _, c := range append(planCases(t), runCases(t)...) {
		if a, b := runGolden(c.args), runGolden(c.args); a != b {
			t.Errorf("jobsim %s printed two different outputs", strings.Join(c.args, " "))
		}
	}
}

// TestStdin reads the pods from standard input, as in
// kubectl get pods ... -o yaml | jobsim plan -f job.yaml -f -.
func TestStdin(t *testing.T) {
	t.Chdir("../..")
	pods, err := os.ReadFile("testdata/jobs/plan/pi-backoff/pods.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var fromFile, fromStdin, stderr bytes.Buffer
	if code := jobsim([]string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "testdata/jobs/plan/pi-backoff/pods.yaml"}, nil, &fromFile, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := jobsim([]string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "-"}, bytes.NewReader(pods), &fromStdin, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if fromFile.String() != fromStdin.String() {
		t.Errorf("plan differs when the pods come from standard input:\n%s\n%s", fromFile.String(), fromStdin.String())
	}
}

// runCases are jobsim run on every example under testdata/jobs (each with
// the script next to it, if any), and the other flags of run.
func runCases(t *testing.T) []goldenCase {
	jobs, err := filepath.Glob("testdata/jobs/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, j := range jobs {
		if strings.HasSuffix(j, ".script.yaml") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(j), ".yaml")
		cases = append(cases, goldenCase{"run-" + name, []string{"run", "-f", j}})
	}
	if len(cases) < 8 {
		t.Fatalf("only %d Jobs under testdata/jobs", len(cases))
	}
	return append(cases,
		goldenCase{"run-from-kubectl-output", []string{"run", "-f", "testdata/jobs/plan/parallel-success/job.yaml", "--script", "testdata/jobs/parallel.script.yaml"}},
		goldenCase{"run-summary", []string{"run", "-f", "testdata/jobs/parallel.yaml", "--summary"}})
}

// TestRunSummary: --summary prints the summary of the same run, and
// nothing of its timeline.
func TestRunSummary(t *testing.T) {
	t.Chdir("../..")
	full := runGolden([]string{"run", "-f", "testdata/jobs/job-backoff-limit-per-index-example.yaml"})
	short := runGolden([]string{"run", "-f", "testdata/jobs/job-backoff-limit-per-index-example.yaml", "--summary"})
	summaryOf := func(out string) string {
		_, s, ok := strings.Cut(out, "Summary:\n")
		if !ok {
			t.Fatalf("no summary in:\n%s", out)
		}
		// The full run says how many quiet syncs its timeline hides.
		return regexp.MustCompile(` \(\d+ syncs? that changed nothing.*\)`).ReplaceAllString(s, "")
	}
	if diff := cmp.Diff(summaryOf(full), summaryOf(short)); diff != "" {
		t.Errorf("--summary differs from the full run's summary (-full +summary):\n%s", diff)
	}
	if strings.Contains(short, "pod-running") || strings.Contains(short, "TIME") {
		t.Errorf("--summary printed a timeline:\n%s", short)
	}
}

// A run with faults ends as the same run without them would (the faults
// are jobsynctest's to inject, so the test reads the summary, not every
// line), and the summary counts the faults that struck.
func TestRunFaults(t *testing.T) {
	t.Chdir("../..")
	out := runGolden([]string{"run", "-f", "testdata/jobs/parallel.yaml", "--faults", "apiError=0.2,crash=0.1,staleView=0.2,maxLag=5s"})
	for _, want := range []string{"exit status 0", "outcome: Complete (CompletionsReached)", "succeeded 4, failed 1", "faults that struck: "} {
		if !strings.Contains(out, want) {
			t.Errorf("run with faults: no %q in\n%s", want, out)
		}
	}
}

// The json form of run is jobsynctest's Result, whose every detail is that
// package's to change: this checks its shape, not its text.
func TestRunJSON(t *testing.T) {
	t.Chdir("../..")
	var stdout, stderr bytes.Buffer
	if code := jobsim([]string{"run", "-f", "testdata/jobs/pi-with-timeout.yaml", "-o", "json"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var doc struct {
		Script string `json:"script"`
		Result struct {
			Outcome string            `json:"outcome"`
			Steps   []json.RawMessage `json:"steps"`
		} `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); strings.Contains(out, "0001-01-01") || regexp.MustCompile(`"requeueAfter": [0-9]`).MatchString(out) {
		t.Errorf("run -o json writes unset times or durations in nanoseconds:\n%s", out)
	}
	if doc.Result.Outcome != "Failed" || len(doc.Result.Steps) == 0 || doc.Script != "testdata/jobs/pi-with-timeout.script.yaml" {
		t.Errorf("run -o json: outcome %q, %d steps, script %q; want Failed (its deadline), some steps, the script next to pi-with-timeout.yaml", doc.Result.Outcome, len(doc.Result.Steps), doc.Script)
	}
}

// Without a script, pods follow the seeded random model: the seed changes
// the run, and the same seed repeats it.
func TestRunSeed(t *testing.T) {
	t.Chdir("../..")
	run := func(seed string) string {
		return runGolden([]string{"run", "-f", "testdata/jobs/parallel.yaml", "--script", "none", "--seed", seed})
	}
	if !strings.Contains(run("7"), "exit status 0") {
		t.Fatalf("run with a random model failed:\n%s", run("7"))
	}
	if first, again := run("7"), run("7"); first != again {
		t.Errorf("the same seed gave two runs:\n%s\n---\n%s", first, again)
	}
	if run("7") == run("8") {
		t.Error("seeds 7 and 8 gave the same run")
	}
}

// 'jobsim version' names the Kubernetes release it follows; its first line
// is jobsim's own version, whatever the build.
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := jobsim([]string{"version"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "jobsim ") || !strings.Contains(out, "Kubernetes v1.36.3") {
		t.Errorf("version output:\n%s", out)
	}
}

// The kubectl spellings --filename and --output are the same flags as -f
// and -o.
func TestLongFlags(t *testing.T) {
	t.Chdir("../..")
	short := runGolden([]string{"plan", "-f", "testdata/jobs/plan/pi-backoff/job.yaml", "-f", "testdata/jobs/plan/pi-backoff/pods.yaml", "-o", "yaml"})
	long := runGolden([]string{"plan", "--filename", "testdata/jobs/plan/pi-backoff/job.yaml", "--filename=testdata/jobs/plan/pi-backoff/pods.yaml", "--output", "yaml"})
	_, shortOut, _ := strings.Cut(short, "\n")
	_, longOut, _ := strings.Cut(long, "\n")
	if shortOut != longOut {
		t.Errorf("long flags differ from short ones:\n%s\n---\n%s", long, short)
	}
}
