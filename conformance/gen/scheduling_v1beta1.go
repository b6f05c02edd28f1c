//go:build upstream_1_37

package gen

import "github.com/jobsync/jobsync/jobsync"

// v1.37 rewrote WorkloadWithJob (scheduling.k8s.io/v1beta1, spec.scheduling
// on the Job), which the library does not model yet (DEVIATIONS.md): the
// workload-with-job family is not run against v1.37, and no case turns the
// gate on.

type schedulingObjects struct{}

func (g *G) fillScheduling(*jobsync.Snapshot) {}

func workloadGates(jobsync.Options, func(string, bool)) {}
