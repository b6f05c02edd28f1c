package workload136_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/alpha/workload136"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobsync"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// gangJob is a Job that qualifies for gang scheduling and has never run.
func gangJob() *batchv1.Job {
	two := int32(2)
	mode := batchv1.IndexedCompletion
	return scenario.Job(batchv1.Job{Spec: batchv1.JobSpec{Completions: &two, Parallelism: &two, CompletionMode: &mode}})
}

func pod(job *batchv1.Job, ps scenario.Pod) *corev1.Pod {
	return scenario.PodFor(job, ps, batchv1.JobTrackingFinalizer)
}

func ix(i int) *int { return &i }

// A new gang Job gets its Workload and PodGroup, the event of the
// Workload comes first, and every pod created joins the PodGroup; the
// rest of the plan is jobsync's.
func TestNewGangJob(t *testing.T) {
	job := gangJob()
	s := workload136.Snapshot{Snapshot: jobsync.Snapshot{Job: job, Now: now}}
	plan, err := workload136.Reconcile(s, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.WorkloadCreation == nil || plan.PodGroupCreation == nil {
		t.Fatalf("no Workload or PodGroup for a new gang Job: %+v, %+v", plan.WorkloadCreation, plan.PodGroupCreation)
	}
	if len(plan.Events) == 0 || plan.Events[0].Reason != "WorkloadCreated" {
		t.Errorf("events %v, want WorkloadCreated first", plan.Events)
	}
	if len(plan.Creations) != 2 {
		t.Fatalf("%d creations, want 2", len(plan.Creations))
	}
	for _, c := range plan.Creations {
		if g := c.Pod.Spec.SchedulingGroup; g == nil || g.PodGroupName == nil || *g.PodGroupName != plan.PodGroupCreation.Name {
			t.Errorf("pod %s joins %+v, want PodGroup %s", c.Pod.GenerateName, g, plan.PodGroupCreation.Name)
		}
	}
	base, err := jobsync.Reconcile(s.Snapshot, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rest := plan.DeepCopy().Plan
	if rest.Events = rest.Events[1:]; len(rest.Events) == 0 {
		rest.Events = nil
	}
	for i := range rest.Creations {
		rest.Creations[i].Pod.Spec.SchedulingGroup = nil
	}
	if d := cmp.Diff(base, rest); d != "" {
		t.Errorf("the gate changed more than its own step (-jobsync +gate):\n%s", d)
	}
	if job.Spec.Template.Spec.SchedulingGroup != nil {
		t.Error("the Job's template was modified")
	}
}

// A Job that is not a gang candidate (NonIndexed) gets jobsync's plan.
func TestNotACandidate(t *testing.T) {
	job := gangJob()
	mode := batchv1.NonIndexedCompletion
	job.Spec.CompletionMode = &mode
	s := workload136.Snapshot{Snapshot: jobsync.Snapshot{Job: job, Now: now}}
	plan, err := workload136.Reconcile(s, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := jobsync.Reconcile(s.Snapshot, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(workload136.Plan{Plan: base}, plan); d != "" {
		t.Errorf("plan differs from jobsync's (-want +got):\n%s", d)
	}
}

// An error of jobsync's is returned as is.
func TestError(t *testing.T) {
	if _, err := workload136.Reconcile(workload136.Snapshot{}, jobsync.Options{}); err == nil {
		t.Error("no error for a snapshot without a Job")
	}
}

// The gate's note comes after the notes of the claims, as upstream takes
// the step after claiming: a pod of another owner and an orphan the Job
// does not adopt (it is being deleted) each leave a note first.
func TestNoteAfterClaimNotes(t *testing.T) {
	job := gangJob()
	job.Status.StartTime = &metav1.Time{Time: now.Add(-time.Minute)}
	deleted := metav1.NewTime(now)
	pods := []*corev1.Pod{
		pod(job, scenario.Pod{Name: "other", Owner: "other-uid"}),
		pod(job, scenario.Pod{Name: "orphan", Owner: "none", Deleted: &deleted}),
	}
	plan, err := workload136.Reconcile(workload136.Snapshot{Snapshot: jobsync.Snapshot{Job: job, Pods: pods, Now: now}}, jobsync.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Notes) < 3 || !strings.HasPrefix(plan.Notes[2], "no Workload is created") {
		t.Fatalf("notes %q, want the two claim notes, then the gate's", plan.Notes)
	}
	if plan.WorkloadCreation != nil {
		t.Error("a Job with a startTime gets a Workload")
	}
}

// The Workload rule asks whether the Job has ever had pods: a pod held in
// an ActivePods, one left out as settled, and an orphan the sync adopts
// are such pods, as is a pod of its own in Pods.
func TestPodsOutsidePodsCount(t *testing.T) {
	job := gangJob()
	running := pod(job, scenario.Pod{Name: "running", Index: ix(0)})
	orphan := pod(job, scenario.Pod{Name: "orphan", Index: ix(0), Owner: "none"})
	held := jobsync.NewActivePods(job)
	if !held.Put(running) {
		t.Fatal("the running pod is not held")
	}
	cases := map[string]jobsync.Snapshot{
		"listed":  {Job: job, Pods: []*corev1.Pod{running}, Now: now},
		"held":    {Job: job, Active: held, Now: now},
		"settled": {Job: job, SettledPods: 1, Now: now},
		"adopted": {Job: job, Pods: []*corev1.Pod{orphan}, Now: now},
	}
	for name, s := range cases {
		plan, err := workload136.Reconcile(workload136.Snapshot{Snapshot: s}, jobsync.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if plan.WorkloadCreation != nil {
			t.Errorf("%s: a Job with a pod gets a Workload", name)
		}
	}
	// And without any, it gets one: the cases test what they should.
	plan, err := workload136.Reconcile(workload136.Snapshot{Snapshot: jobsync.Snapshot{Job: job, Now: now}}, jobsync.Options{})
	if err != nil || plan.WorkloadCreation == nil {
		t.Fatalf("a Job without pods gets no Workload (error %v)", err)
	}
}
