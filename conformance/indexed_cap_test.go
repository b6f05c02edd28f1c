package conformance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
	"github.com/jobsync/jobsync/internal/testsupport/benchsnap"
	"github.com/jobsync/jobsync/jobsync"
)

// TestIndexedCapCountsNewIndexesOnly pins, at upstream's real cap of 500
// (which scenario files cannot change on upstream's side), that an Indexed
// Job's cap on the pods one sync records counts only indexes new to
// completedIndexes: succeeded pods of indexes already recorded lose their
// finalizers beyond it. A NonIndexed Job, whose every finished pod counts,
// is capped at 500. It is why a long NonIndexed Job keeps a backlog of
// finished pods still carrying the finalizer and an Indexed one does not
// (the jobsync package documentation, "Jobs of many pods").
func TestIndexedCapCountsNewIndexesOnly(t *testing.T) {
	for _, tc := range []struct {
		mode         benchsnap.Mode
		recorded     int // succeeded pods already counted in the status
		wantReleased int
	}{
		// 1,000 succeeded pods (every third of 3,000) with the finalizer,
		// 900 of their indexes recorded: 900 + the 100 new ones go.
		{mode: benchsnap.Indexed, recorded: 900, wantReleased: 1000},
		// The same pods of a NonIndexed Job: the cap.
		{mode: benchsnap.NonIndexed, recorded: 0, wantReleased: 500},
	} {
		t.Run(fmt.Sprint(tc.mode), func(t *testing.T) {
			s := benchsnap.Tracking(3000, tc.mode)
			if tc.recorded > 0 {
				var ix []string
				for i := 0; i < tc.recorded; i++ {
					ix = append(ix, fmt.Sprint(3*i))
				}
				s.Job.Status.CompletedIndexes = strings.Join(ix, ",")
				s.Job.Status.Succeeded = int32(tc.recorded)
			}
			plan, err := jobsync.Reconcile(s, jobsync.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(plan.FinalizerRemovals); got != tc.wantReleased {
				t.Errorf("%d finalizers removed, want %d", got, tc.wantReleased)
			}
			v := harness.Check(gen.Case{Family: "indexed-cap", Snapshot: s})
			if !v.OK() {
				report, _ := harness.Report(v, false, false)
				t.Errorf("upstream decides otherwise (%s):\n%s", v.Class(), report)
			}
		})
	}
}
