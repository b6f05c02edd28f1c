package metrics

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
)

// Outcome is what carrying out a plan did, as far as the metrics need it.
type Outcome struct {
	// Err says the sync ended with an error (it is retried).
	Err bool
	// Created counts the pod creations that succeeded, CreateFailed those
	// that were tried and failed (a refusal because the namespace is being
	// deleted is neither).
	Created, CreateFailed int
	// InterimStatusWritten and StatusWritten say which of the plan's status
	// writes were made.
	InterimStatusWritten, StatusWritten bool
}

// Add is one increment of one counter: Metric is the metric's name without
// the subsystem, Labels its label values in the metric's label order.
// A zero Value still creates the series, as upstream's does.
type Add struct {
	Metric string
	Labels []string
	Value  float64
}

// Record is what one sync contributes to the Job controller's metrics.
type Record struct {
	// Counted says the sync is counted in job_syncs_total and
	// job_sync_duration_seconds; upstream leaves out syncs skipped before
	// any decision (a finished Job, another controller's, an unknown
	// completion mode).
	Counted bool
	// CompletionMode, Result and Action are the labels of the sync metrics.
	CompletionMode, Result, Action string
	// Adds are the other counters' increments, in the order upstream makes
	// them.
	Adds []Add
}

// Metric names (without the subsystem) used in Add.Metric.
const (
	nameJobsFinished        = "jobs_finished_total"
	namePodsFinished        = "job_pods_finished_total"
	nameFinishedIndexes     = "job_finished_indexes_total"
	namePodFailuresByPolicy = "pod_failures_handled_by_failure_policy_total"
	namePodsCreated         = "job_pods_creation_total"
)

// The plan notes that tell why manage created nothing though the Job
// wanted more pods, or why manage did not run. They are the library's
// wording; the table tests run the library, so a change of wording fails
// them rather than skewing the action label silently.
var (
	wantedMoreNotes = []string{
		"no pods are created: pod-failure backoff",
		"no pods are created: every pending index is in its pod-failure backoff",
		"no pods are created: the pod template has no labels",
	}
	waitingNotes = []string{
		"no pods are created or deleted: waiting to observe",
		"the Job is not declared finished: pod creations or deletions are still expected",
	}
	policyReason = regexp.MustCompile(`podFailurePolicy rule \d+ (\w+)$`)
)

// ForSync derives the metrics of one sync of job (as the sync read it
// from the cache) that Reconcile planned as plan and the executor carried
// out with outcome out. It reads, never modifies, its arguments.
func ForSync(job *batchv1.Job, plan jobsync.Plan, out Outcome) Record {
	if job == nil || plan.Skipped != "" {
		return Record{}
	}
	mode := CompletionMode(job)
	rec := Record{Counted: true, CompletionMode: mode, Result: ResultSuccess, Action: action(job, plan)}
	if out.Err {
		rec.Result = ResultError
	}
	// Creations are counted as they are made (before any status write).
	// Upstream's status="succeeded" series counts every creation it
	// attempted, the failed ones included, and status="failed" the failed
	// ones once more; the counters follow it, so that dashboards built on
	// kube-controller-manager read the same here.
	if len(plan.Creations) > 0 {
		reason := creationReason(job, plan)
		if attempted := out.Created + out.CreateFailed; attempted > 0 {
			rec.Adds = append(rec.Adds, Add{namePodsCreated, []string{reason, Succeeded}, float64(attempted)})
		}
		if out.CreateFailed > 0 {
			rec.Adds = append(rec.Adds, Add{namePodsCreated, []string{reason, Failed}, float64(out.CreateFailed)})
		}
	}
	prev := &job.Status
	if plan.InterimStatus != nil && out.InterimStatusWritten {
		rec.Adds = append(rec.Adds, podsFinished(job, prev, plan.InterimStatus)...)
		prev = plan.InterimStatus
	}
	// Failures matched by the pod failure policy count once the
	// write-ahead status holding them is written (or none was needed).
	if plan.InterimStatus == nil || out.InterimStatusWritten {
		rec.Adds = append(rec.Adds, policyActions(job, plan)...)
	}
	if plan.Status != nil && out.StatusWritten {
		if c := newTerminal(job, plan.Status); c != nil {
			result := Failed
			if c.Type == batchv1.JobComplete {
				result = Succeeded
			}
			rec.Adds = append(rec.Adds, Add{nameJobsFinished, []string{mode, result, c.Reason}, 1})
		}
		rec.Adds = append(rec.Adds, podsFinished(job, prev, plan.Status)...)
	}
	return rec
}

