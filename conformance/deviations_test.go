package conformance_test

import (
	"math"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobsync"
)

// TestDeviationsAreReal builds, for each entry of DEVIATIONS.md, a snapshot
// on which the library differs from upstream on purpose, and checks that
// the difference is the one the entry names. An entry whose difference no
// longer shows, or shows under another class, fails here.
func TestDeviationsAreReal(t *testing.T) {
	devs, err := harness.LoadDeviations("DEVIATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := harness.Allowed(devs)
	classOf := map[string]string{}
	for _, d := range devs {
		classOf[d.ID] = d.Class
	}
	now := metav1.NewTime(time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC))
	for _, tc := range []struct {
		id  string
		job batchv1.Job
		pod scenario.Pod
	}{
		{
			id: "D1: counters that overflow int32 are refused, not wrapped",
			job: batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "full"},
				Spec:       batchv1.JobSpec{Parallelism: ptr(int32(1))},
				Status: batchv1.JobStatus{
					StartTime: &metav1.Time{Time: now.Add(-time.Minute)}, Active: 1, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
					Failed: math.MaxInt32, UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
				},
			},
			pod: scenario.Pod{Name: "full-a", Phase: corev1.PodFailed, Finished: &now},
		},
		{
			id: "D2: a NonIndexed Job whose pod template has no labels gets a plan, not an error",
			job: batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "bare"},
				Spec: batchv1.JobSpec{
					Parallelism: ptr(int32(2)), ManualSelector: ptr(true), Selector: &metav1.LabelSelector{},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}},
				},
				Status: batchv1.JobStatus{
					StartTime: &metav1.Time{Time: now.Add(-time.Minute)}, Active: 1, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
					UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
				},
			},
			pod: scenario.Pod{Name: "bare-a", Labels: map[string]string{}},
		},
		{
			id: "D3: a negative activeDeadlineSeconds is refused, not taken as passed",
			job: batchv1.Job{
				ObjectMeta: metav1.ObjectMeta{Name: "late"},
				Spec:       batchv1.JobSpec{Parallelism: ptr(int32(1)), ActiveDeadlineSeconds: ptr(int64(-5))},
				Status: batchv1.JobStatus{
					StartTime: &metav1.Time{Time: now.Add(-time.Minute)}, Active: 1, Ready: ptr(int32(0)), Terminating: ptr(int32(0)),
					UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
				},
			},
			pod: scenario.Pod{Name: "late-a"},
		},
	} {
		job := scenario.Job(tc.job)
		snap := jobsyncSnapshot(job, scenario.PodFor(job, tc.pod, batchv1.JobTrackingFinalizer), now.Time)
		checkDeviation(t, tc.id, gen.Case{Family: "deviation", Snapshot: snap}, classOf, allowed)
	}
	// Deviations of one release of upstream (release_v1_*_test.go).
	for _, rc := range releaseDeviationCases() {
		checkDeviation(t, rc.id, rc.c, classOf, allowed)
	}
	if want := 3 + len(releaseDeviationCases()) + len(otherReleaseDeviations); len(devs) != want {
		t.Errorf("DEVIATIONS.md lists %d entries and this test knows %d: add a snapshot for each new entry", len(devs), want)
	}
}

// releaseDeviationCase is the snapshot of a deviation that shows against
// one release of upstream only.
type releaseDeviationCase struct {
	id string
	c  gen.Case
}

// checkDeviation checks that case c differs from upstream exactly as the
// deviation id of DEVIATIONS.md says, and is recognised as it.
func checkDeviation(t *testing.T, id string, c gen.Case, classOf map[string]string, allowed func(harness.Verdict) bool) {
	t.Helper()
	t.Run(id, func(t *testing.T) {
		want, listed := classOf[id]
		if !listed {
			t.Fatalf("no entry %q in DEVIATIONS.md", id)
		}
		v := harness.Check(c)
		if v.Agree() {
			t.Fatalf("the library now agrees with upstream; remove the entry")
		}
		if got := v.Class(); got != want {
			report, _ := harness.Report(v, false, true)
			t.Errorf("difference class %q, DEVIATIONS.md says %q\n%s", got, want, report)
		}
		if !allowed(v) {
			report, _ := harness.Report(v, false, true)
			t.Errorf("the difference is not recognised as the deviation (harness/deviations.go):\nupstream error %q, library error %q\n%s", v.Upstream.Error, v.Library.Error, report)
		}
	})
}

// workloadWithJobID is D4, v1.37's WorkloadWithJob.
const workloadWithJobID = "D4: v1.37's WorkloadWithJob is not modelled"

// gangCandidate is a new Indexed Job with parallelism 2 equal to its
// completions and no scheduling group in its template: the Job for which
// WorkloadWithJob creates a Workload and a PodGroup, in v1.36 and v1.37
// alike.
func gangCandidate() jobsync.Snapshot {
	job := scenario.Job(batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "gang"},
		Spec: batchv1.JobSpec{
			Parallelism: ptr(int32(2)), Completions: ptr(int32(2)),
			CompletionMode: ptr(batchv1.IndexedCompletion),
		},
	})
	return jobsync.Snapshot{Job: job, Now: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}
}
