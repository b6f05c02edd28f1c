//go:build !upstream_1_37

package conformance_test

import (
	"testing"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
)

// What differs between the releases this module runs against, for v1.36
// (the release go.mod pins; release.sh builds the others with their tag).
// v1.36's WorkloadWithJob is modelled (alpha/workload136): D4 is
// v1.37's, every scenario file is compared, every row of UPSTREAM.md read.

// notModelledScenario reports a scenario file that this release decides in a
// way the library does not model.
func notModelledScenario([]byte) bool { return false }

// familiesNotRun are README's families this release does not run.
var familiesNotRun []string

// notModelledRow reports a row of UPSTREAM.md naming upstream code of
// another release.
func notModelledRow(string) bool { return false }

func releaseDeviationCases() []releaseDeviationCase { return nil }

var otherReleaseDeviations = []string{workloadWithJobID}

// TestWorkloadWithJobModelledOnThisRelease decides D4's snapshot with the
// library's WorkloadWithJob option on: on v1.36 both sides create the same
// Workload, PodGroup and pods.
func TestWorkloadWithJobModelledOnThisRelease(t *testing.T) {
	c := gen.Case{Family: "deviation", Snapshot: gangCandidate()}
	c.WorkloadWithJob = true
	v := harness.Check(c)
	if !v.Agree() {
		report, _ := harness.Report(v, false, true)
		t.Fatalf("the library's WorkloadWithJob differs from v1.36's:\n%s", report)
	}
	if v.Upstream.WorkloadCreation == nil || v.Upstream.PodGroupCreation == nil || len(v.Upstream.Creations) != 2 {
		t.Errorf("upstream created Workload %v, PodGroup %v and %d pods; want both objects and 2 pods",
			v.Upstream.WorkloadCreation != nil, v.Upstream.PodGroupCreation != nil, len(v.Upstream.Creations))
	}
}
