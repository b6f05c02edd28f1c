package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// runReport is what run prints: how the simulation was set up and its
// record.
type runReport struct {
	file, script string
	cfg          jobsynctest.Config
	faultsText   string
	verbose      bool
	afresh       bool // the input's status and creation time were cleared
	summary      bool // --summary: no timeline
	res          jobsynctest.Result
}

// runDocument is the yaml and json form, for scripts: the set-up and
// jobsynctest's Result, every step and plan included.
type runDocument struct {
	File   string             `json:"file"`
	Script string             `json:"script,omitempty"`
	Config jobsynctest.Config `json:"config"`
	Result jobsynctest.Result `json:"result"`
}

func printRun(w io.Writer, format outputFormat, r runReport) error {
	switch format {
	case "json", "yaml":
		doc := runDocument{File: r.file, Script: r.script, Config: r.cfg, Result: r.res}
		var b []byte
		var err error
		if format == "json" {
			b, err = machineJSON(doc)
			b = append(b, '\n')
		} else {
			b, err = machineYAML(doc)
		}
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	var b strings.Builder
	writeRunText(&b, r)
	_, err := io.WriteString(w, printable(b.String()))
	return err
}

func writeRunText(b *strings.Builder, r runReport) {
	job := r.res.Job
	start := r.cfg.Start
	fmt.Fprintf(b, "Job %s/%s (%s) from %s\n", job.Namespace, job.Name, describeSpec(job), r.file)
	if r.afresh {
		b.WriteString("The Job's status and creation time in the file are ignored: run starts it afresh.\n")
	}
	script := "none (pods behave at random, from the seed)"
	if r.script != "" {
		script = r.script
	}
	faults := "none"
	if r.faultsText != "" {
		faults = r.faultsText
	}
	fmt.Fprintf(b, "Script: %s\nSeed %d, start %s, faults: %s\n\n", script, r.cfg.Seed, start.UTC().Format(time.RFC3339), faults)

	if !r.summary {
		b.WriteString("ACTIVE to CONDITIONS are the Job's status as the API server holds it after each step.\n")
	}
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head := "TIME\tSTEP\tPOD\tACTIVE\tREADY\tTERM\tSUCC\tFAIL\t"
	if indexed {
		head += "INDEXES\t"
	}
	if !r.summary {
		fmt.Fprintln(tw, head+"CONDITIONS\tDETAIL")
	}
	hidden := 0
	var prev *batchv1.JobStatus
	for i := range r.res.Steps {
		s := &r.res.Steps[i]
		st := &s.Status
		quiet := s.Kind == jobsynctest.KindSync && quietSync(s, prev)
		before := prev
		prev = st
		if quiet && !r.verbose {
			hidden++
			continue
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t", offset(s.Time, start), s.Kind, dash(s.Pod),
			st.Active, deref(st.Ready), deref(st.Terminating), st.Succeeded, st.Failed)
		if indexed {
			row += indexesText(st) + "\t"
		}
		detail := s.Detail
		if s.Kind == jobsynctest.KindSync && s.Plan != nil {
			detail = syncDetail(s.Plan, before, st)
		}
		if s.Interrupted != "" {
			detail = strings.TrimSpace(detail + " (interrupted: " + s.Interrupted + ")")
		}
		fmt.Fprintln(tw, row+conditionsText(st)+"\t"+detail)
	}
	tw.Flush()

	if !r.summary {
		b.WriteString("\n") // after the timeline; the header already ends in a blank line
	}
	b.WriteString("Summary:\n")
	st := &job.Status
	finished := r.res.FinishedAt
	if finished.IsZero() {
		finished = r.res.End
	}
	fmt.Fprintf(b, "  outcome: %s\n", outcomeText(r.res, r.cfg, offset(finished, start)))
	if !r.res.TTLDeletedAt.IsZero() {
		fmt.Fprintf(b, "  deleted at %s by the TTL-after-finished controller (ttlSecondsAfterFinished %d), its pods with it\n",
			offset(r.res.TTLDeletedAt, start), *job.Spec.TTLSecondsAfterFinished)
	}
	fmt.Fprintf(b, "  pods: %d created, %d deleted by the controller\n", r.res.Created, r.res.Deleted)
	fmt.Fprintf(b, "  syncs: %d", r.res.Syncs)
	switch {
	case hidden == 1:
		b.WriteString(" (1 sync that changed nothing is not shown; -v shows it)")
	case hidden > 1:
		fmt.Fprintf(b, " (%d syncs that changed nothing are not shown; -v shows them)", hidden)
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "  succeeded %d, failed %d", st.Succeeded, st.Failed)
	if indexed {
		fmt.Fprintf(b, ", completedIndexes %q", st.CompletedIndexes)
		if st.FailedIndexes != nil {
			fmt.Fprintf(b, ", failedIndexes %q", *st.FailedIndexes)
		}
	}
	b.WriteString("\n  conditions:\n")
	if len(st.Conditions) == 0 {
		b.WriteString("    none\n")
	}
	for _, c := range st.Conditions {
		fmt.Fprintf(b, "    %s=%s at %s, reason %s: %q\n", c.Type, c.Status, offset(c.LastTransitionTime.Time, start), c.Reason, c.Message)
	}
	if r.cfg.Check {
		fmt.Fprintf(b, "  invariant checks: %s\n", plural(len(r.res.Violations), "violation"))
		for _, v := range r.res.Violations {
			fmt.Fprintf(b, "    %s at %s: %s\n", v.Rule, offset(v.Time, start), v.Detail)
		}
	}
	if f := faultCounts(r.res.Faults); f != "" {
		fmt.Fprintf(b, "  faults that struck: %s\n", f)
	}
}

// offset prints a time as the simulated time since the start, which reads
// better in a timeline than a date.
func offset(t, start time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Sub(start).String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// conditionsText lists the conditions that hold.
func conditionsText(st *batchv1.JobStatus) string {
	var out []string
	for _, c := range st.Conditions {
		if c.Status == corev1.ConditionTrue {
			out = append(out, string(c.Type))
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}

func indexesText(st *batchv1.JobStatus) string {
	out := "done:" + dash(st.CompletedIndexes)
	if st.FailedIndexes != nil {
		out += " failed:" + dash(*st.FailedIndexes)
	}
	return out
}

// outcomeText says how the run ended, the terminal condition's reason
// included, and for a run that did not finish why.
func outcomeText(res jobsynctest.Result, cfg jobsynctest.Config, took string) string {
	out := string(res.Outcome)
	for _, c := range res.Job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			out += " (" + c.Reason + ")"
		}
	}
	out += " after " + took
	if why := unfinished(res, cfg); why != "" {
		out += ": " + why
	}
	return out
}

func faultCounts(f jobsynctest.FaultCounts) string {
	var out []string
	for _, c := range []struct {
		n    int
		what string
	}{
		{f.APIErrors, "API error"}, {f.Conflicts, "conflict"}, {f.Rejections, "rejected status"},
		{f.Crashes, "controller crash"}, {f.Stalls, "stalled watch"}, {f.PodDeletes, "pod deletion by a user"},
		{f.Disruptions, "disruption"}, {f.JobChanges, "change to the Job"},
	} {
		if c.n > 0 {
			out = append(out, fmt.Sprintf("%d × %s", c.n, c.what))
		}
	}
	return strings.Join(out, ", ")
}

// quietSync reports whether a sync changed nothing anyone could see: no
// pod action, no event, the Job's status as it was. Such syncs (the one
// that follows the controller's own status write, a requeue that finds the
// backoff still running) would fill the timeline, so only -v shows them.
func quietSync(s *jobsynctest.StepRecord, prev *batchv1.JobStatus) bool {
	p := s.Plan
	if p == nil || s.Interrupted != "" || prev == nil {
		return false
	}
	if len(p.Releases)+len(p.Adoptions)+len(p.Deletions)+len(p.Creations)+len(p.FinalizerRemovals)+len(p.Events) > 0 {
		return false
	}
	return equality.Semantic.DeepEqual(*prev, s.Status)
}

// syncDetail says what a sync did and why, from its plan: the pod actions
// with their reasons, the events, and the notes on what it did not do.
func syncDetail(p *jobsync.Plan, before, after *batchv1.JobStatus) string {
	var parts []string
	if p.Skipped != "" {
		parts = append(parts, "skipped: "+p.Skipped)
	}
	if n := len(p.Releases); n > 0 {
		parts = append(parts, "release "+plural(n, "pod"))
	}
	if n := len(p.Adoptions); n > 0 {
		parts = append(parts, "adopt "+plural(n, "pod"))
	}
	if n := len(p.Deletions); n > 0 {
		reasons := make([]string, n)
		for i, d := range p.Deletions {
			reasons[i] = d.Reason
		}
		parts = append(parts, fmt.Sprintf("delete %s (%s)", plural(n, "pod"), distinct(reasons)))
	}
	if n := len(p.Creations); n > 0 {
		var ixs, reasons []string
		for _, c := range p.Creations {
			reasons = append(reasons, c.Reason)
			if c.CompletionIndex != nil {
				ixs = append(ixs, fmt.Sprint(*c.CompletionIndex))
			}
		}
		if len(ixs) == n {
			parts = append(parts, fmt.Sprintf("create %s for index %s", plural(n, "pod"), strings.Join(ixs, ",")))
		} else {
			parts = append(parts, fmt.Sprintf("create %s (%s)", plural(n, "pod"), distinct(reasons)))
		}
	}
	if n := len(p.FinalizerRemovals); n > 0 {
		reasons := make([]string, n)
		for i, f := range p.FinalizerRemovals {
			reasons[i] = f.Reason
		}
		parts = append(parts, fmt.Sprintf("remove %s (%s)", plural(n, "finalizer"), distinct(reasons)))
	}
	for _, e := range p.Events {
		parts = append(parts, "event "+e.Reason)
	}
	parts = append(parts, p.Notes...)
	if p.RequeueAfter > 0 {
		parts = append(parts, "requeue in "+p.RequeueAfter.String())
	}
	if len(parts) == 0 {
		return "update status" + counterChanges(before, after)
	}
	return strings.Join(parts, "; ")
}

// distinct joins the different reasons, each with its count when it
// applies to more than one pod, in the order first seen.
func distinct(reasons []string) string {
	count := map[string]int{}
	var order []string
	for _, r := range reasons {
		if count[r] == 0 {
			order = append(order, r)
		}
		count[r]++
	}
	if len(order) == 1 {
		return order[0]
	}
	for i, r := range order {
		if count[r] > 1 {
			order[i] = fmt.Sprintf("%d: %s", count[r], r)
		}
	}
	return strings.Join(order, "; ")
}

// counterChanges names the counters a status-only sync changed, such as
// " (ready 0 -> 2)": the sync that follows pods becoming ready.
func counterChanges(before, after *batchv1.JobStatus) string {
	if before == nil {
		return ""
	}
	var out []string
	for _, c := range []struct {
		name     string
		was, now int32
	}{
		{"active", before.Active, after.Active}, {"ready", deref(before.Ready), deref(after.Ready)},
		{"terminating", deref(before.Terminating), deref(after.Terminating)},
		{"succeeded", before.Succeeded, after.Succeeded}, {"failed", before.Failed, after.Failed},
	} {
		if c.was != c.now {
			out = append(out, fmt.Sprintf("%s %d -> %d", c.name, c.was, c.now))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, ", ") + ")"
}
