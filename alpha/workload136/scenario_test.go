package workload136_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/alpha/workload136"
	"github.com/jobsync/jobsync/internal/testsupport/scenario"
)

var update = flag.Bool("update", false, "rewrite the expected plans of the scenario files")

// snapshotOf builds the scenario's snapshot with its scheduling objects,
// a namespace left out being the Job's.
func snapshotOf(t *testing.T, sc scenario.Scenario) workload136.Snapshot {
	t.Helper()
	s := workload136.Snapshot{Snapshot: sc.Snapshot()}
	for _, raw := range sc.Workloads {
		wl := &schedulingv1alpha2.Workload{}
		if err := json.Unmarshal(raw, wl); err != nil {
			t.Fatalf("reading a Workload: %v", err)
		}
		if wl.Namespace == "" {
			wl.Namespace = s.Job.Namespace
		}
		s.Workloads = append(s.Workloads, wl)
	}
	for _, raw := range sc.PodGroups {
		pg := &schedulingv1alpha2.PodGroup{}
		if err := json.Unmarshal(raw, pg); err != nil {
			t.Fatalf("reading a PodGroup: %v", err)
		}
		if pg.Namespace == "" {
			pg.Namespace = s.Job.Namespace
		}
		s.PodGroups = append(s.PodGroups, pg)
	}
	return s
}

// digestOf is the scenario digest of a plan, the scheduling objects in it.
func digestOf(p workload136.Plan) scenario.Digest {
	d := scenario.DigestOf(p.Plan)
	if p.WorkloadCreation != nil {
		d.Workload = p.WorkloadCreation
	}
	if p.PodGroupCreation != nil {
		d.PodGroup = p.PodGroupCreation
	}
	return d
}

// generic is v in its JSON form, decoded without types, so that a digest
// read from a file and one made from a plan compare field by field.
func generic(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScenarios decides the scenario files of the gate (upstream's
// decisions, checked by the conformance module's scenario test) and
// compares each plan with the one the file pins.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sc, input, wantText, err := scenario.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !sc.Gates.WorkloadWithJob {
				t.Fatal("the scenario does not turn the WorkloadWithJob gate on")
			}
			snap := snapshotOf(t, sc)
			plan, err := workload136.Reconcile(snap, sc.JobsyncOptions())
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}

			shuffled := snap
			shuffled.Pods = append([]*corev1.Pod(nil), snap.Pods...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled.Pods), func(i, j int) {
				shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i]
			})
			again, err := workload136.Reconcile(shuffled, sc.JobsyncOptions())
			if err != nil {
				t.Fatalf("Reconcile with shuffled pods: %v", err)
			}
			if d := cmp.Diff(plan, again); d != "" {
				t.Errorf("the order of pods changed the plan (-first +shuffled):\n%s", d)
			}

			got := digestOf(plan)
			if *update {
				out, err := yaml.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				buf.Write(bytes.TrimRight(input, "\n"))
				buf.WriteString("\n" + scenario.WantMarker)
				buf.Write(scenario.WantHeader(out))
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(wantText) == 0 {
				t.Fatalf("no expected plan; run with -update and check it")
			}
			want, err := scenario.ReadWant(wantText)
			if err != nil {
				t.Fatalf("reading expected plan: %v", err)
			}
			if d := cmp.Diff(generic(t, want), generic(t, got)); d != "" {
				t.Errorf("plan differs from %s (-want +got):\n%s", file, d)
			}
		})
	}
}
