package memory

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

var t0 = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

func testJob(uid types.UID) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: uid}}
}

func testPod(uid types.UID, jobUID types.UID, finalizers ...string) *corev1.Pod {
	yes := true
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "pi-" + string(uid), UID: uid, ResourceVersion: "1", Finalizers: finalizers,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: jobUID, Controller: &yes}},
	}}
}

const fin = "example.com/tracking"

func observerFor(s *Store, job *batchv1.Job) Observer {
	return Observer{Store: s, Finalizer: fin, Jobs: func(ns, name string) *batchv1.Job {
		if ns == job.Namespace && name == job.Name {
			return job
		}
		return nil
	}}
}

// TestBeginKeepsObservationsSinceTheSnapshot pins the merge rule of Begin:
// what the informer observed between the snapshot and Begin is not
// overwritten by the plan's memory, which was computed without it.
func TestBeginKeepsObservationsSinceTheSnapshot(t *testing.T) {
	job := testJob("j1")
	failedAt := t0.Add(-time.Minute)
	tests := []struct {
		name    string
		stored  expectations.Expectations // memory before the snapshot
		observe func(o Observer)          // observations between snapshot and Begin
		plan    func(snap expectations.Expectations) jobsync.Plan
		want    expectations.Expectations // memory after Begin
	}{{
		name:   "a plan that sets creations replaces the counts, as upstream's ExpectCreations",
		stored: expectations.Expectations{Creations: 0, Deletions: 1, SetAt: t0.Add(-time.Hour)},
		observe: func(o Observer) {
			gone := testPod("old", "j1")
			gone.DeletionTimestamp = &metav1.Time{Time: t0}
			o.PodDeleted(gone)
		},
		plan: func(e expectations.Expectations) jobsync.Plan {
			return jobsync.Plan{Expectations: e.ExpectCreations(2, t0)}
		},
		want: expectations.Expectations{Creations: 2, SetAt: t0},
	}, {
		name:   "a plan that leaves the counts alone keeps the observed ones",
		stored: expectations.Expectations{Creations: 2, SetAt: t0},
		observe: func(o Observer) {
			o.PodAdded(testPod("a", "j1", fin))
		},
		plan: func(e expectations.Expectations) jobsync.Plan { return jobsync.Plan{Expectations: e} },
		want: expectations.Expectations{Creations: 1, SetAt: t0},
	}, {
		name:   "finalizer removals: the plan's new UIDs are added, an observed removal stays observed",
		stored: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("a", "b")},
		observe: func(o Observer) {
			old := testPod("a", "j1", fin)
			cur := testPod("a", "j1")
			cur.ResourceVersion = "2"
			o.PodUpdated(old, cur)
		},
		plan: func(e expectations.Expectations) jobsync.Plan {
			return jobsync.Plan{Expectations: e.ExpectFinalizerRemovals("c")}
		},
		want: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("b", "c")},
	}, {
		name:   "finalizer removals the plan drops are dropped",
		stored: expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("a", "b")},
		observe: func(o Observer) {
			o.PodDeleted(testPod("b", "j1", fin))
		},
		plan: func(e expectations.Expectations) jobsync.Plan {
			return jobsync.Plan{Expectations: e.FinalizerRemovalObserved("a")}
		},
		// The deletion was never expected: lowered below zero, as upstream
		// lowers it, and harmless (Satisfied holds).
		want: expectations.Expectations{Deletions: -1},
	}, {
		name:    "a plan finishing the Job has JobFinished stored only once its status is written",
		stored:  expectations.Expectations{},
		observe: func(Observer) {},
		plan: func(e expectations.Expectations) jobsync.Plan {
			e.JobFinished = true
			return jobsync.Plan{Expectations: e, Status: &batchv1.JobStatus{}}
		},
		want: expectations.Expectations{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			s.Begin(jobsync.Snapshot{Job: job}, jobsync.Options{}, jobsync.Plan{Expectations: tt.stored, Backoff: backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &failedAt}})
			snap := snapOf(s, job, t0)
			tt.observe(observerFor(s, job))
			s.Begin(snap, jobsync.Options{}, tt.plan(snap.Expectations))
			got, ok := s.Get("ns", "pi", "j1")
			if !ok {
				t.Fatal("no memory kept after Begin")
			}
			if diff := cmp.Diff(tt.want, got.Expectations); diff != "" {
				t.Errorf("memory after Begin (-want +got):\n%s", diff)
			}
		})
	}
}

