package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// planReport is what plan prints: the plan and the clock it was made at.
type planReport struct {
	in        planInput
	now       time.Time
	nowSource string
	plan      jobsync.Plan
	// controllerName is the spec.managedBy value the plan was made for.
	controllerName string
}

// planDocument is the yaml and json form, for scripts.
type planDocument struct {
	Job       string    `json:"job"`
	Now       printTime `json:"now"`
	NowSource string    `json:"nowSource"`
	// RequeueAt is Now plus Plan.RequeueAfter: when to look again, as a
	// time. It may be past the year 9999 (see printTime).
	RequeueAt *printTime   `json:"requeueAt,omitempty"`
	Plan      jobsync.Plan `json:"plan"`
}

func printPlan(w io.Writer, format outputFormat, r planReport) error {
	doc := planDocument{Job: r.in.job.Namespace + "/" + r.in.job.Name, Now: printTime(r.now), NowSource: r.nowSource, Plan: r.plan}
	if r.plan.RequeueAfter > 0 {
		at := printTime(r.now.Add(r.plan.RequeueAfter))
		doc.RequeueAt = &at
	}
	switch format {
	case "json":
		b, err := machineJSON(doc)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := machineYAML(doc)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	var b strings.Builder
	writePlanText(&b, r)
	_, err := io.WriteString(w, printable(b.String()))
	return err
}

// writePlanText prints the plan in the order the controller carries it
// out, each step with its reason, then what the sync leaves behind.
func writePlanText(b *strings.Builder, r planReport) {
	job, plan := r.in.job, r.plan
	fmt.Fprintf(b, "Job %s/%s (%s) at %s (%s)\n", job.Namespace, job.Name, describeSpec(job), r.now.UTC().Format(time.RFC3339), r.nowSource)
	fmt.Fprintf(b, "Pods: %s\n", describePods(r.in.pods))
	fmt.Fprintf(b, "Status: %s\n\n", describeStatus(&job.Status))

	if plan.Skipped != "" {
		fmt.Fprintf(b, "The controller skips this sync: %s.\n", plan.Skipped)
		if m := job.Spec.ManagedBy; m != nil && *m != r.controllerName {
			fmt.Fprintf(b, "(--controller-name %s plans as that controller would.)\n", *m)
		}
	}
	names := podNames(r.in.pods)
	var steps []string
	step := func(format string, args ...any) { steps = append(steps, fmt.Sprintf(format, args...)) }
	for _, c := range plan.Releases {
		step("release pod %s (remove the Job's owner reference and tracking finalizer)\n     why: %s", c.Pod.Name, c.Reason)
	}
	for _, c := range plan.Adoptions {
		step("adopt pod %s (add the Job's owner reference and tracking finalizer)\n     why: %s", c.Pod.Name, c.Reason)
	}
	for _, d := range plan.Deletions {
		how := ""
		if d.RemoveFinalizer {
			how = " (removing its tracking finalizer first)"
		}
		step("delete pod %s%s\n     why: %s", d.Pod.Name, how, d.Reason)
	}
	for _, c := range plan.Creations {
		what := c.Pod.GenerateName + "*"
		if c.CompletionIndex != nil {
			what += fmt.Sprintf(" (index %d)", *c.CompletionIndex)
		}
		if g := c.Pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
			what += " in PodGroup " + *g.PodGroupName
		}
		step("create pod %s\n     why: %s", what, c.Reason)
	}
	prev := &job.Status
	if plan.InterimStatus != nil {
		step("write status (before any finalizer is removed):%s", statusChanges(prev, plan.InterimStatus, names))
		prev = plan.InterimStatus
	}
	for _, f := range plan.FinalizerRemovals {
		step("remove the tracking finalizer of pod %s\n     why: %s", f.Pod.Name, f.Reason)
	}
	if plan.Status != nil {
		step("write status:%s", statusChanges(prev, plan.Status, names))
	}
	if plan.RequeueAfter > 0 {
		step("sync again in %v (at %s)", plan.RequeueAfter, r.now.Add(plan.RequeueAfter).UTC().Format(time.RFC3339))
	}
	if len(steps) == 0 && plan.Skipped == "" {
		b.WriteString("The controller has nothing to do.\n")
	} else if len(steps) > 0 {
		b.WriteString("What the controller does, in this order:\n")
		for i, s := range steps {
			fmt.Fprintf(b, "%2d. %s\n", i+1, s)
		}
	}
	if len(plan.Events) > 0 {
		b.WriteString("\nEvents:\n")
		for _, e := range plan.Events {
			fmt.Fprintf(b, "  %s %s: %s\n", e.Type, e.Reason, e.Message)
		}
	}
	if len(plan.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range plan.Notes {
			fmt.Fprintf(b, "  - %s\n", n)
		}
	}
	b.WriteString("\nController memory for the next sync:\n")
	fmt.Fprintf(b, "  expectations: %s\n", describeExpectations(plan, names))
	fmt.Fprintf(b, "  backoff: %s\n", describeBackoff(plan))
}

