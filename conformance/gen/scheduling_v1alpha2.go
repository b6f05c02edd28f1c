//go:build !upstream_1_37

package gen

import (
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"

	"github.com/jobsync/jobsync/jobsync"
)

// v1.36's WorkloadWithJob (scheduling.k8s.io/v1alpha2), which the library
// models: the workload-with-job family (workload.go) runs. Built unless the
// upstream_1_37 tag selects v1.37 (scheduling_v1beta1.go).

// Runs after gen.go's init, which makes the map: a package's files are
// initialised in the order of their names.
func init() {
	Families = append(Families, "workload-with-job")
	families["workload-with-job"] = familyWorkloadWithJob
}

// schedulingObjects are the Workloads and PodGroups a family puts in the
// snapshot.
type schedulingObjects struct {
	workloads []*schedulingv1alpha2.Workload
	podGroups []*schedulingv1alpha2.PodGroup
}

func (g *G) fillScheduling(s *jobsync.Snapshot) {
	s.Workloads, s.PodGroups = g.workloads, g.podGroups
}

// workloadGates turns on, for upstream, the gates the library's
// WorkloadWithJob option stands for.
func workloadGates(o jobsync.Options, set func(string, bool)) {
	if o.WorkloadWithJob {
		set("GenericWorkload", true)
		set("WorkloadWithJob", true)
	}
}
