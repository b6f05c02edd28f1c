package harness

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/jobsync/jobsync/conformance/gen"
)

// TestCoverage prints how often each kind of upstream action occurs per
// family, to check that the generators reach every part of the controller:
// JOBSYNC_CONFORMANCE_COVERAGE_N=500 go test -v -run Coverage ./harness
func TestCoverage(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("JOBSYNC_CONFORMANCE_COVERAGE_N"))
	if n == 0 {
		t.Skip("JOBSYNC_CONFORMANCE_COVERAGE_N not set")
	}
	fmt.Printf("%-20s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n", "family", "create", "delete", "rmFin", "interim", "final", "requeue", "event", "adopt", "release", "error", "nothing")
	for _, f := range gen.Families {
		var cr, de, rm, in, fi, rq, ev, ad, re, er, no int
		for s := range uint64(n) {
			c, _ := gen.Generate(f, s)
			v := Check(c)
			u := v.Upstream
			b := func(x bool, c *int) {
				if x {
					*c++
				}
			}
			b(len(u.Creations) > 0, &cr)
			b(len(u.Deletions) > 0, &de)
			b(len(u.FinalizerRemovals) > 0, &rm)
			b(u.InterimStatus != nil, &in)
			b(u.Status != nil, &fi)
			b(u.RequeueAfter > 0, &rq)
			b(len(u.Events) > 0, &ev)
			b(len(u.Adoptions) > 0, &ad)
			b(len(u.Releases) > 0, &re)
			b(u.Error != "", &er)
			b(len(v.UpstreamLog) == 0, &no)
		}
		pc := func(x int) string { return fmt.Sprintf("%5.1f%%", 100*float64(x)/float64(n)) }
		fmt.Printf("%-20s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n", f, pc(cr), pc(de), pc(rm), pc(in), pc(fi), pc(rq), pc(ev), pc(ad), pc(re), pc(er), pc(no))
	}
}
