//go:build !upstream_1_37

package harness

import "github.com/jobsync/jobsync/conformance/gen"

// gateWorkload turns v1.36's WorkloadWithJob on or off for c.
func gateWorkload(c *gen.Case, on bool) { c.WorkloadWithJob = on }