func describeSpec(job *batchv1.Job) string {
	var parts []string
	if job.Spec.CompletionMode != nil {
		parts = append(parts, string(*job.Spec.CompletionMode))
	}
	if job.Spec.Completions != nil {
		parts = append(parts, fmt.Sprintf("completions %d", *job.Spec.Completions))
	} else {
		parts = append(parts, "no completions (work queue)")
	}
	if job.Spec.Parallelism != nil {
		parts = append(parts, fmt.Sprintf("parallelism %d", *job.Spec.Parallelism))
	}
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		parts = append(parts, "suspended")
	}
	return strings.Join(parts, ", ")
}

// describePods counts the pods by phase, in the order of a pod's life.
func describePods(pods []*corev1.Pod) string {
	if len(pods) == 0 {
		return "none"
	}
	count := map[string]int{}
	for _, p := range pods {
		phase := string(p.Status.Phase)
		if phase == "" {
			phase = "Pending"
		}
		if p.DeletionTimestamp != nil {
			phase += " (terminating)"
		}
		count[phase]++
	}
	var parts []string
	for _, phase := range []string{"Pending", "Running", "Succeeded", "Failed", "Unknown"} {
		for _, k := range []string{phase, phase + " (terminating)"} {
			if count[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
			}
		}
	}
	return fmt.Sprintf("%d (%s)", len(pods), strings.Join(parts, ", "))
}

