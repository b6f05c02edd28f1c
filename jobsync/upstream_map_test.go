package jobsync_test

import (
	"os"
	"testing"

	"github.com/jobsync/jobsync/internal/testsupport/upstreammap"
)

// TestUpstreamMapNamesOurCode checks the "ours" column of UPSTREAM.md:
// every file it names exists and every function, method or type it names
// is declared there, so that the map follows the code when steps move.
// (The conformance module checks the upstream column against the pinned
// k8s.io/kubernetes release.)
func TestUpstreamMapNamesOurCode(t *testing.T) {
	md, err := os.ReadFile("../UPSTREAM.md")
	if err != nil {
		t.Fatal(err)
	}
	refs, err := upstreammap.Refs(string(md), upstreammap.Side{Column: "ours", DefaultDir: "jobsync/"})
	if err != nil {
		t.Fatal(err)
	}
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
