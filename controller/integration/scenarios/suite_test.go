package scenarios

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var controllersFlag = flag.String("scenarios.controllers", "", "comma-separated controllers the scenario suite runs: ours, upstream (default: ours when built in, else upstream)")

// suiteControllers are the controllers TestScenarios runs each scenario
// with.
func suiteControllers() []string {
	if *controllersFlag != "" {
		return strings.Split(*controllersFlag, ",")
	}
	if _, ok := starters["ours"]; ok {
		return []string{"ours"}
	}
	return []string{"upstream"}
}

// suite is the scenario suite. Pods run for about a second, so
// each scenario takes seconds; the pod-failure backoff starts at
// backoffBase.
func suite() []scenario {
	return []scenario{
		{
			name:   "nonindexed",
			job:    sizes(3, 3),
			script: jobsynctest.Script{Default: run(time.Second)},
			want:   expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 3},
		},
		{
			name:   "indexed",
			job:    all(indexed, sizes(3, 3)),
			script: jobsynctest.Script{Default: run(time.Second)},
			want:   expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 3, completedIndexes: "0-2", failedIndexes: nil},
		},
		{
			name:   "parallelism",
			job:    sizes(5, 2),
			script: jobsynctest.Script{Default: run(time.Second)},
			want:   expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 5},
			check: func(rec *record) []string {
				var bad []string
				if rec.MaxActive > 2 {
					bad = append(bad, fmt.Sprintf("%d pods active at once, parallelism is 2", rec.MaxActive))
				}
				if n := rec.Calls["create pods"]; n != 5 {
					bad = append(bad, fmt.Sprintf("%d pods created, want 5", n))
				}
				return bad
			},
		},
		{
			// A work queue: no completions; the Job is complete once a pod
			// succeeded and all have ended.
			name: "workqueue",
			job:  sizes(-1, 3),
			script: jobsynctest.Script{Default: run(2 * time.Second), Pods: []jobsynctest.PodRule{
				{Pod: ptr(0), Behavior: *run(time.Second)},
			}},
			want: expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 3},
		},
		{
			name: "backofflimit",
			job:  func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr(int32(2)) },
			script: jobsynctest.Script{
				Default: &jobsynctest.Behavior{RunTime: 500 * time.Millisecond, ExitCode: 1},
			},
			want:  expect{finished: batchv1.JobFailed, reason: "BackoffLimitExceeded", failed: 3},
			check: checkBackoff(3),
		},
		{
			// restartPolicy OnFailure: the container restarts in place and
			// its restarts count against backoffLimit.
			name: "onfailure-restarts",
			job: func(j *batchv1.Job) {
				j.Spec.BackoffLimit = ptr(int32(2))
				j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			},
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 300 * time.Millisecond, ExitCode: 1}},
			want:   expect{finished: batchv1.JobFailed, reason: "BackoffLimitExceeded", failed: 1},
		},
		{
			name:   "suspend-resume",
			job:    sizes(2, 2),
			script: jobsynctest.Script{Default: run(3 * time.Second)},
			steps:  []step{suspendAt(1500 * time.Millisecond), resumeAt(3 * time.Second)},
			want:   expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 2},
			check: func(rec *record) []string {
				var bad []string
				if !hasHistory(rec, "Suspended=True/JobSuspended") || !hasHistory(rec, "Suspended=False/JobResumed") {
					bad = append(bad, fmt.Sprintf("condition history %v lacks Suspended=True then False", rec.History))
				}
				if n := rec.Calls["delete pods"]; n < 2 {
					bad = append(bad, fmt.Sprintf("%d pod deletions, want the 2 running pods deleted on suspend", n))
				}
				if n := rec.Calls["create pods"]; n != 4 {
					bad = append(bad, fmt.Sprintf("%d pods created, want 4 (2, then 2 again on resume)", n))
				}
				return bad
			},
		},
		{
			name:   "active-deadline",
			job:    func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(int64(2)) },
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}},
			want:   expect{finished: batchv1.JobFailed, reason: "DeadlineExceeded", failed: 1},
			check: func(rec *record) []string {
				if rec.Wall < 2*time.Second {
					return []string{fmt.Sprintf("failed after %v, before its deadline of 2s", rec.Wall)}
				}
				return nil
			},
		},
		{
			// The first pod is disrupted (Ignore: not counted, replaced),
			// the second exits 42 (FailJob).
			name: "podfailurepolicy",
			job: func(j *batchv1.Job) {
				j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
					{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
						ContainerName: ptr("main"), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42},
					}},
					{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
						{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
					}},
				}}
			},
			script: jobsynctest.Script{Pods: []jobsynctest.PodRule{
				{Attempt: ptr(0), Behavior: jobsynctest.Behavior{RunTime: time.Second, Disruption: true}},
				{Attempt: ptr(1), Behavior: jobsynctest.Behavior{RunTime: time.Second, ExitCode: 42}},
			}},
			want: expect{finished: batchv1.JobFailed, reason: "PodFailurePolicy", failed: 1},
		},
		{
			// Index 1 fails twice (its backoff limit is 1): it is a failed
			// index; one failed index is allowed, so the others run to the
			// end and the Job fails then.
			name: "backofflimitperindex",
			job: all(indexed, sizes(3, 3), func(j *batchv1.Job) {
				j.Spec.BackoffLimitPerIndex = ptr(int32(1))
				j.Spec.MaxFailedIndexes = ptr(int32(1))
			}),
			script: jobsynctest.Script{Default: run(2 * time.Second), Pods: []jobsynctest.PodRule{
				{Index: ptr(1), Behavior: jobsynctest.Behavior{RunTime: 300 * time.Millisecond, ExitCode: 1}},
			}},
			want: expect{finished: batchv1.JobFailed, reason: "FailedIndexes", succeeded: 2, failed: 2, completedIndexes: "0,2", failedIndexes: ptr("1")},
		},
		{
			// Index 0 succeeding meets the success policy: the Job is
			// complete and its other pods are stopped.
			name: "successpolicy",
			job: all(indexed, sizes(3, 3), func(j *batchv1.Job) {
				j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0")}}}
			}),
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}, Pods: []jobsynctest.PodRule{
				{Index: ptr(0), Behavior: *run(time.Second)},
			}},
			want: expect{finished: batchv1.JobComplete, reason: "SuccessPolicy", succeeded: 1, completedIndexes: "0"},
		},
		{
			// podReplacementPolicy Failed: the disrupted pod is replaced
			// only once it has stopped (2s after its deletion).
			name: "podreplacement-failed",
			job: func(j *batchv1.Job) {
				j.Spec.PodReplacementPolicy = ptr(batchv1.Failed)
			},
			script: jobsynctest.Script{Default: run(time.Second), Pods: []jobsynctest.PodRule{
				{Attempt: ptr(0), Behavior: jobsynctest.Behavior{RunTime: time.Second, Disruption: true, Shutdown: 2 * time.Second}},
			}},
			want:  expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 1, failed: 1},
			check: checkReplacementAfterStop,
		},
		{
			name:   "elastic-scale-up",
			job:    all(indexed, sizes(2, 2)),
			script: jobsynctest.Script{Default: run(2 * time.Second)},
			steps:  []step{scaleAt(time.Second, 4)},
			want:   expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 4, completedIndexes: "0-3"},
		},
		{
			name: "elastic-scale-down",
			job:  all(indexed, sizes(4, 4)),
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}, Pods: []jobsynctest.PodRule{
				{Index: ptr(0), Behavior: *run(time.Second)},
				{Index: ptr(1), Behavior: *run(time.Second)},
			}},
			steps: []step{scaleAt(2500*time.Millisecond, 2)},
			want:  expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 2, completedIndexes: "0,1"},
		},
		{
			// An orphan matching the Job's selector is adopted (and counts
			// as one of its two pods); a pod that claims the Job as its
			// controller without matching the selector is released, its
			// tracking finalizer removed.
			name:   "adopt-release",
			job:    all(sizes(2, 2), manualSelector("adopt")),
			script: jobsynctest.Script{Default: run(2 * time.Second)},
			before: func(e *env, r *jobRun) {
				pod := podFor(r, r.name+"-orphan")
				if _, err := e.srv.Client.CoreV1().Pods(ns).Create(e.ctx, pod, metav1.CreateOptions{}); err != nil {
					e.t.Fatalf("creating orphan: %v", err)
				}
			},
			after: func(e *env, r *jobRun) {
				pod := podFor(r, r.name+"-stray")
				pod.Labels = map[string]string{"scenario-job": "someone-else"}
				pod.Finalizers = []string{r.ctl.finalizer}
				pod.OwnerReferences = []metav1.OwnerReference{{
					APIVersion: "batch/v1", Kind: "Job", Name: r.name, UID: r.job.UID,
					Controller: ptr(true), BlockOwnerDeletion: ptr(true),
				}}
				if _, err := e.srv.Client.CoreV1().Pods(ns).Create(e.ctx, pod, metav1.CreateOptions{}); err != nil {
					e.t.Fatalf("creating stray: %v", err)
				}
			},
			want: expect{finished: batchv1.JobComplete, reason: "CompletionsReached", succeeded: 2},
			check: func(rec *record) []string {
				var bad []string
				for _, p := range rec.Pods {
					switch p.Name {
					case rec.Job + "-orphan":
						if ref := metav1.GetControllerOf(p); ref == nil || ref.Name != rec.Job {
							bad = append(bad, fmt.Sprintf("orphan not adopted: owner references %v", p.OwnerReferences))
						}
					case rec.Job + "-stray":
						if len(p.OwnerReferences) != 0 || len(p.Finalizers) != 0 {
							bad = append(bad, fmt.Sprintf("stray not released: owner references %v, finalizers %v", p.OwnerReferences, p.Finalizers))
						}
					}
				}
				if n := rec.Calls["create pods"]; n != 1 {
					bad = append(bad, fmt.Sprintf("%d pods created, want 1 beside the adopted orphan", n))
				}
				return bad
			},
		},
		{
			// The Job is deleted while its pods run: its controller must
			// remove their tracking finalizers (the check every scenario
			// makes), or they would stay forever.
			name:      "delete-job",
			job:       sizes(2, 2),
			script:    jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}},
			steps:     []step{deleteAt(1500 * time.Millisecond)},
			untilGone: true,
			want:      expect{gone: true},
			check: func(rec *record) []string {
				if len(rec.Pods) != 2 {
					return []string{fmt.Sprintf("%d pods left, want the 2 running ones (no garbage collector runs)", len(rec.Pods))}
				}
				return nil
			},
		},
	}
}