// describeStatus is a one-line summary of a Job status.
func describeStatus(st *batchv1.JobStatus) string {
	s := fmt.Sprintf("active %d, ready %d, terminating %d, succeeded %d, failed %d",
		st.Active, deref(st.Ready), deref(st.Terminating), st.Succeeded, st.Failed)
	if st.CompletedIndexes != "" {
		s += ", completedIndexes " + st.CompletedIndexes
	}
	if st.FailedIndexes != nil && *st.FailedIndexes != "" {
		s += ", failedIndexes " + *st.FailedIndexes
	}
	if u := st.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		s += fmt.Sprintf(", uncounted %d succeeded %d failed", len(u.Succeeded), len(u.Failed))
	}
	for _, c := range st.Conditions {
		if c.Status == corev1.ConditionTrue {
			s += ", " + string(c.Type)
		}
	}
	return s
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// statusChanges lists what a status write changes, field by field, so that
// the reader sees the decision rather than the whole object.
func statusChanges(before, after *batchv1.JobStatus, names map[types.UID]string) string {
	var lines []string
	add := func(field, from, to string) {
		if from != to {
			lines = append(lines, fmt.Sprintf("%s: %s -> %s", field, from, to))
		}
	}
	add("startTime", timeText(before.StartTime), timeText(after.StartTime))
	add("active", fmt.Sprint(before.Active), fmt.Sprint(after.Active))
	add("ready", ptrText(before.Ready), ptrText(after.Ready))
	add("terminating", ptrText(before.Terminating), ptrText(after.Terminating))
	add("succeeded", fmt.Sprint(before.Succeeded), fmt.Sprint(after.Succeeded))
	add("failed", fmt.Sprint(before.Failed), fmt.Sprint(after.Failed))
	add("completedIndexes", quoted(before.CompletedIndexes), quoted(after.CompletedIndexes))
	add("failedIndexes", strPtrText(before.FailedIndexes), strPtrText(after.FailedIndexes))
	bu, au := uncounted(before), uncounted(after)
	add("uncountedTerminatedPods.succeeded", uidList(bu.Succeeded, names), uidList(au.Succeeded, names))
	add("uncountedTerminatedPods.failed", uidList(bu.Failed, names), uidList(au.Failed, names))
	add("completionTime", timeText(before.CompletionTime), timeText(after.CompletionTime))
	for _, c := range after.Conditions {
		old := findCondition(before.Conditions, c.Type)
		if old != nil && old.Status == c.Status && old.Reason == c.Reason && old.Message == c.Message {
			continue
		}
		from := "none"
		if old != nil {
			from = string(old.Status)
		}
		lines = append(lines, fmt.Sprintf("condition %s: %s -> %s (reason %s: %q)", c.Type, from, c.Status, c.Reason, c.Message))
	}
	for _, c := range before.Conditions {
		if findCondition(after.Conditions, c.Type) == nil {
			lines = append(lines, fmt.Sprintf("condition %s: removed", c.Type))
		}
	}
	if len(lines) == 0 {
		return " no field changes"
	}
	return "\n       " + strings.Join(lines, "\n       ")
}

func findCondition(list []batchv1.JobCondition, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

func uncounted(st *batchv1.JobStatus) batchv1.UncountedTerminatedPods {
	if st.UncountedTerminatedPods == nil {
		return batchv1.UncountedTerminatedPods{}
	}
	return *st.UncountedTerminatedPods
}

// uidList prints pods by name where the input has them: UIDs mean nothing
// to a reader.
func uidList(uids []types.UID, names map[types.UID]string) string {
	out := make([]string, len(uids))
	for i, u := range uids {
		if n, ok := names[u]; ok {
			out[i] = n
		} else {
			out[i] = "uid " + string(u)
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func podNames(pods []*corev1.Pod) map[types.UID]string {
	m := make(map[types.UID]string, len(pods))
	for _, p := range pods {
		m[p.UID] = p.Name
	}
	return m
}

func timeText(t *metav1.Time) string {
	if t == nil || t.IsZero() {
		return "unset"
	}
	return t.UTC().Format(time.RFC3339)
}

func ptrText(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

func strPtrText(p *string) string {
	if p == nil {
		return "unset"
	}
	return quoted(*p)
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

func describeExpectations(plan jobsync.Plan, names map[types.UID]string) string {
	e := plan.Expectations
	var parts []string
	if e.Creations > 0 {
		parts = append(parts, plural(int(e.Creations), "pod creation"))
	}
	if e.Deletions > 0 {
		parts = append(parts, plural(int(e.Deletions), "pod deletion"))
	}
	if e.FinalizerRemovals.Len() > 0 {
		parts = append(parts, "finalizer removals from "+uidList(e.FinalizerRemovals.Sorted(), names))
	}
	if e.JobFinished {
		parts = append(parts, "the Job to show its terminal condition")
	}
	if len(parts) == 0 {
		return "none"
	}
	return "waiting to observe " + strings.Join(parts, ", ")
}

func describeBackoff(plan jobsync.Plan) string {
	r := plan.Backoff
	if r.LastFailureTime == nil {
		return "no failure since the last success"
	}
	return fmt.Sprintf("%s since the last success, the last at %s", plural(int(r.FailuresAfterLastSuccess), "failure"), r.LastFailureTime.UTC().Format(time.RFC3339))
}

// plural is "1 pod" and "2 pods": English for the counts jobsim prints.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
