package scenarios

import (
	"flag"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var sideBySideAll = flag.Bool("sidebyside.all", false, "run every scenario of the suite side by side (CI runs a representative few)")

// timeTolerance is how far apart the two controllers' startTime and
// completionTime (each relative to its own Job's creation) may be. Both
// Jobs live in real time on one loaded 2-core machine: the API server
// writes times in whole seconds, each controller syncs on its own workers
// after its own informer delivers, and the pod-failure backoff is counted
// from those second-rounded times. Two seconds covers one rounding on each
// side plus scheduling jitter; a difference in what a controller waits for
// (a missed requeue, a backoff computed otherwise) shows as more.
const timeTolerance = 2 * time.Second

// representative are the scenarios CI runs side by side: each exercises a
// different part of the controller (counting, backoff, failure policy,
// per-index limits, suspension, elasticity, ownership).
var representative = map[string]bool{
	"indexed": true, "backofflimit": true, "podfailurepolicy": true, "backofflimitperindex": true,
	"suspend-resume": true, "elastic-scale-down": true, "adopt-release": true,
}

// TestSideBySide runs upstream's Job controller and ours on one API server,
// each on its own twin of the scenario's Job, the kubelet player driving
// both Jobs' pods from one script, and compares how they end.
func TestSideBySide(t *testing.T) {
	devs := loadSideBySideDeviations(t)
	var mu sync.Mutex
	var rows []sbsRow
	for _, sc := range suite() {
		if !*sideBySideAll && !representative[sc.name] {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
			ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
			recs := e.runJobs(sc, up, ours)
			if recs == nil {
				return
			}
			row := compareRun(t, devs, sc, recs[0], recs[1], true, timeTolerance)
			for _, d := range row.listed {
				t.Logf("listed deviation: %s", d)
			}
			mu.Lock()
			rows = append(rows, row)
			mu.Unlock()
		})
	}
	t.Cleanup(func() { writeSideBySideReport(t, "side by side", rows) })
}

// difference is one field on which the two controllers' Jobs ended apart.
type difference struct {
	field          string
	upstream, ours string
}

func (d difference) String() string {
	return fmt.Sprintf("%s: upstream %s, ours %s", d.field, d.upstream, d.ours)
}

