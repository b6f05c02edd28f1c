package conformance_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/internal/testsupport/upstreammap"
)

// TestUpstreamMapNamesUpstreamCode checks the "upstream" column of
// ../UPSTREAM.md against the k8s.io/kubernetes release this module pins:
// every file it names exists and every function, method, type or field it
// names is declared there. After moving to a new release, each failure is a
// row of the map to revisit.
func TestUpstreamMapNamesUpstreamCode(t *testing.T) {
	md, err := os.ReadFile("../UPSTREAM.md")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("locating k8s.io/kubernetes: %v", err)
	}
	root := strings.TrimSpace(string(out))
	refs, err := upstreammap.Refs(string(md), upstreammap.Side{
		Column:      "upstream",
		DefaultDir:  "pkg/controller/job/",
		DefaultFile: "pkg/controller/job/job_controller.go",
	})
	if err != nil {
		t.Fatal(err)
	}
	// Rows of code another release has and this one has not
	// (release_v1_*_test.go).
	lines := strings.Split(string(md), "\n")
	kept := refs[:0]
	skipped := 0
	for _, r := range refs {
		if r.Line >= 1 && r.Line <= len(lines) && notModelledRow(lines[r.Line-1]) {
			skipped++
			continue
		}
		kept = append(kept, r)
	}
	refs = kept
	if skipped > 0 {
		t.Logf("%d names of rows this release's code does not have left out", skipped)
	}
	names := 0
	for _, r := range refs {
		if r.Name != "" {
			names++
		}
	}
	if names < 80 {
		t.Fatalf("only %d names read from UPSTREAM.md's upstream column; is the table still there?", names)
	}
	for _, p := range upstreammap.Check(root, refs) {
		t.Error(p)
	}
	t.Logf("%d upstream files and names checked in %s", len(refs), root)
}
