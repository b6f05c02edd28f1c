package conformance_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobsync/jobsync/conformance/gen"
)

// TestREADMEMatchesTheCode keeps the numbers and names README.md states
// about a default run true: its Families table lists exactly the families
// the generators have, in their order, and the snapshots per family it
// gives for `go test ./...` are the default TestConformance uses. Other
// documents link to README.md instead of repeating either.
func TestREADMEMatchesTheCode(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)

	_, section, ok := strings.Cut(readme, "\n## Families\n")
	if !ok {
		t.Fatal(`README.md has no "## Families" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 2 {
			continue
		}
		name := strings.TrimSpace(cells[0])
		if name == "family" || strings.HasPrefix(name, "---") {
			continue
		}
		listed = append(listed, name)
	}
	// A family this release of upstream does not run stays in the table
	// (release_v1_*_test.go).
	listed = slices.DeleteFunc(listed, func(f string) bool { return slices.Contains(familiesNotRun, f) })
	if d := cmp.Diff(gen.Families, listed); d != "" {
		t.Errorf("README's Families table and gen.Families differ (-code +README):\n%s", d)
	}

	m := regexp.MustCompile("(?m)^go test \\./\\.\\.\\. +# ([0-9,]+) snapshots per family").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md no longer says how many snapshots per family `go test ./...` runs")
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	if n != defaultN {
		t.Errorf("README.md says `go test ./...` runs %d snapshots per family; TestConformance's default is %d", n, defaultN)
	}
}