// CompletionMode is the completion_mode label of job: Indexed or
// NonIndexed (the default).
func CompletionMode(job *batchv1.Job) string {
	if job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion {
		return string(batchv1.IndexedCompletion)
	}
	return string(batchv1.NonIndexedCompletion)
}

// action tells what the sync did about the number of pods, as upstream's
// label does: only a sync that reached manage (expectations satisfied, Job
// neither finishing nor being deleted) says anything but reconciling.
func action(job *batchv1.Job, plan jobsync.Plan) string {
	if job.DeletionTimestamp != nil || finishing(job, plan) || hasNote(plan, waitingNotes) {
		return ActionReconciling
	}
	switch {
	case job.Spec.Suspend != nil && *job.Spec.Suspend, len(plan.Deletions) > 0:
		return ActionPodsDeleted
	case len(plan.Creations) > 0, hasNote(plan, wantedMoreNotes), wantedMore(job, plan):
		return ActionPodsCreated
	}
	return ActionTracking
}

// wantedMore reports whether the Job wanted more pods than it had active,
// counting terminating pods as upstream's manage does, whether or not a
// pod could be created: upstream labels such a sync pods_created even when
// it creates none, as an Indexed Job does whose missing pods have no
// pending index left to take (the others running, succeeded or failed for
// good). The counts are those of the status after the sync, which a sync
// that neither creates nor deletes leaves as manage found them.
func wantedMore(job *batchv1.Job, plan jobsync.Plan) bool {
	st := lastStatus(job, plan)
	parallelism := int32(1)
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	want := parallelism
	switch {
	case job.Spec.Completions != nil:
		want = max(0, min(*job.Spec.Completions-st.Succeeded, parallelism))
	case st.Succeeded > 0:
		want = st.Active // a work queue that saw a success starts nothing new
	}
	var terminating int32
	if job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed && st.Terminating != nil {
		terminating = *st.Terminating
	}
	return want-terminating-st.Active > 0
}

// lastStatus is the status the sync leaves: the final one it writes, else
// the write-ahead one, else the Job's.
func lastStatus(job *batchv1.Job, plan jobsync.Plan) *batchv1.JobStatus {
	switch {
	case plan.Status != nil:
		return plan.Status
	case plan.InterimStatus != nil:
		return plan.InterimStatus
	}
	return &job.Status
}

// finishing reports whether the sync decided, or found, that the Job
// finishes: then upstream deletes the remaining pods without reaching
// manage. Completions reached is decided after manage, so it does not
// count unless a previous sync recorded it.
func finishing(job *batchv1.Job, plan jobsync.Plan) bool {
	for _, c := range job.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobFailureTarget || c.Type == batchv1.JobSuccessCriteriaMet) {
			return true
		}
	}
	for _, st := range []*batchv1.JobStatus{plan.InterimStatus, plan.Status} {
		if st == nil {
			continue
		}
		for _, c := range st.Conditions {
			if c.Status != corev1.ConditionTrue || c.Reason == batchv1.JobReasonCompletionsReached {
				continue
			}
			switch c.Type {
			case batchv1.JobFailureTarget, batchv1.JobSuccessCriteriaMet, batchv1.JobFailed, batchv1.JobComplete:
				return true
			}
		}
	}
	return false
}

func hasNote(plan jobsync.Plan, prefixes []string) bool {
	for _, n := range plan.Notes {
		for _, p := range prefixes {
			if strings.HasPrefix(n, p) {
				return true
			}
		}
	}
	return false
}