// TestObservationsAfterBeginSatisfyThePlan is the trap of storing the plan's
// memory after its API calls: the informer observes the two created pods
// while they are created, so the memory must already expect them. Begin
// stores at once; with the Sync in hand the creations are observed and the
// Job is free to sync again, instead of waiting five minutes.
func TestObservationsAfterBeginSatisfyThePlan(t *testing.T) {
	s := NewStore()
	job := testJob("j1")
	snap := snapOf(s, job, t0)
	plan := jobsync.Plan{Expectations: snap.Expectations.ExpectCreations(2, t0)}
	s.Begin(snap, jobsync.Options{}, plan)
	o := observerFor(s, job)
	o.PodAdded(testPod("a", "j1", fin))
	o.PodAdded(testPod("b", "j1", fin))
	got, _ := s.Get("ns", "pi", "j1")
	if !got.Expectations.Satisfied(t0.Add(time.Second), expectations.DefaultTimeout) {
		t.Errorf("after both creations were observed the Job still waits: %+v", got.Expectations)
	}
}

// snapOf takes the snapshot of a Job without pods.
func snapOf(s *Store, job *batchv1.Job, now time.Time) jobsync.Snapshot {
	snap, err := s.Snapshot(job, now, NoPods)
	if err != nil {
		panic(err)
	}
	return snap
}

// TestFailedStepsLowerWhatWasNotDone pins the library's rules (jobsync.Advance)
// as the store applies them to the memory it keeps.
func TestFailedStepsLowerWhatWasNotDone(t *testing.T) {
	failedAt := t0.Add(-time.Minute)
	newBackoff := backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &failedAt}
	job := testJob("j1")

	t.Run("Backoff is kept only once the interim status is written", func(t *testing.T) {
		s := NewStore()
		y := s.Begin(snapOf(s, job, t0), jobsync.Options{}, jobsync.Plan{InterimStatus: &batchv1.JobStatus{}, Backoff: newBackoff})
		if got, _ := s.Get("ns", "pi", "j1"); got.Backoff.FailuresAfterLastSuccess != 0 {
			t.Errorf("Backoff kept before the interim status was written: %+v", got.Backoff)
		}
		y.Advance(jobsync.Progress{})
		if got, _ := s.Get("ns", "pi", "j1"); got.Backoff.FailuresAfterLastSuccess != 1 {
			t.Errorf("Backoff not kept after the interim status was written: %+v", got.Backoff)
		}
	})
	t.Run("Backoff of a plan without interim status is kept at once", func(t *testing.T) {
		s := NewStore()
		s.Begin(snapOf(s, job, t0), jobsync.Options{}, jobsync.Plan{Backoff: newBackoff})
		if got, _ := s.Get("ns", "pi", "j1"); got.Backoff.FailuresAfterLastSuccess != 1 {
			t.Errorf("Backoff not kept: %+v", got.Backoff)
		}
	})
	t.Run("JobFinished only once the final status is written", func(t *testing.T) {
		s := NewStore()
		y := s.Begin(snapOf(s, job, t0), jobsync.Options{}, jobsync.Plan{Status: &batchv1.JobStatus{}, Expectations: expectations.Expectations{JobFinished: true}})
		if got, _ := s.Get("ns", "pi", "j1"); got.Expectations.JobFinished {
			t.Error("JobFinished kept before the final status was written")
		}
		y.Advance(jobsync.Progress{})
		if got, _ := s.Get("ns", "pi", "j1"); !got.Expectations.JobFinished {
			t.Error("JobFinished not kept after the final status was written")
		}
	})
	t.Run("failed deletions lower the count only if the plan set it", func(t *testing.T) {
		s := NewStore()
		s.Begin(snapOf(s, job, t0), jobsync.Options{}, jobsync.Plan{Expectations: expectations.Expectations{Deletions: 3, SetAt: t0}})
		snap := snapOf(s, job, t0.Add(time.Second))
		// A finishing Job deletes its active pods without setting counts.
		y := s.Begin(snap, jobsync.Options{}, jobsync.Plan{Expectations: snap.Expectations, Deletions: make([]jobsync.PodDeletion, 2)})
		y.Advance(jobsync.Progress{Pods: jobsync.PodFailures{Deletions: []jobsync.DeletionFailure{{}}}})
		if got, _ := s.Get("ns", "pi", "j1"); got.Expectations.Deletions != 3 {
			t.Errorf("deletions = %d, want 3: the plan did not set them", got.Expectations.Deletions)
		}
		snap = snapOf(s, job, t0.Add(2*time.Second))
		y = s.Begin(snap, jobsync.Options{}, jobsync.Plan{Expectations: snap.Expectations.ExpectDeletions(2, snap.Now), Deletions: make([]jobsync.PodDeletion, 2)})
		y.Advance(jobsync.Progress{Pods: jobsync.PodFailures{Deletions: []jobsync.DeletionFailure{{}}}})
		if got, _ := s.Get("ns", "pi", "j1"); got.Expectations.Deletions != 1 {
			t.Errorf("deletions = %d, want 1", got.Expectations.Deletions)
		}
	})
}

