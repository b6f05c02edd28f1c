// The differential test: seeded snapshots of every family, each synced once
// by upstream's Job controller (k8s.io/kubernetes v1.36.5, or v1.37.2 through release.sh) and once by
// jobsync.Reconcile, compared field by field. It fails on any difference not
// listed in DEVIATIONS.md, on any panic, and on any status of a plan that the
// API server would reject while it accepts upstream's.
//
// Environment:
//
//	JOBSYNC_CONFORMANCE_N         snapshots per family (default 2000)
//	JOBSYNC_CONFORMANCE_SEED      first seed (default 0)
//	JOBSYNC_CONFORMANCE_FAMILIES  comma-separated families (default all)
//	JOBSYNC_CONFORMANCE_TABLE     also write the parity table to this file
//
// `go test ./...` shows the table only when the test fails; `go test -v
// -run TestConformance .` always shows it.
package conformance_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
)

const defaultN = 2000

func TestConformance(t *testing.T) {
	n := envInt(t, "JOBSYNC_CONFORMANCE_N", defaultN)
	first := uint64(envInt(t, "JOBSYNC_CONFORMANCE_SEED", 0))
	families := gen.Families
	if f := os.Getenv("JOBSYNC_CONFORMANCE_FAMILIES"); f != "" {
		families = strings.Split(f, ",")
	}
	if testing.Short() {
		n = min(n, 200)
	}
	devs, err := harness.LoadDeviations("DEVIATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := harness.Allowed(devs)

	var stats []harness.Stats
	failed := false
	for _, f := range families {
		st := harness.RunFamily(f, first, n, 0, allowed)
		stats = append(stats, st)
		if st.Mismatch > 0 || st.Panics > 0 {
			failed = true
		}
	}
	var table bytes.Buffer
	fmt.Fprintf(&table, "seeds %d..%d per family\n\n", first, first+uint64(n)-1)
	harness.WriteTable(&table, stats)
	var classes bytes.Buffer
	harness.WriteClasses(&classes, stats)
	if path := os.Getenv("JOBSYNC_CONFORMANCE_TABLE"); path != "" {
		if err := os.WriteFile(path, append(table.Bytes(), classes.Bytes()...), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("\n%s", table.String())
	if classes.Len() > 0 {
		t.Logf("differences and rejected statuses by class (first seed of each):\n%s", classes.String())
	}
	if failed {
		t.Errorf("jobsync.Reconcile differs from upstream on snapshots not covered by DEVIATIONS.md; see the classes above and run `go run ./cmd/mismatch -family F -seed S` for one of them")
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a non-negative integer", name, v)
	}
	return n
}