func hasHistory(rec *record, s string) bool {
	for _, h := range rec.History {
		if h == s {
			return true
		}
	}
	return false
}

// finishedAt is when a pod's containers ended (the latest), or zero.
func finishedAt(p *corev1.Pod) time.Time {
	var t time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.Time
		}
	}
	return t
}

// checkBackoff checks the pod-recreation backoff: after the k-th failure
// (from 1) the next pod is created backoffBase·2^(k-1) later at the
// earliest. API times have whole seconds, hence a second of slack.
func checkBackoff(pods int) func(rec *record) []string {
	return func(rec *record) []string {
		if len(rec.AllPods) != pods {
			return []string{fmt.Sprintf("%d pods, want %d", len(rec.AllPods), pods)}
		}
		var bad []string
		for k := 1; k < len(rec.AllPods); k++ {
			prev, next := rec.AllPods[k-1], rec.AllPods[k]
			want := backoffBase << (k - 1)
			gap := next.CreationTimestamp.Sub(finishedAt(prev))
			if gap < want-time.Second {
				bad = append(bad, fmt.Sprintf("pod %d created %v after pod %d failed, want %v", k, gap, k-1, want))
			}
		}
		return bad
	}
}

// checkReplacementAfterStop checks that the replacement pod was created
// once the first one had stopped, not while it was terminating.
func checkReplacementAfterStop(rec *record) []string {
	if len(rec.AllPods) != 2 {
		return []string{fmt.Sprintf("%d pods, want 2", len(rec.AllPods))}
	}
	stopped := finishedAt(rec.AllPods[0])
	if rec.AllPods[1].CreationTimestamp.Time.Before(stopped) {
		return []string{fmt.Sprintf("replacement created at %v, before the first pod stopped at %v", rec.AllPods[1].CreationTimestamp, stopped)}
	}
	return nil
}

