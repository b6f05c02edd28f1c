package jobsync_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobsync"
)

var advanceNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func readyPod(job *batchv1.Job, name string) *corev1.Pod {
	p := activePod(job, name, "")
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	return p
}

func failedPod(job *batchv1.Job, name string) *corev1.Pod {
	p := activePod(job, name, "")
	p.Status.Phase = corev1.PodFailed
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "pi", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(advanceNow.Add(-time.Minute))}}}}
	return p
}

func mustReconcile(t *testing.T, s jobsync.Snapshot) jobsync.Plan {
	t.Helper()
	plan, err := jobsync.Reconcile(s, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// stepKinds is what the tests compare of Steps: kinds, calls and event
// reasons.
type stepSummary struct {
	Kind   jobsync.StepKind
	Calls  int
	Events []string
}

func summarizeSteps(steps []jobsync.Step) []stepSummary {
	var out []stepSummary
	for _, s := range steps {
		sum := stepSummary{Kind: s.Kind, Calls: s.Calls}
		for _, e := range s.Events {
			sum.Events = append(sum.Events, e.Reason)
		}
		out = append(out, sum)
	}
	return out
}

func TestPlanSteps(t *testing.T) {
	suspended := exampleJob()
	suspended.Spec.Suspend = ptr(true)
	suspended.Status.StartTime = ptrMetaTime(advanceNow.Add(-time.Hour))
	suspendedWithPods := suspended.DeepCopy()
	past := exampleJob()
	past.Spec.ActiveDeadlineSeconds = ptr(int64(10))
	past.Status.StartTime = ptrMetaTime(advanceNow.Add(-time.Hour))
	unknown := exampleJob()
	unknown.Spec.CompletionMode = ptr(batchv1.CompletionMode("Sometimes"))
	for _, tc := range []struct {
		name string
		snap jobsync.Snapshot
		opts jobsync.Options
		want []stepSummary
	}{
		{"new Job", jobsync.Snapshot{Job: exampleJob(), Now: advanceNow}, jobsync.Options{}, []stepSummary{
			{Kind: jobsync.StepPods, Calls: 2},
			{Kind: jobsync.StepInterimStatus, Calls: 1},
		}},
		{"suspended, no pods: Suspended where the deletions would be", jobsync.Snapshot{Job: suspended, Now: advanceNow}, jobsync.Options{}, []stepSummary{
			{Kind: jobsync.StepPods, Events: []string{"Suspended"}},
			{Kind: jobsync.StepInterimStatus, Calls: 1},
		}},
		{"suspended with pods", jobsync.Snapshot{Job: suspendedWithPods, Now: advanceNow, Pods: []*corev1.Pod{activePod(suspendedWithPods, "a", "")}}, jobsync.Options{}, []stepSummary{
			{Kind: jobsync.StepPods, Calls: 1, Events: []string{"Suspended"}},
			{Kind: jobsync.StepInterimStatus, Calls: 1},
		}},
		{"past its deadline: the finishing events wait for the final status", jobsync.Snapshot{Job: past, Now: advanceNow}, jobsync.Options{}, []stepSummary{
			{Kind: jobsync.StepInterimStatus, Calls: 1},
			{Kind: jobsync.StepStatus, Calls: 1, Events: []string{"DeadlineExceeded"}},
		}},
		{"skipped: no steps", jobsync.Snapshot{Job: unknown, Now: advanceNow}, jobsync.Options{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := jobsync.Reconcile(tc.snap, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarizeSteps(plan.Steps())); diff != "" {
				t.Errorf("Steps() (-want +got):\n%s", diff)
			}
			var steps []jobsync.Event
			for _, s := range plan.Steps() {
				steps = append(steps, s.Events...)
			}
			all := append(plan.EventsAtOnce(), steps...)
			if diff := cmp.Diff(plan.Events, all, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("every event once, in the plan's order (-plan +steps):\n%s", diff)
			}
		})
	}
}

func ptrMetaTime(t time.Time) *metav1.Time { v := metav1.NewTime(t); return &v }

func TestAdvance(t *testing.T) {
	job := exampleJob()
	newJob := jobsync.Snapshot{Job: job, Now: advanceNow}
	creating := mustReconcile(t, newJob)

	// A failed pod to record (interim status and a new backoff record),
	// then its finalizer to remove.
	failing := exampleJob()
	failing.Status.StartTime = ptrMetaTime(advanceNow.Add(-time.Hour))
	failing.Status.Active = 2
	withFailure := jobsync.Snapshot{Job: failing, Now: advanceNow, Pods: []*corev1.Pod{
		activePod(failing, "a", ""), activePod(failing, "b", ""), failedPod(failing, "c"),
	}}
	recording := mustReconcile(t, withFailure)
	if recording.InterimStatus == nil || len(recording.FinalizerRemovals) != 1 {
		t.Fatalf("want an interim status and one finalizer removal, got %+v", recording)
	}
	c := recording.FinalizerRemovals[0].Pod.UID

	past := exampleJob()
	past.Spec.ActiveDeadlineSeconds = ptr(int64(10))
	past.Status.StartTime = ptrMetaTime(advanceNow.Add(-time.Hour))
	finishing := jobsync.Snapshot{Job: past, Now: advanceNow}
	finishPlan := mustReconcile(t, finishing)

	for _, tc := range []struct {
		name string
		snap jobsync.Snapshot
		plan jobsync.Plan
		p    jobsync.Progress
		want jobsync.Memory
	}{
		{"every step done", newJob, creating, jobsync.Progress{},
			jobsync.Memory{Expectations: expectations.Expectations{Creations: 2, SetAt: advanceNow}}},
		{"one creation failed", newJob, creating, jobsync.Progress{Pods: jobsync.PodFailures{Creations: 1}},
			jobsync.Memory{Expectations: expectations.Expectations{Creations: 1, SetAt: advanceNow}}},
		{"stopped before the pods", newJob, creating, jobsync.Progress{Stopped: jobsync.StepPods},
			jobsync.Memory{Expectations: expectations.Expectations{Creations: 0, SetAt: advanceNow}}},
		{"recorded and released", withFailure, recording, jobsync.Progress{},
			jobsync.Memory{Expectations: expectations.Expectations{}.ExpectFinalizerRemovals(c), Backoff: recording.Backoff}},
		{"interim status refused: the old backoff, no removal expected", withFailure, recording, jobsync.Progress{Stopped: jobsync.StepInterimStatus},
			jobsync.Memory{}},
		{"removal failed: the new backoff, no removal expected", withFailure, recording, jobsync.Progress{Stopped: jobsync.StepStatus, FailedRemovals: []k8stypes.UID{c}},
			jobsync.Memory{Backoff: recording.Backoff}},
		{"final status written: finished", finishing, finishPlan, jobsync.Progress{},
			jobsync.Memory{Expectations: expectations.Expectations{JobFinished: true}}},
		{"final status refused: not finished", finishing, finishPlan, jobsync.Progress{Stopped: jobsync.StepStatus},
			jobsync.Memory{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := jobsync.Advance(tc.snap, tc.plan, tc.p)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b expectations.UIDSet) bool { return a.Equal(b) }), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Advance (-want +got):\n%s", diff)
			}
		})
	}
	if recording.Backoff == (backoff.Record{}) {
		t.Fatal("the recording plan should carry a new backoff record")
	}
}

