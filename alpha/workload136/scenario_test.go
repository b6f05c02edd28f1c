package workload136_test

import (
	"encoding/json"
	"flag"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"

	"github.com/jobsync/jobsync/alpha/workload136"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
)

var update = flag.Bool("update", false, "rewrite the expected plans of the scenario files")

// snapshotOf builds the scenario's snapshot with its scheduling objects,
// a namespace left out being the Job's.
func snapshotOf(t *testing.T, sc scenario.Scenario) workload136.Snapshot {
	t.Helper()
	s := workload136.Snapshot{Snapshot: sc.Snapshot()}
	for _, raw := range sc.Workloads {
		wl := &schedulingv1alpha2.Workload{}
		if err := json.Unmarshal(raw, wl); err != nil {
			t.Fatalf("reading a Workload: %v", err)
		}
		if wl.Namespace == "" {
			wl.Namespace = s.Job.Namespace
		}
		s.Workloads = append(s.Workloads, wl)
	}
	for _, raw := range sc.PodGroups {
		pg := &schedulingv1alpha2.PodGroup{}
		if err := json.Unmarshal(raw, pg); err != nil {
			t.Fatalf("reading a PodGroup: %v", err)
		}
		if pg.Namespace == "" {
			pg.Namespace = s.Job.Namespace
		}
		s.PodGroups = append(s.PodGroups, pg)
	}
	return s
}

// digestOf is the scenario digest of a plan, the scheduling objects in it.
func digestOf(p workload136.Plan) scenario.Digest {
	d := scenario.DigestOf(p.Plan)
	if p.WorkloadCreation != nil {
		d.Workload = p.WorkloadCreation
	}
	if p.PodGroupCreation != nil {
		d.PodGroup = p.PodGroupCreation
	}
	return d
}

// TestScenarios decides the scenario files of the gate (upstream's
// decisions, checked by the conformance module's scenario test) and
// compares each plan with the one the file pins.
func TestScenarios(t *testing.T) {
	scenario.RunFiles(t, "testdata/scenarios/*.yaml", *update, func(t *testing.T, sc scenario.Scenario, order func([]*corev1.Pod) []*corev1.Pod) (any, scenario.Digest) {
		if !sc.Gates.WorkloadWithJob {
			t.Fatal("the scenario does not turn the WorkloadWithJob gate on")
		}
		snap := snapshotOf(t, sc)
		snap.Pods = order(snap.Pods)
		plan, err := workload136.Reconcile(snap, sc.JobsyncOptions())
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		return plan, digestOf(plan)
	})
}