// judge returns what is wrong with a record: the outcome against want, and
// the checks every run must pass.
func judge(sc scenario, rec *record) []string {
	var bad []string
	o := rec.Outcome
	got := expect{gone: o.Gone, succeeded: o.Succeeded, failed: o.Failed, completedIndexes: o.CompletedIndexes, failedIndexes: o.FailedIndexes}
	for _, c := range o.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			got.finished, got.reason = c.Type, c.Reason
		}
	}
	if o.Gone {
		got = expect{gone: true}
	}
	if diff := cmp.Diff(sc.want, got, cmp.AllowUnexported(expect{})); diff != "" && !sc.anyOutcome {
		bad = append(bad, "outcome (-want +got):\n"+diff)
	}
	if len(rec.Rejected) > 0 {
		bad = append(bad, fmt.Sprintf("%d status writes rejected: %v", len(rec.Rejected), rec.Rejected))
	}
	if len(rec.Leftover) > 0 {
		bad = append(bad, fmt.Sprintf("pods left with the tracking finalizer: %v", rec.Leftover))
	}
	if o.Uncounted > 0 && !o.Gone {
		bad = append(bad, fmt.Sprintf("%d pods left in uncountedTerminatedPods", o.Uncounted))
	}
	if sc.check != nil {
		bad = append(bad, sc.check(rec)...)
	}
	return bad
}

