//go:build upstream_1_37

package gen

import "github.com/jobsync/jobsync/jobsync"

// v1.37 rewrote WorkloadWithJob (scheduling.k8s.io/v1beta1, spec.scheduling
// on the Job), which the library does not model yet (DEVIATIONS.md): the
// workload-with-job family is not run against v1.37, and no case turns the
// gate on.

// Scheduling is empty on v1.37.
type Scheduling struct{}

// Plan is what the library decides for a case: jobsync's plan.
type Plan struct{ jobsync.Plan }

// Reconcile decides the case as the library does.
func (c Case) Reconcile() (Plan, error) {
	p, err := jobsync.Reconcile(c.Snapshot, c.Options)
	return Plan{Plan: p}, err
}

type schedulingObjects struct{}

func (g *G) fillScheduling(*Case) {}

func (c Case) workloadGates(func(string, bool)) {}
