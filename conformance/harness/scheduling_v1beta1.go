//go:build upstream_1_37

package harness

import (
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/upstream"
)

// SchedulingOutcome is what a sync created of WorkloadWithJob's scheduling
// objects, in v1.37's API (scheduling.k8s.io/v1beta1). The library does not
// model v1.37's WorkloadWithJob (DEVIATIONS.md): its side is always empty,
// so a sync in which upstream creates one is a mismatch, which is what the
// deviation's test shows.
type SchedulingOutcome struct {
	WorkloadCreation *schedulingv1beta1.Workload `json:"workloadCreation,omitempty"`
	PodGroupCreation *schedulingv1beta1.PodGroup `json:"podGroupCreation,omitempty"`
}

// fromUpstream keeps upstream's creations; more than one of a kind is an
// error of the sync, returned as text to append to Outcome.Error.
func (o *SchedulingOutcome) fromUpstream(c upstream.SchedulingCreates) (errs string) {
	o.WorkloadCreation, errs = onlyCreated(c.WorkloadCreates, "Workloads")
	var pgErrs string
	o.PodGroupCreation, pgErrs = onlyCreated(c.PodGroupCreates, "PodGroups")
	return errs + pgErrs
}

// schedulingFromPlan is empty: no plan creates v1.37 scheduling objects.
func schedulingFromPlan(gen.Plan) SchedulingOutcome { return SchedulingOutcome{} }

// schedulingInput is empty: a snapshot holds no v1.37 scheduling objects.
func schedulingInput(gen.Case) upstream.SchedulingObjects {
	return upstream.SchedulingObjects{}
}
