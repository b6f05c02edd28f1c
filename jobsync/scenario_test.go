package jobsync_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/backoff"
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

// digest is the expected plan, in a form a person can check line by line.
type digest struct {
	Skipped   string   `json:"skipped,omitempty"`
	Releases  []string `json:"releases,omitempty"`
	Adoptions []string `json:"adoptions,omitempty"`
	// ClaimPatches are the claims\' strategic merge patches, releases first.
	ClaimPatches      []string                     `json:"claimPatches,omitempty"`
	Workload          *schedulingv1alpha2.Workload `json:"workloadCreation,omitempty"`
	PodGroup          *schedulingv1alpha2.PodGroup `json:"podGroupCreation,omitempty"`
	Deletions         []string                     `json:"deletions,omitempty"`
	Creations         []string                     `json:"creations,omitempty"`
	InterimStatus     *batchv1.JobStatus           `json:"interimStatus,omitempty"`
	FinalizerRemovals []string                     `json:"finalizerRemovals,omitempty"`
	Status            *batchv1.JobStatus           `json:"status,omitempty"`
	RequeueAfter      string                       `json:"requeueAfter,omitempty"`
	Events            []string                     `json:"events,omitempty"`
	Expectations      expectationsDigest           `json:"expectations"`
	Backoff           backoff.Record               `json:"backoff"`
	Notes             []string                     `json:"notes,omitempty"`
}

type expectationsDigest struct {
	Creations         int64       `json:"creations,omitempty"`
	Deletions         int64       `json:"deletions,omitempty"`
	SetAt             string      `json:"setAt,omitempty"`
	FinalizerRemovals []types.UID `json:"finalizerRemovals,omitempty"`
	JobFinished       bool        `json:"jobFinished,omitempty"`
}

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
			got := digestOf(plan)

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
				buf.Write(wantHeader(out))
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(wantText) == 0 {
				t.Fatalf("no expected plan; run with -update and check it")
			}
			var want digest
			if err := yaml.UnmarshalStrict(unwrapWant(wantText), &want); err != nil {
				t.Fatalf("reading expected plan: %v", err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("plan differs from %s (-want +got):\n%s", file, d)
			}
		})
	}
}

// wantHeader nests the marshalled digest under a "want:" key, so that the
// file reads as one YAML document.
func wantHeader(b []byte) []byte {
	var out bytes.Buffer
	out.WriteString("want:\n")
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line == "" {
			continue
		}
		out.WriteString("  " + line)
	}
	return out.Bytes()
}

func unwrapWant(b []byte) []byte {
	var wrapper struct {
		Want digest `json:"want"`
	}
	if err := yaml.UnmarshalStrict(b, &wrapper); err != nil {
		return b
	}
	out, _ := yaml.Marshal(wrapper.Want)
	return out
}

func digestOf(p jobsync.Plan) digest {
	d := digest{
		Skipped:       p.Skipped,
		InterimStatus: p.InterimStatus,
		Status:        p.Status,
		Backoff:       p.Backoff,
		Notes:         p.Notes,
		Expectations: expectationsDigest{
			Creations:         p.Expectations.Creations,
			Deletions:         p.Expectations.Deletions,
			FinalizerRemovals: p.Expectations.FinalizerRemovals.Sorted(),
			JobFinished:       p.Expectations.JobFinished,
		},
	}
	if !p.Expectations.SetAt.IsZero() {
		d.Expectations.SetAt = p.Expectations.SetAt.UTC().Format(time.RFC3339)
	}
	for _, c := range p.Releases {
		d.Releases = append(d.Releases, c.Pod.Name+": "+c.Reason)
		d.ClaimPatches = append(d.ClaimPatches, c.Pod.Name+" "+string(c.Patch))
	}
	for _, c := range p.Adoptions {
		d.Adoptions = append(d.Adoptions, c.Pod.Name+": "+c.Reason)
		d.ClaimPatches = append(d.ClaimPatches, c.Pod.Name+" "+string(c.Patch))
	}
	d.Workload, d.PodGroup = p.WorkloadCreation, p.PodGroupCreation
	for _, del := range p.Deletions {
		var flags []string
		if del.RemoveFinalizer {
			flags = append(flags, "finalizer removed first")
		}
		if del.Ready {
			flags = append(flags, "ready")
		}
		s := del.Pod.Name
		if len(flags) > 0 {
			s += " (" + strings.Join(flags, ", ") + ")"
		}
		d.Deletions = append(d.Deletions, s+": "+del.Reason)
	}
	for _, c := range p.Creations {
		s := c.Pod.GenerateName
		if v, ok := c.Pod.Annotations[batchv1.JobIndexFailureCountAnnotation]; ok {
			s += " failure-count=" + v
		}
		if v, ok := c.Pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation]; ok {
			s += " ignored-failure-count=" + v
		}
		if g := c.Pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
			s += " podGroup=" + *g.PodGroupName
		}
		d.Creations = append(d.Creations, s+": "+c.Reason)
	}
	for _, r := range p.FinalizerRemovals {
		d.FinalizerRemovals = append(d.FinalizerRemovals, r.Pod.Name+": "+r.Reason)
	}
	if p.RequeueAfter > 0 {
		d.RequeueAfter = p.RequeueAfter.String()
	}
	for _, e := range p.Events {
		d.Events = append(d.Events, e.Type+" "+e.Reason+": "+e.Message)
	}
	return d
}

func ptr[T any](v T) *T { return &v }