// creationReason says why the pods are created: to replace failed pods
// under podReplacementPolicy Failed, to replace failed or terminating pods
// otherwise, or new.
func creationReason(job *batchv1.Job, plan jobsync.Plan) string {
	st := lastStatus(job, plan)
	failed := int(st.Failed)
	if u := st.UncountedTerminatedPods; u != nil {
		failed += len(u.Failed)
	}
	// Under backoffLimitPerIndex the last failed pod of an index is held,
	// uncounted, until its replacement is created; upstream counts it as
	// failed all the same. The replacement says so: its index has failed.
	for _, c := range plan.Creations {
		if n, err := strconv.Atoi(c.Pod.Annotations[batchv1.JobIndexFailureCountAnnotation]); err == nil && n > 0 {
			failed++
		}
	}
	terminating := int32(0)
	if st.Terminating != nil {
		terminating = *st.Terminating
	}
	onlyFailed := job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed
	switch {
	case onlyFailed && failed > 0:
		return RecreateFailed
	case failed > 0 || terminating > 0:
		return RecreateTerminatingOrFailed
	}
	return CreateNew
}

// podsFinished is the counters' progress from the status before a write to
// the status written: pods by result, and for Indexed Jobs the indexes.
func podsFinished(job *batchv1.Job, before, after *batchv1.JobStatus) []Add {
	mode := CompletionMode(job)
	var adds []Add
	succeeded := int(after.Succeeded) - int(before.Succeeded)
	if mode == string(batchv1.IndexedCompletion) && job.Spec.Completions != nil {
		limit := int(*job.Spec.Completions)
		succeeded = 0
		if after.CompletedIndexes != before.CompletedIndexes {
			succeeded = countIndexes(&after.CompletedIndexes, limit) - countIndexes(&before.CompletedIndexes, limit)
		}
		label := BackoffGlobal
		perIndex := job.Spec.BackoffLimitPerIndex != nil
		if perIndex {
			label = BackoffPerIndex
		}
		adds = appendNonNegative(adds, nameFinishedIndexes, []string{Succeeded, label}, succeeded)
		if perIndex && !sameString(after.FailedIndexes, before.FailedIndexes) {
			if d := countIndexes(after.FailedIndexes, limit) - countIndexes(before.FailedIndexes, limit); d > 0 {
				adds = append(adds, Add{nameFinishedIndexes, []string{Failed, label}, float64(d)})
			}
		}
	}
	adds = appendNonNegative(adds, namePodsFinished, []string{mode, Succeeded}, succeeded)
	return appendNonNegative(adds, namePodsFinished, []string{mode, Failed}, int(after.Failed)-int(before.Failed))
}

// appendNonNegative adds n, zero included; a counter cannot go down, so a
// negative difference (counters of a Job scaled down) adds nothing.
func appendNonNegative(adds []Add, metric string, labels []string, n int) []Add {
	if n < 0 {
		return adds
	}
	return append(adds, Add{metric, labels, float64(n)})
}

func countIndexes(s *string, limit int) int {
	if s == nil {
		return 0
	}
	return indexes.ParseLenient(*s, limit).Total()
}

func sameString(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// policyActions counts the failed pods released in this sync that a pod
// failure policy rule matched, by the rule's action, leaving out the pods
// an earlier sync already recorded as uncounted failures.
func policyActions(job *batchv1.Job, plan jobsync.Plan) []Add {
	if job.Spec.PodFailurePolicy == nil {
		return nil
	}
	var seen []string
	counts := map[string]int{}
	for _, r := range plan.FinalizerRemovals {
		m := policyReason.FindStringSubmatch(r.Reason)
		if m == nil {
			continue
		}
		if u := job.Status.UncountedTerminatedPods; u != nil && slices.Contains(u.Failed, r.Pod.UID) {
			continue
		}
		if counts[m[1]] == 0 {
			seen = append(seen, m[1])
		}
		counts[m[1]]++
	}
	var adds []Add
	for _, a := range seen {
		adds = append(adds, Add{namePodFailuresByPolicy, []string{a}, float64(counts[a])})
	}
	return adds
}

// newTerminal returns the Complete or Failed condition st sets that job
// does not have yet.
func newTerminal(job *batchv1.Job, st *batchv1.JobStatus) *batchv1.JobCondition {
	for i, c := range st.Conditions {
		if c.Status != corev1.ConditionTrue || (c.Type != batchv1.JobComplete && c.Type != batchv1.JobFailed) {
			continue
		}
		if !slices.ContainsFunc(job.Status.Conditions, func(o batchv1.JobCondition) bool {
			return o.Type == c.Type && o.Status == corev1.ConditionTrue
		}) {
			return &st.Conditions[i]
		}
	}
	return nil
}
