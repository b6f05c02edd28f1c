package kit_test

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/controller/kit"
)

func jobAt(uid types.UID, rv string) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: uid, ResourceVersion: rv}}
}

// TestStaleGuardWaitsForTheCacheToShowTheWrite: after a status write that
// returned resourceVersion 10, a cached Job at 9 is stale and one at 10 or
// later is not (and the write is then forgotten); a Job of another UID, or
// resourceVersions that are not numbers, never wait; Forget drops a write.
func TestStaleGuardWaitsForTheCacheToShowTheWrite(t *testing.T) {
	for _, tc := range []struct {
		name      string
		written   *batchv1.Job
		forget    bool
		cached    []*batchv1.Job
		wantStale []bool
	}{
		{"older, then caught up", jobAt("a", "10"), false, []*batchv1.Job{jobAt("a", "9"), jobAt("a", "10"), jobAt("a", "9")}, []bool{true, false, false}},
		{"later write by another actor", jobAt("a", "10"), false, []*batchv1.Job{jobAt("a", "12")}, []bool{false}},
		{"another Job of that name", jobAt("a", "10"), false, []*batchv1.Job{jobAt("b", "3")}, []bool{false}},
		{"not a number", jobAt("a", "x10"), false, []*batchv1.Job{jobAt("a", "9")}, []bool{false}},
		{"nothing written", nil, false, []*batchv1.Job{jobAt("a", "1")}, []bool{false}},
		{"forgotten", jobAt("a", "10"), true, []*batchv1.Job{jobAt("a", "9")}, []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g kit.StaleGuard
			g.Wrote(tc.written)
			if tc.forget {
				g.Forget("ns", "pi")
			}
			for i, c := range tc.cached {
				if got := g.Check(c) != nil; got != tc.wantStale[i] {
					t.Errorf("cached resourceVersion %s (UID %s): stale %v, want %v", c.ResourceVersion, c.UID, got, tc.wantStale[i])
				}
			}
		})
	}
}