// compare lists the fields on which two records differ: the final status
// (counters, indexes, conditions with reasons and messages, start and
// completion times relative to creation within tol) and, when calls is
// set, the pods each controller created and deleted and the events it
// recorded by reason.
func compare(up, ours *record, calls bool, tol time.Duration) []difference {
	var out []difference
	add := func(field string, u, o any) {
		us, os := fmt.Sprint(u), fmt.Sprint(o)
		if us != os {
			out = append(out, difference{field, us, os})
		}
	}
	a, b := up.Outcome, ours.Outcome
	add("gone", a.Gone, b.Gone)
	if a.Gone && b.Gone {
		// A deleted Job's last status seen is a moment of its life, not
		// an outcome; what matters is that nothing was left behind, which
		// judge checks.
		return out
	}
	add("active", a.Active, b.Active)
	add("succeeded", a.Succeeded, b.Succeeded)
	add("failed", a.Failed, b.Failed)
	add("completedIndexes", a.CompletedIndexes, b.CompletedIndexes)
	add("failedIndexes", deref(a.FailedIndexes), deref(b.FailedIndexes))
	add("uncountedTerminatedPods", a.Uncounted, b.Uncounted)
	add("conditions", conditionList(a.Conditions, up.Job), conditionList(b.Conditions, ours.Job))
	for _, f := range []struct {
		name string
		u, o *time.Duration
	}{{"startTime", a.StartTime, b.StartTime}, {"completionTime", a.CompletionTime, b.CompletionTime}} {
		switch {
		case (f.u == nil) != (f.o == nil):
			add(f.name, durationOrNil(f.u), durationOrNil(f.o))
		case f.u != nil && absDuration(*f.u-*f.o) > tol:
			out = append(out, difference{f.name + fmt.Sprintf(" (beyond %v)", tol), durationOrNil(f.u), durationOrNil(f.o)})
		}
	}
	if calls {
		add("pods created", up.Calls["create pods"], ours.Calls["create pods"])
		add("pods deleted", up.Calls["delete pods"], ours.Calls["delete pods"])
		add("events", eventList(up.Events), eventList(ours.Events))
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func durationOrNil(d *time.Duration) string {
	if d == nil {
		return "<nil>"
	}
	return d.Round(time.Second).String()
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// conditionList prints conditions sorted by type, with the names of the
// Job and its pods in messages made alike ("<job>", "<job>-<pod>"): the
// twin Jobs differ by name only.
func conditionList(cs []condition, job string) string {
	podName := regexp.MustCompile(regexp.QuoteMeta(job) + `-[a-z0-9]{5}\b`)
	var out []string
	for _, c := range cs {
		msg := podName.ReplaceAllString(c.Message, "<job>-<pod>")
		msg = strings.ReplaceAll(msg, job, "<job>")
		out = append(out, fmt.Sprintf("%s=%s/%s %q", c.Type, c.Status, c.Reason, msg))
	}
	sort.Strings(out)
	return "[" + strings.Join(out, ", ") + "]"
}

func eventList(ev map[string]int) string {
	var out []string
	for r, n := range ev {
		out = append(out, fmt.Sprintf("%s×%d", r, n))
	}
	sort.Strings(out)
	return "[" + strings.Join(out, " ") + "]"
}

// sbsDeviations are the side-by-side entries of conformance/DEVIATIONS.md:
// lines "- sidebyside: `<scenario pattern> <field>` <reason>", the pattern
// as path.Match reads it, the field as compare names it.
type sbsDeviations []struct{ pattern, field string }

var sbsLine = regexp.MustCompile("^- sidebyside: `([^ `]+) ([^`]+)`")

func loadSideBySideDeviations(t *testing.T) sbsDeviations {
	t.Helper()
	data, err := os.ReadFile("../../../conformance/DEVIATIONS.md")
	if err != nil {
		t.Fatalf("reading the deviations: %v", err)
	}
	var out sbsDeviations
	for _, line := range strings.Split(string(data), "\n") {
		if m := sbsLine.FindStringSubmatch(line); m != nil {
			out = append(out, struct{ pattern, field string }{m[1], m[2]})
		}
	}
	return out
}

// split separates the differences DEVIATIONS.md lists for scenario from
// the others.
func (d sbsDeviations) split(scenario string, diffs []difference) (unlisted, listed []difference) {
	for _, diff := range diffs {
		ok := false
		for _, dev := range d {
			if m, _ := path.Match(dev.pattern, scenario); m && strings.HasPrefix(diff.field, dev.field) {
				ok = true
			}
		}
		if ok {
			listed = append(listed, diff)
		} else {
			unlisted = append(unlisted, diff)
		}
	}
	return unlisted, listed
}

// sbsRow is one side-by-side scenario's result.
type sbsRow struct {
	scenario      string
	up, ours      *record
	diffs, listed []difference
	note          string
	// timing says the first run differed and a rerun was identical.
	timing bool
}

// writeSideBySideReport appends a table of side-by-side rows to
// -scenarios.report, if set.
func writeSideBySideReport(t *testing.T, title string, rows []sbsRow) {
	if *reportFlag == "" || len(rows) == 0 {
		return
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].scenario < rows[j].scenario })
	identical, listed, differ, timing := 0, 0, 0, 0
	var b strings.Builder
	b.WriteString("| scenario | outcome (both) | upstream: writes, time | ours: writes, time | result |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		result := "identical"
		switch {
		case r.timing:
			timing++
			var ds []string
			for _, d := range r.diffs {
				ds = append(ds, d.String())
			}
			result = "timing-dependent: first run " + strings.Join(ds, "; ")
		case len(r.diffs) > 0:
			differ++
			var ds []string
			for _, d := range r.diffs {
				ds = append(ds, d.String())
			}
			result = "**differs**: " + strings.Join(ds, "; ")
		case len(r.listed) > 0:
			listed++
			result = "listed deviation"
		default:
			identical++
		}
		if r.note != "" {
			result += " (" + r.note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %d, %.1fs | %d, %.1fs | %s |\n", r.scenario, describe(r.up.Outcome),
			writes(r.up.Calls), r.up.Wall.Seconds(), writes(r.ours.Calls), r.ours.Wall.Seconds(), result)
	}
	head := fmt.Sprintf("\n%s (%s): %d scenarios, %d identical, %d identical on a rerun (timing-dependent), %d listed deviations, %d differences\n\n",
		title, time.Now().UTC().Format("2006-01-02 15:04 MST"), len(rows), identical, timing, listed, differ)
	appendReport(t, head+b.String())
}

// writes counts the write calls among counts.
func writes(counts map[string]int) int {
	n := 0
	for k, v := range counts {
		if !strings.HasPrefix(k, "list ") && !strings.HasPrefix(k, "watch ") && !strings.HasPrefix(k, "get ") {
			n += v
		}
	}
	return n
}
