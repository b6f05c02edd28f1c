package jobsync_test

import (
	"fmt"
	"testing"

	"github.com/jobsync/jobsync/internal/testsupport/benchsnap"
	"github.com/jobsync/jobsync/jobsync"
)

// The benchmarks measure Reconcile on Jobs of 10 to 100,000 pods in the
// shapes of internal/testsupport/benchsnap (Steady, Tracking, ScaleDown, Suspend,
// Create), beside three floors: Floor visits each pod once and counts phases;
// SemanticFloor reads what every sync must read even when nothing is to be
// done; ShapeFloor what each acting shape must read and build. The conformance module runs the same snapshots through upstream's
// syncJob (conformance/upstream/bench_test.go). BENCHMARKS.md has the table
// and the commands that reproduce it, e.g.:
//
//	go test ./jobsync -run '^$' -bench . -benchmem -count 5 | tee new.txt
//	benchstat new.txt

func BenchmarkFloor(b *testing.B) { benchsnap.BenchFloor(b) }

func BenchmarkSemanticFloor(b *testing.B) { benchsnap.BenchSemanticFloor(b) }

// BenchmarkShapeFloor is, for each shape that acts, the least any faithful
// implementation must do on its snapshot (benchsnap.ShapeFloors): the
// semantic floor's reads plus what upstream's rules force that shape to
// read and build.
func BenchmarkShapeFloor(b *testing.B) { benchsnap.BenchShapeFloor(b) }

func BenchmarkSteady(b *testing.B)    { benchShape(b, "Steady") }
func BenchmarkTracking(b *testing.B)  { benchShape(b, "Tracking") }
func BenchmarkScaleDown(b *testing.B) { benchShape(b, "ScaleDown") }
func BenchmarkSuspend(b *testing.B)   { benchShape(b, "Suspend") }
func BenchmarkCreate(b *testing.B)    { benchShape(b, "Create") }

func benchShape(b *testing.B, name string) {
	for _, sh := range benchsnap.Shapes {
		if sh.Name != name {
			continue
		}
		for _, m := range sh.Modes {
			for _, n := range benchsnap.Sizes {
				b.Run(fmt.Sprintf("mode=%s/n=%d", m, n), func(b *testing.B) {
					// Built here, not before b.Run, so that -bench builds
					// only what it runs; b.Loop starts the clock afterwards.
					benchReconcile(b, sh.Build(n, m))
				})
			}
		}
		return
	}
	b.Fatalf("no shape %q", name)
}

func benchReconcile(b *testing.B, s jobsync.Snapshot) {
	b.Helper()
	b.ReportAllocs()
	cpu, iters := benchsnap.CPUTime(), 0
	for b.Loop() {
		if _, err := jobsync.Reconcile(s, jobsync.Options{}); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	benchsnap.ReportCPU(b, cpu, iters)
}