// statusCounts is what failed pod calls change in a status.
type statusCounts struct {
	Active, Ready, Terminating int32
	StartTime                  bool
	Conditions                 []batchv1.JobConditionType
}

func countsOf(st *batchv1.JobStatus) *statusCounts {
	if st == nil {
		return nil
	}
	c := &statusCounts{Active: st.Active, StartTime: st.StartTime != nil}
	if st.Ready != nil {
		c.Ready = *st.Ready
	}
	if st.Terminating != nil {
		c.Terminating = *st.Terminating
	}
	for _, cond := range st.Conditions {
		c.Conditions = append(c.Conditions, cond.Type)
	}
	return c
}

func TestResume(t *testing.T) {
	deadline := exampleJob()
	deadline.Spec.ActiveDeadlineSeconds = ptr(int64(20))
	quota := jobsync.Snapshot{Job: deadline, Now: advanceNow}

	// Scale-down of two ready pods to none: parallelism 0.
	scaled := exampleJob()
	scaled.Spec.Parallelism = ptr(int32(0))
	scaled.Status.StartTime = ptrMetaTime(advanceNow.Add(-time.Hour))
	scaled.Status.Active, scaled.Status.Ready, scaled.Status.Terminating = 2, ptr(int32(2)), ptr(int32(0))
	scaleDown := jobsync.Snapshot{Job: scaled, Now: advanceNow, Pods: []*corev1.Pod{readyPod(scaled, "a"), readyPod(scaled, "b")}}

	// A Job past its deadline with two active pods: they are deleted and
	// the Job fails, unless a deletion fails.
	past := exampleJob()
	past.Spec.ActiveDeadlineSeconds = ptr(int64(10))
	past.Status.StartTime = ptrMetaTime(advanceNow.Add(-time.Hour))
	past.Status.Active, past.Status.Ready, past.Status.Terminating = 2, ptr(int32(0)), ptr(int32(0))
	finishing := jobsync.Snapshot{Job: past, Now: advanceNow, Pods: []*corev1.Pod{activePod(past, "a", ""), activePod(past, "b", "")}}

	for _, tc := range []struct {
		name             string
		snap             jobsync.Snapshot
		failures         func(jobsync.Plan) jobsync.PodFailures
		interim, final   *statusCounts
		removals, events int
	}{
		{"quota refuses every creation: startTime written, nothing active", quota,
			func(p jobsync.Plan) jobsync.PodFailures { return jobsync.PodFailures{Creations: len(p.Creations)} },
			&statusCounts{Active: 0, StartTime: true}, nil, 0, 0},
		{"one creation refused", quota,
			func(p jobsync.Plan) jobsync.PodFailures { return jobsync.PodFailures{Creations: 1} },
			&statusCounts{Active: 1, StartTime: true}, nil, 0, 0},
		{"a delete call refused: still active, out of ready", scaleDown,
			func(p jobsync.Plan) jobsync.PodFailures {
				return jobsync.PodFailures{Deletions: []jobsync.DeletionFailure{{Pod: p.Deletions[0].Pod.UID}}}
			},
			&statusCounts{Active: 1, Ready: 0, Terminating: 1, StartTime: true}, nil, 0, 0},
		{"a finalizer patch refused: still active and ready", scaleDown,
			func(p jobsync.Plan) jobsync.PodFailures {
				return jobsync.PodFailures{Deletions: []jobsync.DeletionFailure{{Pod: p.Deletions[0].Pod.UID, Finalizer: true}}}
			},
			&statusCounts{Active: 1, Ready: 1, Terminating: 1, StartTime: true}, nil, 0, 0},
		{"a pod found gone counts as deleted", scaleDown,
			func(p jobsync.Plan) jobsync.PodFailures {
				return jobsync.PodFailures{Deletions: []jobsync.DeletionFailure{{Pod: p.Deletions[0].Pod.UID, Gone: true}}}
			},
			&statusCounts{Active: 0, Ready: 0, Terminating: 2, StartTime: true}, nil, 0, 0},
		{"a finishing Job whose deletion failed is not failed yet", finishing,
			func(p jobsync.Plan) jobsync.PodFailures {
				return jobsync.PodFailures{Deletions: []jobsync.DeletionFailure{{Pod: p.Deletions[0].Pod.UID}}}
			},
			&statusCounts{Active: 1, Terminating: 1, StartTime: true}, nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := mustReconcile(t, tc.snap)
			rest, err := jobsync.Resume(tc.snap, jobsync.Options{}, plan, tc.failures(plan))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.interim, countsOf(rest.InterimStatus)); diff != "" {
				t.Errorf("interim status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.final, countsOf(rest.Status)); diff != "" {
				t.Errorf("final status (-want +got):\n%s", diff)
			}
			if got := len(rest.FinalizerRemovals); got != tc.removals {
				t.Errorf("finalizer removals: got %d, want %d", got, tc.removals)
			}
			if got := len(rest.Events); got != tc.events {
				t.Errorf("events: got %v, want %d", rest.Events, tc.events)
			}
			if diff := cmp.Diff(plan.Creations, rest.Creations); diff != "" {
				t.Errorf("the creations are those of the plan (-plan +rest):\n%s", diff)
			}
		})
	}
}

