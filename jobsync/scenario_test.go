package jobsync_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobsync"
)

var update = flag.Bool("update", false, "rewrite the expected plans of the scenario files")

// The scenario format lives in internal/testsupport/scenario, shared with the
// conformance module; these aliases keep the tests short.
type podShorthand = scenario.Pod

func scenarioJob(in batchv1.Job) *batchv1.Job { return scenario.Job(in) }

func podFor(job *batchv1.Job, ps podShorthand, finalizer string) *corev1.Pod {
	return scenario.PodFor(job, ps, finalizer)
}

const wantMarker = scenario.WantMarker

func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../testdata/scenarios/*.yaml")
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
			snap := sc.Snapshot()
			plan, err := jobsync.Reconcile(snap, sc.JobsyncOptions())
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			got := scenario.DigestOf(plan)

			// The same snapshot with the pods in another order decides the same.
			shuffled := snap
			shuffled.Pods = append([]*corev1.Pod(nil), snap.Pods...)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled.Pods), func(i, j int) {
				shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i]
			})
			again, err := jobsync.Reconcile(shuffled, sc.JobsyncOptions())
			if err != nil {
				t.Fatalf("Reconcile with shuffled pods: %v", err)
			}
			if d := cmp.Diff(plan, again); d != "" {
				t.Errorf("the order of pods changed the plan (-first +shuffled):\n%s", d)
			}

			if *update {
				out, err := yaml.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				buf.Write(bytes.TrimRight(input, "\n"))
				buf.WriteString("\n" + wantMarker)
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
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("plan differs from %s (-want +got):\n%s", file, d)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
