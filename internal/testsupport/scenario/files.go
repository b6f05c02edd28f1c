package scenario

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Decide decides one scenario with the pods of its snapshot put in the
// order order gives them, and returns the plan (compared between two
// orders of the pods) and its digest (compared with the file's). It calls
// t.Fatal when the scenario cannot be decided.
type Decide func(t *testing.T, sc Scenario, order func([]*corev1.Pod) []*corev1.Pod) (plan any, digest Digest)

// RunFiles runs each scenario file that glob matches as a subtest of t:
// it decides the scenario, decides it again with the pods shuffled (the
// same plan is required), and compares the digest with the plan the file
// pins, or, when update is set, writes the digest into the file instead.
// Every module that decides scenario files runs them through it, so that
// the rules of a scenario file are written once.
func RunFiles(t *testing.T, glob string, update bool, decide Decide) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files match %s: %v", glob, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			runFile(t, file, update, decide)
		})
	}
}

func runFile(t *testing.T, file string, update bool, decide Decide) {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sc, input, wantText, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	plan, got := decide(t, sc, listed)
	if again, _ := decide(t, sc, shuffled); !cmp.Equal(plan, again) {
		t.Errorf("the order of pods changed the plan (-listed +shuffled):\n%s", cmp.Diff(plan, again))
	}
	if update {
		out, err := yaml.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.Write(bytes.TrimRight(input, "\n"))
		buf.WriteString("\n" + WantMarker)
		buf.Write(WantHeader(out))
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(wantText) == 0 {
		t.Fatalf("no expected plan; run with -update and check it")
	}
	want, err := ReadWant(wantText)
	if err != nil {
		t.Fatalf("reading expected plan: %v", err)
	}
	// Compared in their JSON form: a digest read from a file holds the
	// scheduling objects of an alpha module untyped, one made from a plan
	// holds them typed.
	if d := cmp.Diff(asJSON(t, want), asJSON(t, got)); d != "" {
		t.Errorf("plan differs from %s (-want +got):\n%s", file, d)
	}
}

// listed keeps the pods in the order the file lists them.
func listed(pods []*corev1.Pod) []*corev1.Pod { return pods }

// shuffled is the pods in another order, the same on every run.
func shuffled(pods []*corev1.Pod) []*corev1.Pod {
	out := append([]*corev1.Pod(nil), pods...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// asJSON is v decoded from its JSON form without types.
func asJSON(t *testing.T, v any) any {
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