func TestResumeWithoutFailuresIsThePlan(t *testing.T) {
	s := jobsync.Snapshot{Job: exampleJob(), Now: advanceNow}
	plan := mustReconcile(t, s)
	rest, err := jobsync.Resume(s, jobsync.Options{}, plan, jobsync.PodFailures{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plan, rest, cmp.Comparer(func(a, b expectations.UIDSet) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Resume with no failure (-plan +rest):\n%s", diff)
	}
}

func TestResumeRefusesForeignFailures(t *testing.T) {
	s := jobsync.Snapshot{Job: exampleJob(), Now: advanceNow}
	plan := mustReconcile(t, s)
	for name, f := range map[string]jobsync.PodFailures{
		"more creations than planned": {Creations: 3},
		"a deletion not planned":      {Deletions: []jobsync.DeletionFailure{{Pod: "nope"}}},
	} {
		if _, err := jobsync.Resume(s, jobsync.Options{}, plan, f); err == nil {
			t.Errorf("%s: Resume accepted it", name)
		}
	}
	other := exampleJob()
	other.Spec.Parallelism = ptr(int32(1))
	if _, err := jobsync.Resume(jobsync.Snapshot{Job: other, Now: advanceNow}, jobsync.Options{}, plan, jobsync.PodFailures{Creations: 1}); err == nil {
		t.Error("Resume accepted a plan of another snapshot")
	}
}

func TestObserve(t *testing.T) {
	job := exampleJob()
	finished := exampleJob()
	finished.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	pod := activePod(job, "a", "")
	pod.ResourceVersion = "1"
	pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}
	foreign := pod.DeepCopy()
	foreign.OwnerReferences[0].UID = "another-job"
	withRV := func(p *corev1.Pod, rv string, f func(*corev1.Pod)) *corev1.Pod {
		p = p.DeepCopy()
		p.ResourceVersion = rv
		if f != nil {
			f(p)
		}
		return p
	}
	deleting := withRV(pod, "2", func(p *corev1.Pod) { p.DeletionTimestamp = ptrMetaTime(advanceNow) })
	unfinalized := withRV(pod, "2", func(p *corev1.Pod) { p.Finalizers = nil })
	uid := []k8stypes.UID{pod.UID}
	for _, tc := range []struct {
		name string
		job  *batchv1.Job
		ev   jobsync.PodEvent
		want jobsync.Observation
	}{
		{"added", job, jobsync.PodEvent{Pod: pod}, jobsync.Observation{Creations: 1}},
		{"added, of another Job", job, jobsync.PodEvent{Pod: foreign}, jobsync.Observation{}},
		{"added already being deleted", job, jobsync.PodEvent{Pod: deleting}, jobsync.Observation{Deletions: 1}},
		{"resync", job, jobsync.PodEvent{Old: pod, Pod: pod}, jobsync.Observation{}},
		{"being deleted, finalizer kept", job, jobsync.PodEvent{Old: pod, Pod: deleting}, jobsync.Observation{Deletions: 1}},
		{"being deleted, of a finished Job", finished, jobsync.PodEvent{Old: pod, Pod: deleting}, jobsync.Observation{}},
		{"finalizer gone", job, jobsync.PodEvent{Old: pod, Pod: unfinalized}, jobsync.Observation{FinalizerRemovals: uid}},
		{"finalizer gone while released to another Job", job, jobsync.PodEvent{Old: pod, Pod: withRV(foreign, "2", func(p *corev1.Pod) { p.Finalizers = nil })}, jobsync.Observation{FinalizerRemovals: uid}},
		{"deleted for good", job, jobsync.PodEvent{Pod: pod, Deleted: true}, jobsync.Observation{Deletions: 1, FinalizerRemovals: uid}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, jobsync.Observe(tc.job, tc.ev, jobsync.Options{})); diff != "" {
				t.Errorf("Observe (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEventSteps checks Steps' reading of where each event comes from
// against the events' reasons, on generated snapshots: Suspended and
// Resumed after the pod step, the events of a finished Job after the final
// status, a skipped plan's at once; every event exactly once.
func TestEventSteps(t *testing.T) {
	want := func(plan jobsync.Plan, e jobsync.Event) jobsync.StepKind {
		switch {
		case plan.Skipped != "":
			return ""
		case e.Reason == "Suspended" || e.Reason == "Resumed":
			return jobsync.StepPods
		}
		return jobsync.StepStatus
	}
	seen := map[jobsync.StepKind]int{}
	rapid.Check(t, func(t *rapid.T) {
		var s jobsync.Snapshot
		if rapid.Bool().Draw(t, "adversarial") {
			s = adversarial.Snapshot(t)
		} else {
			s = genSnapshot(t)
		}
		opts := jobsync.Options{}
		plan, err := jobsync.Reconcile(s, opts)
		if err != nil {
			t.Skip("refused snapshot")
		}
		var got []string
		for _, e := range plan.EventsAtOnce() {
			got = append(got, string(want(plan, e))+" "+e.Reason)
			seen[""]++
		}
		for _, st := range plan.Steps() {
			for _, e := range st.Events {
				got = append(got, string(st.Kind)+" "+e.Reason)
				seen[st.Kind]++
			}
		}
		var exp []string
		for _, e := range plan.Events {
			exp = append(exp, string(want(plan, e))+" "+e.Reason)
		}
		if diff := cmp.Diff(exp, got); diff != "" {
			t.Fatalf("events by step (-by reason +Steps):\n%s", diff)
		}
	})
	t.Logf("events seen by step: %v", seen)
}

// TestPropertyResumeAndAdvance: on generated and adversarial snapshots,
// with pod calls failed at random, Advance of a plan carried out to its end
// is the plan's memory; Resume is deterministic whatever the order of the
// pods; and the status it decides counts the pods as they are: the plan's
// active count, less the creations that failed, plus the deletions that
// failed (a pod found gone counts as deleted).
func TestPropertyResumeAndAdvance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s jobsync.Snapshot
		if rapid.Bool().Draw(t, "adversarial") {
			s = adversarial.Snapshot(t)
		} else {
			s = genSnapshot(t)
		}
		opts := jobsync.Options{}
		plan, err := jobsync.Reconcile(s, opts)
		if err != nil {
			t.Skip("refused snapshot")
		}
		uidsEqual := cmp.Comparer(func(a, b expectations.UIDSet) bool { return a.Equal(b) })
		full := jobsync.Advance(s, plan, jobsync.Progress{})
		if diff := cmp.Diff(jobsync.Memory{Expectations: plan.Expectations, Backoff: plan.Backoff}, full, uidsEqual); diff != "" {
			t.Fatalf("Advance of a plan carried out to its end (-plan +Advance):\n%s", diff)
		}

		var f jobsync.PodFailures
		f.Creations = rapid.IntRange(0, len(plan.Creations)).Draw(t, "failedCreations")
		stillActive := 0
		for _, d := range plan.Deletions {
			switch rapid.IntRange(0, 2).Draw(t, "deletion") {
			case 1:
				f.Deletions = append(f.Deletions, jobsync.DeletionFailure{Pod: d.Pod.UID})
				stillActive++
			case 2:
				f.Deletions = append(f.Deletions, jobsync.DeletionFailure{Pod: d.Pod.UID, Gone: true})
			}
		}
		rest, err := jobsync.Resume(s, opts, plan, f)
		if err != nil {
			t.Fatalf("Resume: %v", err)
		}
		shuffled := s
		shuffled.Pods = rapid.Permutation(s.Pods).Draw(t, "pods")
		again, err := jobsync.Resume(shuffled, opts, plan, f)
		if err != nil {
			t.Fatalf("Resume on the pods in another order: %v", err)
		}
		if diff := cmp.Diff(rest, again, uidsEqual); diff != "" {
			t.Fatalf("Resume depends on the order of the pods (-sorted +shuffled):\n%s", diff)
		}
		for _, st := range []struct{ planned, resumed *batchv1.JobStatus }{{plan.InterimStatus, rest.InterimStatus}, {plan.Status, rest.Status}} {
			if st.planned == nil || st.resumed == nil {
				continue
			}
			if want := st.planned.Active - int32(f.Creations) + int32(stillActive); st.resumed.Active != want {
				t.Fatalf("resumed status active %d, want %d (planned %d, %d creations and %d deletions failed)",
					st.resumed.Active, want, st.planned.Active, f.Creations, stillActive)
			}
		}
	})
}
