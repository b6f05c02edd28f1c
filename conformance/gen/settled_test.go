package gen

import (
	"testing"

	"github.com/jobsync/jobsync/jobsync"
)

// TestFamiliesReachSettledPods: the harness checks every case again with
// the pods jobsync.SettledFilter settles left out (harness.Verdict.Settled).
// That check proves something only where cases hold settled pods beside
// pods that still count, so the families that carry the long-running Jobs
// must produce such cases often, and must also produce the negative cases
// (a pod failure policy, under which nothing is settled).
func TestFamiliesReachSettledPods(t *testing.T) {
	const seeds = 300
	total, mixed := 0, 0
	for _, fam := range Families {
		withSettled := 0
		for seed := range uint64(seeds) {
			c, err := Generate(fam, seed)
			if err != nil {
				t.Fatal(err)
			}
			f := jobsync.NewSettledFilter(c.Snapshot.Job, c.Options)
			settled := 0
			for _, p := range c.Snapshot.Pods {
				if f.Settled(p) {
					settled++
				}
			}
			if settled > 0 {
				withSettled++
				if settled < len(c.Snapshot.Pods) {
					mixed++
				}
			}
		}
		total += withSettled
		t.Logf("%s: %d of %d cases hold settled pods", fam, withSettled, seeds)
		if fam == "pod-failure-policy" && withSettled != 0 {
			t.Errorf("%s: %d cases hold settled pods, but a pod failure policy settles none", fam, withSettled)
		}
	}
	if total*5 < seeds*len(Families) || mixed*10 < seeds*len(Families) {
		t.Errorf("%d of %d cases hold settled pods, %d beside pods that still count: too few for the harness's check to prove anything",
			total, seeds*len(Families), mixed)
	}
}
