package jobsync_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/internal/testsupport/upstreammap"
)

// TestUpstreamMapNamesOurCode checks the "ours" column of UPSTREAM.md:
// every file it names exists and every function, method or type it names
// is declared there, so that the map follows the code when steps move.
// (The conformance module checks the upstream column against the pinned
// k8s.io/kubernetes release.)
func TestUpstreamMapNamesOurCode(t *testing.T) {
	refs := oursRefs(t)
	names := 0
	for _, r := range refs {
		if r.Name != "" {
			names++
		}
	}
	if names < 50 {
		t.Fatalf("only %d names read from UPSTREAM.md's ours column; is the table still there?", names)
	}
	for _, p := range upstreammap.Check("..", refs) {
		t.Error(p)
	}
	t.Logf("%d files and names of ours checked", len(refs))
}

// TestUpstreamMapHasEveryStep checks the other direction: every step that
// Reconcile calls (a line of reconcile.go ending in a comment that names
// the step's file) is in UPSTREAM.md's ours column under that file, so that
// a new or renamed step cannot be left out of the map.
func TestUpstreamMapHasEveryStep(t *testing.T) {
	refs := oursRefs(t)
	mapped := map[string]bool{}
	for _, r := range refs {
		mapped[r.File+" "+r.Name] = true
	}
	src, err := os.ReadFile("reconcile.go")
	if err != nil {
		t.Fatal(err)
	}
	step := regexp.MustCompile(`(\w+)\(.*// (\w+\.go)$`)
	steps := 0
	for i, line := range strings.Split(string(src), "\n") {
		m := step.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		steps++
		if !mapped["jobsync/"+m[2]+" "+m[1]] {
			t.Errorf("reconcile.go:%d: step %s (%s) is not in UPSTREAM.md's ours column", i+1, m[1], m[2])
		}
	}
	if steps < 10 {
		t.Fatalf("only %d steps found in reconcile.go; do its step lines still end in a comment naming their file?", steps)
	}
	t.Logf("%d steps of Reconcile found in UPSTREAM.md", steps)
}

// oursRefs reads the files and names of UPSTREAM.md's ours column.
func oursRefs(t *testing.T) []upstreammap.Ref {
	t.Helper()
	md, err := os.ReadFile("../UPSTREAM.md")
	if err != nil {
		t.Fatal(err)
	}
	refs, err := upstreammap.Refs(string(md), upstreammap.Side{Column: "ours", DefaultDir: "jobsync/"})
	if err != nil {
		t.Fatal(err)
	}
	return refs
}
