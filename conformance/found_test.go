package conformance_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/conformance/harness"
)

// TestFoundSnapshotsAgreeWithUpstream checks the snapshots in
// testdata/found: each one a run beyond CI's seed range once found the
// library deciding otherwise than upstream. They are kept as snapshots, not
// seeds, because a seed names a different snapshot once the generators
// change; testdata/fuzz keeps what fuzzers find in the same spirit. They are
// compared with upstream only (no expected plan is written down): agreement
// is what they pin.
func TestFoundSnapshotsAgreeWithUpstream(t *testing.T) {
	files, err := filepath.Glob("testdata/found/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no snapshots in testdata/found: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			v := checkWithUpstream(readScenario(t, file))
			if !v.OK() {
				report, _ := harness.Report(v, false, false)
				t.Errorf("upstream decides otherwise (%s):\n%s", v.Class(), report)
			}
		})
	}
}
