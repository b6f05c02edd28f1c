//go:build upstream_1_37

package conformance_test

import (
	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
)

// scenarioScheduling does nothing on v1.37: scenario files that turn
// WorkloadWithJob on are listed as not modelled before they get here.
func scenarioScheduling(*gen.Case, scenario.Scenario) string { return "" }
