package jobsync_test

import (
	"flag"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobsync"
)

var update = flag.Bool("update", false, "rewrite the expected plans of the scenario files")

// The scenario format lives in internal/testsupport/scenario, shared with the
// conformance module; these aliases keep the tests short.
type podShorthand = scenario.Pod

func scenarioJob(in batchv1.Job) *batchv1.Job { return scenario.Job(in) }

func podFor(job *batchv1.Job, ps podShorthand, finalizer string) *corev1.Pod {
	return scenario.PodFor(job, ps, finalizer)
}

const wantMarker = scenario.WantMarker

// TestScenarios decides every scenario file and compares each plan with
// the one the file pins (upstream's decisions, checked by the conformance
// module).
func TestScenarios(t *testing.T) {
	scenario.RunFiles(t, "../testdata/scenarios/*.yaml", *update, func(t *testing.T, sc scenario.Scenario, order func([]*corev1.Pod) []*corev1.Pod) (any, scenario.Digest) {
		snap := sc.Snapshot()
		snap.Pods = order(snap.Pods)
		plan, err := jobsync.Reconcile(snap, sc.JobsyncOptions())
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		return plan, scenario.DigestOf(plan)
	})
}

func ptr[T any](v T) *T { return &v }
