package conformance_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
	"github.com/jobsync/jobsync/internal/testsupport/interaction"
	"github.com/jobsync/jobsync/jobsync"
)

// TestInteractionFilesAgreeWithUpstream runs every multi-sync scenario file
// of the library (../testdata/interactions) and gives the snapshot of each
// of its syncs (the informer view, the clock and the controller memory of
// that moment) to upstream's Job controller too. The library's
// TestInteractions pins what each sync decides; this test shows that
// upstream, handed the same view and memory, decides the same at every
// step of the sequence.
func TestInteractionFilesAgreeWithUpstream(t *testing.T) {
	files, err := filepath.Glob("../testdata/interactions/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no interaction files: %v", err)
	}
	total := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := interaction.Parse(string(raw))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var cases []gen.Case
			var lines []int
			line := 0
			w := interaction.New()
			w.OnSync = func(snap jobsync.Snapshot, opts jobsync.Options) {
				cases = append(cases, gen.Case{Family: "interaction", Snapshot: snap, Options: opts})
				lines = append(lines, line)
			}
			for _, d := range f.Directives {
				line = d.Line
				if _, err := w.Run(d); err != nil {
					t.Fatalf("%s: %v", file, err)
				}
			}
			if len(cases) == 0 {
				t.Fatalf("%s has no sync", file)
			}
			for i, c := range cases {
				t.Run(fmt.Sprintf("sync-at-line-%d", lines[i]), func(t *testing.T) {
					v := harness.Check(c)
					if !v.Agree() {
						report, _ := harness.Report(v, false, true)
						t.Errorf("upstream decides otherwise (%s):\n%s", v.Class(), report)
					}
					switch {
					case len(v.Invalid) > 0 && !v.SharedInvalid():
						t.Errorf("the plan writes a status the API server rejects: %v", v.Invalid)
					case len(v.Invalid) > 0:
						t.Logf("the API server rejects this status, and upstream's alike: %v", v.Invalid)
					}
				})
			}
			total += len(cases)
		})
	}
	t.Logf("%d syncs of %d interaction files compared with upstream", total, len(files))
}
