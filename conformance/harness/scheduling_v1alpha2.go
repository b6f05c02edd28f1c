//go:build !upstream_1_37

package harness

import (
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/upstream"
)

// SchedulingOutcome is what a sync created of WorkloadWithJob's scheduling
// objects, in v1.36's API (scheduling.k8s.io/v1alpha2), which both sides
// speak. Compared without TypeMeta.
type SchedulingOutcome struct {
	WorkloadCreation *schedulingv1alpha2.Workload `json:"workloadCreation,omitempty"`
	PodGroupCreation *schedulingv1alpha2.PodGroup `json:"podGroupCreation,omitempty"`
}

// fromUpstream keeps upstream's creations; more than one of a kind is an
// error of the sync, returned as text to append to Outcome.Error.
func (o *SchedulingOutcome) fromUpstream(c upstream.SchedulingCreates) (errs string) {
	o.WorkloadCreation, errs = onlyCreated(c.WorkloadCreates, "Workloads")
	var pgErrs string
	o.PodGroupCreation, pgErrs = onlyCreated(c.PodGroupCreates, "PodGroups")
	return errs + pgErrs
}

// schedulingFromPlan takes the plan's creations, without TypeMeta (upstream
// sends typed objects without it).
func schedulingFromPlan(p gen.Plan) SchedulingOutcome {
	var o SchedulingOutcome
	if wl := p.WorkloadCreation; wl != nil {
		o.WorkloadCreation = wl.DeepCopy()
		o.WorkloadCreation.TypeMeta = metav1.TypeMeta{}
	}
	if pg := p.PodGroupCreation; pg != nil {
		o.PodGroupCreation = pg.DeepCopy()
		o.PodGroupCreation.TypeMeta = metav1.TypeMeta{}
	}
	return o
}

// schedulingInput hands the case's Workloads and PodGroups to upstream.
func schedulingInput(c gen.Case) upstream.SchedulingObjects {
	return upstream.SchedulingObjects{Workloads: c.Workloads, PodGroups: c.PodGroups}
}
