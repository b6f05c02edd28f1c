package harness

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/jobsync/jobsync/conformance/gen"
)

// Stats sums up the verdicts of one family.
type Stats struct {
	Family     string
	N          int
	Agree      int
	Deviations int // mismatches covered by DEVIATIONS.md
	Mismatch   int // mismatches not covered (failures)
	Panics     int
	Invalid    int // plans writing a status the API server rejects (upstream's accepted)
	Shared     int // plans and upstream agreeing on a status the API server rejects
	Time       time.Duration
	// Examples holds, per mismatch class, the first seed that shows it.
	Examples map[string]uint64
	// Counts holds, per mismatch class, how many seeds show it.
	Counts map[string]int
}

// Parity is the share of snapshots on which the library decided as
// upstream did (listed deviations count as disagreement).
func (s Stats) Parity() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Agree) / float64(s.N)
}

// RunFamily checks seeds first..first+n-1 of family with workers
// goroutines. allowed tells whether a difference is a listed deviation.
func RunFamily(family string, first uint64, n, workers int, allowed func(Verdict) bool) Stats {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	st := Stats{Family: family, Examples: map[string]uint64{}, Counts: map[string]int{}}
	start := time.Now()
	seeds := make(chan uint64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for seed := range seeds {
				v := checkSeed(family, seed)
				mu.Lock()
				st.add(seed, v, allowed)
				mu.Unlock()
			}
		})
	}
	for i := range uint64(n) {
		seeds <- first + i
	}
	close(seeds)
	wg.Wait()
	st.Time = time.Since(start)
	return st
}

// checkSeed generates and checks one snapshot; a generator panic is
// reported as a setup failure of that seed, not a crash of the run.
func checkSeed(family string, seed uint64) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = Verdict{Setup: fmt.Sprintf("generating %s seed %d: %v", family, seed, r)}
		}
	}()
	c, err := gen.Generate(family, seed)
	if err != nil {
		return Verdict{Setup: err.Error()}
	}
	return Check(c)
}

// add counts one verdict; allowed tells which differences are listed
// deviations.
func (s *Stats) add(seed uint64, v Verdict, allowed func(Verdict) bool) {
	s.N++
	if v.Agree() {
		s.Agree++
	}
	if v.OK() && !v.SharedInvalid() {
		return
	}
	class := v.Class()
	switch {
	case v.SharedInvalid():
		s.Shared++
	case v.Panic != "" || v.Setup != "":
		s.Panics++
		s.Mismatch++
	case v.Settled != "" || v.Held != "":
		s.Mismatch++
	case allowed != nil && allowed(v):
		s.Deviations++
	default:
		if len(v.Invalid) > 0 {
			s.Invalid++
		}
		s.Mismatch++
	}
	s.Counts[class]++
	if old, ok := s.Examples[class]; !ok || seed < old {
		s.Examples[class] = seed
	}
}

// WriteTable prints the parity table of stats as Markdown.
func WriteTable(w io.Writer, stats []Stats) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintln(tw, "| family\t snapshots\t agree\t parity\t deviations\t mismatches\t panics\t invalid status\t invalid as upstream\t time\t")
	fmt.Fprintln(tw, "|---\t---\t---\t---\t---\t---\t---\t---\t---\t---\t")
	var tot Stats
	for _, s := range stats {
		fmt.Fprintf(tw, "| %s\t %d\t %d\t %.2f%%\t %d\t %d\t %d\t %d\t %d\t %s\t\n", s.Family, s.N, s.Agree, 100*s.Parity(), s.Deviations, s.Mismatch, s.Panics, s.Invalid, s.Shared, s.Time.Round(100*time.Millisecond))
		tot.N += s.N
		tot.Agree += s.Agree
		tot.Deviations += s.Deviations
		tot.Mismatch += s.Mismatch
		tot.Panics += s.Panics
		tot.Invalid += s.Invalid
		tot.Shared += s.Shared
		tot.Time += s.Time
	}
	fmt.Fprintf(tw, "| **total**\t %d\t %d\t %.2f%%\t %d\t %d\t %d\t %d\t %d\t %s\t\n", tot.N, tot.Agree, 100*tot.Parity(), tot.Deviations, tot.Mismatch, tot.Panics, tot.Invalid, tot.Shared, tot.Time.Round(100*time.Millisecond))
	tw.Flush()
}

// WriteClasses prints, per family, each mismatch class with its count and
// the smallest seed that shows it.
func WriteClasses(w io.Writer, stats []Stats) {
	for _, s := range stats {
		classes := make([]string, 0, len(s.Counts))
		for c := range s.Counts {
			classes = append(classes, c)
		}
		sort.Slice(classes, func(i, j int) bool { return s.Counts[classes[i]] > s.Counts[classes[j]] })
		for _, c := range classes {
			fmt.Fprintf(w, "  %-20s %5d× %s  (go run ./cmd/mismatch -family %s -seed %d)\n", s.Family, s.Counts[c], strings.TrimSpace(c), s.Family, s.Examples[c])
		}
	}
}
