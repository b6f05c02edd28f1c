package conformance_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobsync"
)

// TestScenarioFilesAgreeWithUpstream runs every hand-checked scenario file of
// the library (../testdata/scenarios, and alpha/workload136's for its
// gate) through upstream's Job controller too.
// The library's own test pins each plan; this one shows that the plan it
// pins is upstream's. Scenarios that change an option upstream hard-codes
// (the per-sync caps of 500, the controller name, the tracking finalizer)
// have no upstream counterpart and are listed, not compared.
func TestScenarioFilesAgreeWithUpstream(t *testing.T) {
	files, err := filepath.Glob("../testdata/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	alpha, err := filepath.Glob("../alpha/workload136/testdata/scenarios/*.yaml")
	if err != nil || len(alpha) == 0 {
		t.Fatalf("no scenario files of alpha/workload136: %v", err)
	}
	files = append(files, alpha...)
	var compared, incomparable, notModelled []string
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if notModelledScenario(raw) { // release_v1_*_test.go
			notModelled = append(notModelled, name)
			continue
		}
		sc := readScenario(t, file)
		if sc.Options != (scenario.Options{}) {
			incomparable = append(incomparable, name)
			continue
		}
		compared = append(compared, name)
		t.Run(name, func(t *testing.T) {
			v := checkWithUpstream(sc)
			if !v.Agree() {
				report, _ := harness.Report(v, false, true)
				t.Errorf("upstream decides otherwise (%s):\n%s", v.Class(), report)
			}
			switch {
			case len(v.Invalid) > 0 && !v.SharedInvalid():
				t.Errorf("the plan writes a status the API server rejects: %v", v.Invalid)
			case len(v.Invalid) > 0:
				t.Logf("the API server rejects this status, and upstream's alike: %v", v.Invalid)
			}
		})
	}
	t.Logf("%d scenario files compared with upstream; %d change options upstream hard-codes: %v", len(compared), len(incomparable), incomparable)
	if len(notModelled) > 0 {
		t.Logf("%d use a feature of this release the library does not model (DEVIATIONS.md): %v", len(notModelled), notModelled)
	}
	if len(compared) < (len(files)-len(notModelled))*9/10 {
		t.Errorf("only %d of %d scenario files could be compared", len(compared), len(files))
	}
}

// readScenario parses a file in the library's scenario format (its
// expected plan, if any, is not needed here).
func readScenario(t *testing.T, file string) scenario.Scenario {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc, _, _, err := scenario.Parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return sc
}

// checkWithUpstream decides the scenario's snapshot on both sides.
func checkWithUpstream(sc scenario.Scenario) harness.Verdict {
	c := gen.Case{Family: "scenario", Snapshot: sc.Snapshot(), Options: sc.JobsyncOptions()}
	if setup := scenarioScheduling(&c, sc); setup != "" { // release_v1_*_test.go
		return harness.Verdict{Case: c, Setup: setup}
	}
	return harness.Check(c)
}

func jobsyncSnapshot(job *batchv1.Job, pod *corev1.Pod, now time.Time) jobsync.Snapshot {
	return jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{pod}, Now: now}
}

func ptr[T any](v T) *T { return &v }
