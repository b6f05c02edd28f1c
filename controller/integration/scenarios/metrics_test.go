package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	compmetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	jobmetrics "github.com/jobsync/jobsync/controller/metrics"
)

// comparedMetrics are the Job controller counters whose movement depends
// on what happened to the Jobs and their pods, not on when the syncs ran:
// the sync counts and durations, and stale skips, are left out.
var comparedMetrics = []string{
	"job_controller_jobs_finished_total",
	"job_controller_job_pods_finished_total",
	"job_controller_job_finished_indexes_total",
	"job_controller_job_pods_creation_total",
	"job_controller_pod_failures_handled_by_failure_policy_total",
	"job_controller_terminated_pods_tracking_finalizer_total",
	"job_controller_jobs_by_external_controller_total",
}

// TestSideBySideMetrics runs the representative scenarios one at a time
// (upstream's counters are the process's) through upstream's controller,
// whose metrics are in the legacy registry, and ours, whose metrics are in
// a registry of the test's, and compares how each one's counters moved.
func TestSideBySideMetrics(t *testing.T) {
	ours := compmetrics.NewKubeRegistry()
	jobmetrics.RegisterIn(ours)
	for _, sc := range suite() {
		if !representative[sc.name] {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			e := newEnv(t)
			upCtl := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
			oursCtl := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
			upBefore, oursBefore := counters(t, legacyregistry.DefaultGatherer), counters(t, ours)
			if recs := e.runJobs(sc, upCtl, oursCtl); recs == nil {
				return
			}
			// Stopped, neither moves its counters any more.
			upCtl.stop()
			oursCtl.stop()
			up, our := moved(upBefore, counters(t, legacyregistry.DefaultGatherer)), moved(oursBefore, counters(t, ours))
			for _, k := range slices.Sorted(maps.Keys(union(up, our))) {
				if up[k] != our[k] {
					t.Errorf("%s: upstream moved %v, ours %v", k, up[k], our[k])
				}
			}
			t.Logf("counters moved (upstream): %v", up)
		})
	}
}

// counters reads the compared counters of g as series -> value.
func counters(t *testing.T, g prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if !slices.Contains(comparedMetrics, f.GetName()) {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetCounter().GetValue()
		}
	}
	return out
}

// moved is after minus before, series that did not move left out.
func moved(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func union(a, b map[string]float64) map[string]float64 {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// TestSideBySideMetricsRefusedCreations runs a Job under a quota smaller
// than its parallelism through both controllers, so that creations are
// refused. How many are refused depends on when each controller retries,
// so the values are not compared; how each controller counts them is: the
// status="succeeded" series of job_pods_creation_total counts every
// creation attempted, refused ones included, as upstream's does, and
// status="failed" the refused ones, both under the same reasons.
func TestSideBySideMetricsRefusedCreations(t *testing.T) {
	ours := compmetrics.NewKubeRegistry()
	jobmetrics.RegisterIn(ours)
	e := newEnv(t)
	upCtl := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
	oursCtl := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
	upBefore, oursBefore := counters(t, legacyregistry.DefaultGatherer), counters(t, ours)
	sc := partialQuotaScenario("metrics-partial-quota", 4, 3, 1, 500*time.Millisecond, &quotaTracks{})
	recs := e.runJobs(sc, upCtl, oursCtl)
	if recs == nil {
		return
	}
	upCtl.stop()
	oursCtl.stop()
	moves := []map[string]float64{moved(upBefore, counters(t, legacyregistry.DefaultGatherer)), moved(oursBefore, counters(t, ours))}
	reasons := make([][]string, 2)
	for i, rec := range recs {
		created := map[string]float64{}
		for k, v := range moves[i] {
			if strings.HasPrefix(k, "job_controller_job_pods_creation_total{") {
				created[k] = v
				reasons[i] = append(reasons[i], strings.Split(k, ",")[0])
			}
		}
		attempted, made := rec.Calls["create pods"], len(rec.AllPods)
		succeeded, failed := sumMatching(created, `status="succeeded"`), sumMatching(created, `status="failed"`)
		if attempted == made {
			t.Fatalf("%s: the quota refused no creation (%d made): nothing to compare", rec.Controller, made)
		}
		if succeeded != float64(attempted) || failed != float64(attempted-made) {
			t.Errorf("%s: job_pods_creation_total moved succeeded %v, failed %v; %d creations attempted, %d refused: want %d and %d",
				rec.Controller, succeeded, failed, attempted, attempted-made, attempted, attempted-made)
		}
		t.Logf("%s: %d creations attempted, %d pods made; %v", rec.Controller, attempted, made, created)
	}
	slices.Sort(reasons[0])
	slices.Sort(reasons[1])
	if !slices.Equal(slices.Compact(reasons[0]), slices.Compact(reasons[1])) {
		t.Errorf("the creation reasons: upstream %v, ours %v", reasons[0], reasons[1])
	}
}

// sumMatching adds the values of the series whose labels hold label.
func sumMatching(series map[string]float64, label string) float64 {
	var sum float64
	for k, v := range series {
		if strings.Contains(k, label) {
			sum += v
		}
	}
	return sum
}
