//go:build upstream_1_37

package harness

import "github.com/jobsync/jobsync/conformance/gen"

// gateWorkload does nothing on v1.37, whose WorkloadWithJob the library
// does not model.
func gateWorkload(*gen.Case, bool) {}
