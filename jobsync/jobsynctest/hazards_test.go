package jobsynctest_test

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// Upstream hazards: lifecycles in which upstream's controller (v1.36.3), and
// so Reconcile, gets its status writes refused by the API server. They are
// pinned here so that a change of behaviour shows; README.md explains them.
func TestUpstreamHazards(t *testing.T) {
	t.Run("a Job failing while suspended has no startTime", func(t *testing.T) {
		// The pod is being deleted (disrupted) when the Job is suspended, so
		// suspension leaves it and its finalizer alone; it fails while the
		// Job is suspended, which exceeds backoffLimit 0. Suspension cleared
		// startTime, and the API server refuses a Failed condition without
		// one, until the Job is resumed.
		job := newJob(func(s *batchv1.JobSpec) {
			s.Completions, s.Parallelism = ptr(int32(1)), ptr(int32(1))
			s.BackoffLimit = ptr(int32(0))
			s.PodReplacementPolicy = ptr(batchv1.Failed)
		})
		res := run(t, job, jobsynctest.Config{
			Script: jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 30 * time.Second, Disruption: true, Shutdown: 20 * time.Second}},
			Faults: jobsynctest.Faults{JobChanges: []jobsynctest.JobChange{
				{At: 35 * time.Second, Suspend: ptr(true)},
				{At: 5 * time.Minute, Suspend: ptr(false)},
			}},
		})
		if len(res.Violations) > 0 {
			t.Fatalf("violations: %v", res.Violations)
		}
		if res.Outcome != jobsynctest.OutcomeFailed || len(res.Tolerated) == 0 || !strings.Contains(res.Tolerated[0], "startTime") {
			t.Fatalf("outcome %s, tolerated %q; want Failed after refused writes for want of startTime", res.Outcome, res.Tolerated)
		}
		if end := res.End.Sub(jobsynctest.DefaultStart); end < 5*time.Minute {
			t.Errorf("the Job failed at %v, before it was resumed", end)
		}
	})

	t.Run("parallelism changed alone after an elastic scale-down", func(t *testing.T) {
		// Three indexes succeed, index 3 runs on; completions and
		// parallelism go down to 1, then parallelism alone to 2 before the
		// controller syncs. The succeeded count must go from 3 to 1, which
		// the API server allows only while completions equals parallelism.
		job := newJob(func(s *batchv1.JobSpec) {
			s.CompletionMode = ptr(batchv1.IndexedCompletion)
			s.Completions, s.Parallelism = ptr(int32(4)), ptr(int32(4))
		})
		c, err := jobsynctest.NewCluster(job, jobsynctest.Config{
			Check:    true,
			MaxSyncs: 50,
			Script: jobsynctest.Script{
				Default: &jobsynctest.Behavior{RunTime: 10 * time.Second},
				Pods:    []jobsynctest.PodRule{{Index: ptr(3), Behavior: jobsynctest.Behavior{Forever: true}}},
			},
			Faults: jobsynctest.Faults{JobChanges: []jobsynctest.JobChange{
				{At: time.Minute, Scale: ptr(int32(1))},
				{At: time.Minute, Parallelism: ptr(int32(2))},
			}},
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != jobsynctest.OutcomeMaxSyncs || len(res.Violations) == 0 ||
			!strings.Contains(res.Violations[0].Detail, "cannot decrease the succeeded counter (3 to 1)") {
			t.Fatalf("outcome %s, violations %v; want every status write refused", res.Outcome, res.Violations)
		}
		if got := res.Job.Status.Succeeded; got != 3 {
			t.Errorf("status.succeeded is %d, want the 3 it had", got)
		}
	})

	t.Run("a Job view behind the pod view retries a finished index", func(t *testing.T) {
		// With the pod and Job watches stalling independently, the
		// controller can see a pod released (finalizer gone) while its view
		// of the Job does not yet hold the status that counted it: the
		// index looks pending again, and a second pod is created for a
		// completed (or failed) index. When that pod fails, its index is
		// both completed and failed, which the API server refuses in every
		// later status write. Some seed among the first 200 shows it.
		for seed := int64(0); seed < 200; seed++ {
			job := newJob(func(s *batchv1.JobSpec) {
				s.CompletionMode = ptr(batchv1.IndexedCompletion)
				s.Completions, s.Parallelism = ptr(int32(4)), ptr(int32(4))
				s.BackoffLimitPerIndex = ptr(int32(0))
				s.BackoffLimit = ptr(int32(1))
			})
			c, err := jobsynctest.NewCluster(job, jobsynctest.Config{Seed: seed, Check: true, MaxSyncs: 100, DiscardSteps: true,
				Faults: jobsynctest.Faults{SkewedView: 0.5, MaxLag: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Run()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Violations {
				if strings.Contains(v.Detail, "is both completed and failed") {
					t.Logf("seed %d: %s (outcome %s)", seed, v, res.Outcome)
					return
				}
			}
		}
		t.Error("no seed showed the race; has upstream's behaviour (or the simulator's skew) changed?")
	})

	t.Run("an Indexed pod recorded as failed that succeeds is counted twice", func(t *testing.T) {
		// The Job is failing (FailJob), a pod it sees running is recorded
		// in uncountedTerminatedPods.failed, and the pod has in fact
		// succeeded (a stale view here; a pod that exits 0 on SIGTERM does
		// it too). Upstream reads succeeded indexes from the pods without
		// looking at uncountedTerminatedPods, so the index also joins
		// completedIndexes: the pod counts in status.failed and in
		// status.succeeded. Some seed among the first 10000 shows it (5076 since
		// failed pod calls no longer stop a plan).
		for seed := int64(0); seed < 10000; seed++ {
			job := newJob(func(s *batchv1.JobSpec) {
				s.CompletionMode = ptr(batchv1.IndexedCompletion)
				s.Completions, s.Parallelism = ptr(int32(3)), ptr(int32(3))
				s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
					Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
				}}}
			})
			c, err := jobsynctest.NewCluster(job, jobsynctest.Config{Seed: seed, Check: true, MaxSyncs: 300, DiscardSteps: true,
				Faults: jobsynctest.Faults{StaleView: 0.5, APIError: 0.3, MaxLag: time.Minute}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Run()
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) > 0 {
				t.Fatalf("seed %d: %v", seed, res.Violations)
			}
			for _, note := range res.Tolerated {
				if strings.Contains(note, "recorded as failed while the Job was failing") {
					t.Logf("seed %d: %s (succeeded %d, failed %d)", seed, note, res.Job.Status.Succeeded, res.Job.Status.Failed)
					return
				}
			}
		}
		t.Error("no seed showed the double count; has upstream's behaviour changed?")
	})
}
