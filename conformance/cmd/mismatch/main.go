// Command mismatch runs one generated snapshot through upstream's Job
// controller and jobsync.Reconcile and prints what differs: the go-cmp diff
// of the two outcomes (-upstream +library), the API server's objections to
// the plan's statuses, upstream's calls in order, and the snapshot as YAML
// in the shape of the library's scenario files (testdata/scenarios), ready
// to paste.
//
//	go run ./cmd/mismatch -family finalizers -seed 2
//	go run ./cmd/mismatch -family mixed -first 0 -n 5000   # the first failing seed
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
)

func main() {
	family := flag.String("family", "", "snapshot family: "+strings.Join(gen.Families, ", "))
	seed := flag.Uint64("seed", 0, "seed of the snapshot")
	n := flag.Int("n", 0, "search seeds seed..seed+n-1 and show the first that mismatches")
	full := flag.Bool("full", false, "print pods as full objects instead of the scenario shorthand")
	outcomes := flag.Bool("outcomes", false, "also print both normalised outcomes in full")
	list := flag.Bool("list", false, "with -n: list every seed that mismatches or writes a rejected status, one line each")
	flag.Parse()
	if *family == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *list {
		for s := *seed; s < *seed+uint64(max(*n, 1)); s++ {
			c, err := gen.Generate(*family, s)
			if err != nil {
				fail(err)
			}
			v := harness.Check(c)
			if v.OK() && !v.SharedInvalid() {
				continue
			}
			first := ""
			if len(v.Invalid) > 0 {
				first = " — " + v.Invalid[0]
			}
			fmt.Printf("%s %d: %s%s\n", *family, s, v.Class(), first)
		}
		return
	}
	if *n > 0 {
		for s := *seed; s < *seed+uint64(*n); s++ {
			c, err := gen.Generate(*family, s)
			if err != nil {
				fail(err)
			}
			if v := harness.Check(c); !v.OK() {
				*seed = s
				break
			}
			if s == *seed+uint64(*n)-1 {
				fmt.Printf("no mismatch among %d seeds of %s from %d\n", *n, *family, *seed)
				return
			}
		}
	}
	c, err := gen.Generate(*family, *seed)
	if err != nil {
		fail(err)
	}
	v := harness.Check(c)
	report, err := harness.Report(v, *full, *outcomes)
	if err != nil {
		fail(err)
	}
	fmt.Print(report)
	if !v.OK() {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mismatch:", err)
	os.Exit(2)
}