// results gathers the records of TestScenarios for the report.
var results struct {
	sync.Mutex
	recs []*record
}

// TestScenarios runs the scenario suite, each scenario on an API server of
// its own, with each controller of -scenarios.controllers.
func TestScenarios(t *testing.T) {
	for _, kind := range suiteControllers() {
		for _, sc := range suite() {
			t.Run(kind+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				ctl := startController(t, e.srv.Config, controllerSpec{kind: kind, qps: -1})
				recs := e.runJobs(sc, ctl)
				if recs == nil {
					return
				}
				rec := recs[0]
				for _, b := range judge(sc, rec) {
					t.Error(b)
				}
				t.Logf("%s: %s in %v; history %v; calls: %s", rec.Job, describe(rec.Outcome), rec.Wall.Round(10*time.Millisecond), rec.History, summary(rec.Calls, true))
				results.Lock()
				results.recs = append(results.recs, rec)
				results.Unlock()
			})
		}
	}
	t.Cleanup(func() { writeReport(t, "scenarios", results.recs) })
}

// describe prints an outcome in a table cell.
func describe(o outcome) string {
	if o.Gone {
		return "deleted"
	}
	s := ""
	for _, c := range o.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			s = string(c.Type)
			if c.Reason != "" {
				s += " (" + c.Reason + ")"
			}
		}
	}
	if s == "" {
		s = "unfinished"
	}
	s += fmt.Sprintf(", succeeded %d, failed %d", o.Succeeded, o.Failed)
	if o.CompletedIndexes != "" {
		s += ", completed " + o.CompletedIndexes
	}
	if o.FailedIndexes != nil && *o.FailedIndexes != "" {
		s += ", failed indexes " + *o.FailedIndexes
	}
	return s
}