// TestMemoryBelongsToOneJobUID: a Job deleted and created again under the
// same name starts afresh, and the old Job's pods do not lower its memory.
func TestMemoryBelongsToOneJobUID(t *testing.T) {
	s := NewStore()
	old, cur := testJob("old"), testJob("new")
	s.Begin(snapOf(s, old, t0), jobsync.Options{}, jobsync.Plan{Expectations: expectations.Expectations{Creations: 5, SetAt: t0}})
	snap := snapOf(s, cur, t0)
	if diff := cmp.Diff(expectations.Expectations{}, snap.Expectations); diff != "" {
		t.Fatalf("the new Job inherits the old one's memory (-want +got):\n%s", diff)
	}
	s.Begin(snap, jobsync.Options{}, jobsync.Plan{Expectations: snap.Expectations.ExpectCreations(2, t0)})
	observerFor(s, old).PodAdded(testPod("a", "old", fin)) // a late event about the old Job
	observerFor(s, cur).PodAdded(testPod("a", "old", fin)) // the cache holds the new Job: UID differs
	if got, _ := s.Get("ns", "pi", "new"); got.Expectations.Creations != 2 {
		t.Errorf("creations = %d, want 2", got.Expectations.Creations)
	}
	observerFor(s, old).JobDeleted(old)
	if _, ok := s.Get("ns", "pi", "new"); !ok {
		t.Error("deleting the old Job forgot the new one's memory")
	}
	observerFor(s, cur).JobDeleted(cache.DeletedFinalStateUnknown{Key: "ns/pi", Obj: cur})
	if s.Len() != 0 {
		t.Error("deleting the Job (tombstone) kept its memory")
	}
}

// TestStoreSharesNoMemoryWithWhatItHandsOut: a caller that changes the
// backoff record of a snapshot or of a plan it stored does not change the
// store's memory (the record's failure time is a pointer).
func TestStoreSharesNoMemoryWithWhatItHandsOut(t *testing.T) {
	s := NewStore()
	job := testJob("j1")
	failedAt := t0
	plan := jobsync.Plan{Backoff: backoff.Record{FailuresAfterLastSuccess: 1, LastFailureTime: &failedAt}}
	s.Begin(snapOf(s, job, t0), jobsync.Options{}, plan)

	failedAt = t0.Add(time.Hour) // the caller reuses the plan's memory
	snap := snapOf(s, job, t0)
	*snap.Backoff.LastFailureTime = t0.Add(2 * time.Hour) // and the snapshot's

	got, _ := s.Get("ns", "pi", "j1")
	if got.Backoff.LastFailureTime == nil || !got.Backoff.LastFailureTime.Equal(t0) {
		t.Fatalf("stored failure time = %v, want %v", got.Backoff.LastFailureTime, t0)
	}
}
