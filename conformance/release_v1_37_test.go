//go:build upstream_1_37

package conformance_test

import (
	"bytes"
	"strings"

	"github.com/jobsync/jobsync/conformance/gen"
)

// What differs between the releases this module runs against, for v1.37
// (release.sh v1.37.2 builds it with the upstream_1_37 tag): its
// WorkloadWithJob, which the library does not model (DEVIATIONS.md D4).
// With the gate off, the default, the two releases decide alike.

// notModelledScenario reports the scenario files that turn WorkloadWithJob
// on: they pin v1.36's Workload and PodGroup, which v1.37 no longer has.
// Told from the file's text, so that the files need not parse here.
func notModelledScenario(raw []byte) bool {
	return bytes.Contains(raw, []byte("workloadWithJob: true"))
}

// familiesNotRun are README's families this release does not run: the
// workload-with-job family is v1.36's WorkloadWithJob.
var familiesNotRun = []string{"workload-with-job"}

// notModelledRow reports UPSTREAM.md's WorkloadWithJob row: it names v1.36's
// functions, several of which v1.37's rewrite removed.
func notModelledRow(line string) bool {
	return strings.Contains(line, "`alpha/workload136`")
}

// releaseDeviationCases is D4's snapshot. The case turns the gate on for
// upstream only (UpstreamGates): the library's options stand for no v1.37
// gate.

func releaseDeviationCases() []releaseDeviationCase {
	c := gen.Case{Family: "deviation", Snapshot: gangCandidate()}
	c.UpstreamGates = map[string]bool{"GenericWorkload": true, "WorkloadWithJob": true}
	return []releaseDeviationCase{{id: workloadWithJobID, c: c}}
}

var otherReleaseDeviations []string
