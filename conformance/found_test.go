package conformance_test

import (
	"testing"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
)

// foundSeeds are snapshots on which a run beyond CI's seed range once found
// the library differing from upstream. CI checks them on every run, as
// testdata/fuzz keeps every crasher a fuzzer found, so that a fix stays
// fixed whatever seed range CI covers.
var foundSeeds = []struct {
	family string
	seed   uint64
	what   string
}{
	{"mixed", 2028909, "over 500 finished pods and an adopted orphan among them: upstream lists " +
		"the pods it controls before the orphans it adopts, so the orphan waits behind the cap " +
		"(found by the 750,000-snapshot run from seed 2000000)"},
}

func TestFoundSeedsAgreeWithUpstream(t *testing.T) {
	for _, f := range foundSeeds {
		c, err := gen.Generate(f.family, f.seed)
		if err != nil {
			t.Fatalf("%s seed %d: %v", f.family, f.seed, err)
		}
		if v := harness.Check(c); !v.OK() {
			t.Errorf("%s seed %d (%s): %s\n%s", f.family, f.seed, f.what, v.Class(), v.Diff)
		}
	}
}
