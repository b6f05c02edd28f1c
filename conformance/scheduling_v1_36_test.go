//go:build !upstream_1_37

package conformance_test

import (
	"encoding/json"

	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
)

// scenarioScheduling gives c the scenario's WorkloadWithJob gate and its
// Workloads and PodGroups (v1.36's scheduling.k8s.io/v1alpha2), defaulting
// their namespace to the Job's. It returns what went wrong reading them.
func scenarioScheduling(c *gen.Case, sc scenario.Scenario) string {
	c.WorkloadWithJob = sc.Gates.WorkloadWithJob
	ns := c.Snapshot.Job.Namespace
	for _, raw := range sc.Workloads {
		wl := &schedulingv1alpha2.Workload{}
		if err := json.Unmarshal(raw, wl); err != nil {
			return "reading a Workload: " + err.Error()
		}
		if wl.Namespace == "" {
			wl.Namespace = ns
		}
		c.Workloads = append(c.Workloads, wl)
	}
	for _, raw := range sc.PodGroups {
		pg := &schedulingv1alpha2.PodGroup{}
		if err := json.Unmarshal(raw, pg); err != nil {
			return "reading a PodGroup: " + err.Error()
		}
		if pg.Namespace == "" {
			pg.Namespace = ns
		}
		c.PodGroups = append(c.PodGroups, pg)
	}
	return ""
}
