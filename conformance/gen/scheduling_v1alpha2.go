//go:build !upstream_1_37

package gen

import (
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"

	"github.com/jobsync/jobsync/alpha/workload136"
	"github.com/jobsync/jobsync/jobsync"
)

// v1.36's WorkloadWithJob (scheduling.k8s.io/v1alpha2), which the library
// models in its alpha/workload136 module: the workload-with-job family
// (workload.go) runs. Built unless the upstream_1_37 tag selects v1.37
// (scheduling_v1beta1.go).

// Runs after gen.go's init, which makes the map: a package's files are
// initialised in the order of their names.
func init() {
	Families = append(Families, "workload-with-job")
	families["workload-with-job"] = familyWorkloadWithJob
}

// Scheduling is a case's WorkloadWithJob input on v1.36.
type Scheduling struct {
	// WorkloadWithJob turns on 1.36's alpha gate (with GenericWorkload):
	// the case is decided by alpha/workload136, with Workloads and
	// PodGroups, the scheduling objects of the snapshot.
	WorkloadWithJob bool
	Workloads       []*schedulingv1alpha2.Workload
	PodGroups       []*schedulingv1alpha2.PodGroup
}

// Plan is what the library decides for a case: jobsync's plan and, with
// the gate, the scheduling objects alpha/workload136 adds.
type Plan = workload136.Plan

// Reconcile decides the case as the library does: jobsync.Reconcile, or
// alpha/workload136's with the WorkloadWithJob gate.
func (c Case) Reconcile() (Plan, error) {
	if c.WorkloadWithJob {
		return workload136.Reconcile(workload136.Snapshot{Snapshot: c.Snapshot, Workloads: c.Workloads, PodGroups: c.PodGroups}, c.Options)
	}
	p, err := jobsync.Reconcile(c.Snapshot, c.Options)
	return Plan{Plan: p}, err
}

// schedulingObjects are the generator's WorkloadWithJob state.
type schedulingObjects struct {
	workloadWithJob bool
	workloads       []*schedulingv1alpha2.Workload
	podGroups       []*schedulingv1alpha2.PodGroup
}

func (g *G) fillScheduling(c *Case) {
	c.Scheduling = Scheduling{WorkloadWithJob: g.workloadWithJob, Workloads: g.workloads, PodGroups: g.podGroups}
}

// workloadGates turns on, for upstream, the gates the case's
// WorkloadWithJob stands for.
func (c Case) workloadGates(set func(string, bool)) {
	if c.WorkloadWithJob {
		set("GenericWorkload", true)
		set("WorkloadWithJob", true)
	}
}
