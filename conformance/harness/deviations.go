package harness

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// Deviation is one deliberate difference from upstream listed in
// DEVIATIONS.md.
type Deviation struct {
	ID    string // the heading, e.g. "D1: ..."
	Class string // the mismatch class it covers, exactly as Verdict.Class prints it
	Test  string // the test that pins the library's behaviour
	// situation recognises the deviation's snapshot and both sides'
	// outcomes (see situations).
	situation func(Verdict) bool
}

// situations recognise each deviation by more than its class: a class
// names only which fields differ, and a class as broad as "Error" (one side
// returned an error) would otherwise excuse any error of the library or of
// upstream. Each entry checks the snapshot's shape and what both sides did,
// keyed by the "D<n>" that starts the entry's heading. An entry of
// DEVIATIONS.md without a situation here is refused by LoadDeviations.
var situations = map[string]func(Verdict) bool{
	"D1": counterOverflow,
	"D2": templateWithoutLabels,
	"D3": negativeDeadline,
	"D4": workloadWithJobNotModelled,
}

// counterOverflow is D1: the library refuses a snapshot because a counter
// would pass int32, and upstream, wrapping it, returned no error.
func counterOverflow(v Verdict) bool {
	return strings.Contains(v.Library.Error, "does not fit in int32") && v.Upstream.Error == ""
}

// templateWithoutLabels is D2: a NonIndexed Job whose pod template has no
// labels, on which upstream's sync returns its pod control's refusal to
// create a pod without labels, and the library returns a plan, with no
// error, that creates nothing and expects no creation. The rest of the two
// outcomes must be equal: Allowed has checked that only Error differs.
func templateWithoutLabels(v Verdict) bool {
	job := v.Case.Snapshot.Job
	if job == nil {
		return false
	}
	if m := job.Spec.CompletionMode; m != nil && *m != batchv1.NonIndexedCompletion {
		return false
	}
	return len(job.Spec.Template.Labels) == 0 &&
		v.Upstream.Error == "unable to create pods, no labels" &&
		v.Library.Error == "" && len(v.Library.Creations) == 0 && v.Library.Expectations.Creations == 0
}

// workloadWithJobNotModelled is D4: upstream runs with the WorkloadWithJob
// gate of a release whose WorkloadWithJob the library does not model (the
// case asks for it in UpstreamGates, not in Options), and creates a
// Workload, a PodGroup or pods in a PodGroup, where the library creates
// none of them.
func workloadWithJobNotModelled(v Verdict) bool {
	if !v.Case.UpstreamGates["WorkloadWithJob"] || v.Case.Options != (jobsync.Options{}) {
		return false
	}
	if schedules(v.Library) {
		return false
	}
	return schedules(v.Upstream)
}

// schedules reports whether an outcome creates scheduling objects or pods
// that join a PodGroup.
func schedules(o Outcome) bool {
	if o.WorkloadCreation != nil || o.PodGroupCreation != nil {
		return true
	}
	for _, p := range o.Creations {
		if p.Spec.SchedulingGroup != nil {
			return true
		}
	}
	return false
}

// LoadDeviations reads the deviations listed in the Markdown file at path.
// An entry is a "### " heading followed by "- class: `...`" and
// "- test: `...`" lines (and a "- reason:" for people).
func LoadDeviations(path string) ([]Deviation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Deviation
	var cur *Deviation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Indented lines (the format example) are not entries.
		line := strings.TrimRight(sc.Text(), " \t")
		switch {
		case strings.HasPrefix(line, "### "):
			id := strings.TrimPrefix(line, "### ")
			key, _, _ := strings.Cut(id, ":")
			out = append(out, Deviation{ID: id, situation: situations[key]})
			cur = &out[len(out)-1]
		case cur != nil && strings.HasPrefix(line, "- class:"):
			cur.Class = strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "- class:")), "`")
		case cur != nil && strings.HasPrefix(line, "- test:"):
			cur.Test = strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "- test:")), "`")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, d := range out {
		if d.Class == "" || d.Test == "" {
			return nil, fmt.Errorf("%s: deviation %q needs both a class and a test", path, d.ID)
		}
		if d.situation == nil {
			return nil, fmt.Errorf("%s: deviation %q has no situation in harness/deviations.go that recognises it", path, d.ID)
		}
	}
	return out, nil
}

// Allowed returns the predicate RunFamily takes: whether a verdict's
// difference is one of the deviations. The fields that differ must be
// exactly the deviation's class, the deviation's situation must hold, and
// a status of the plan that the API server rejects is excused only when it
// rejects upstream's own status with the same objections (the library
// writes the same status; upstream's defect, reproduced).
func Allowed(devs []Deviation) func(Verdict) bool {
	return func(v Verdict) bool {
		if v.Panic != "" || v.Setup != "" || v.Settled != "" || v.Held != "" {
			return false
		}
		if len(v.Invalid) > 0 && !slices.Equal(v.Invalid, v.UpstreamInvalid) {
			return false
		}
		class := strings.Join(v.Classes, "+")
		for _, d := range devs {
			if d.Class == class && d.situation != nil && d.situation(v) {
				return true
			}
		}
		return false
	}
}

// negativeDeadline is D3: a Job with a negative activeDeadlineSeconds, which
// the library refuses naming the field, and which upstream, taking the
// deadline as passed, starts failing with DeadlineExceeded (FailureTarget,
// or Failed once no pod is left) without an error.
func negativeDeadline(v Verdict) bool {
	job := v.Case.Snapshot.Job
	if job == nil || job.Spec.ActiveDeadlineSeconds == nil || *job.Spec.ActiveDeadlineSeconds >= 0 {
		return false
	}
	if !strings.HasPrefix(v.Library.Error, "job.spec.activeDeadlineSeconds: must not be negative") || v.Upstream.Error != "" || v.Upstream.Status == nil {
		return false
	}
	for _, c := range v.Upstream.Status.Conditions {
		if (c.Type == batchv1.JobFailureTarget || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue && c.Reason == batchv1.JobReasonDeadlineExceeded {
			return true
		}
	}
	return false
}
