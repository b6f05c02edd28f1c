package benchsnap

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// CPUTime is the CPU time the process used so far (user and system). On a
// machine shared with other work it is steadier than the wall clock: the
// benchmarks report it per operation as cpu-ns/op.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports the CPU time per operation since start, for iters
// operations.
func ReportCPU(b *testing.B, start time.Duration, iters int) {
	if iters > 0 {
		b.ReportMetric(float64(CPUTime()-start)/float64(iters), "cpu-ns/op")
	}
}

// BenchFloor is the body of BenchmarkFloor in both modules, so that each
// benchmark run measures its floors beside its own Reconcile (and upstream)
// figures, on the same machine at the same time.
func BenchFloor(b *testing.B) {
	for _, n := range Sizes {
		pods := Steady(n, NonIndexed).Pods
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu, iters := CPUTime(), 0
			for b.Loop() {
				Floor(pods)
				iters++
			}
			ReportCPU(b, cpu, iters)
		})
	}
}

// BenchSemanticFloor is the body of BenchmarkSemanticFloor in both modules.
func BenchSemanticFloor(b *testing.B) {
	for _, n := range Sizes {
		s := Steady(n, NonIndexed)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu, iters := CPUTime(), 0
			for b.Loop() {
				SemanticFloor(s.Pods, s.Job.UID)
				iters++
			}
			ReportCPU(b, cpu, iters)
		})
	}
}

// BenchShapeFloor is the body of BenchmarkShapeFloor in both modules: each
// acting shape's floor (ShapeFloors) on that shape's snapshot, named like
// the conformance module's BenchmarkOurs cases (shape=…/mode=…/n=…), at
// the sizes where the floor covers the shape (ScaleDown needs 500 surplus
// pods: 10,000 and up).
func BenchShapeFloor(b *testing.B) {
	for _, f := range ShapeFloors {
		for _, sh := range Shapes {
			if sh.Name != f.Shape {
				continue
			}
			for _, m := range sh.Modes {
				for _, n := range Sizes {
					if sh.Name == "ScaleDown" && n < 10000 {
						continue
					}
					b.Run(fmt.Sprintf("shape=%s/mode=%s/n=%d", sh.Name, m, n), func(b *testing.B) {
						s := sh.Build(n, m)
						if _, ok := f.Run(s); !ok {
							b.Fatalf("the %s floor does not cover its snapshot", f.Shape)
						}
						b.ReportAllocs()
						cpu, iters := CPUTime(), 0
						for b.Loop() {
							f.Run(s)
							iters++
						}
						ReportCPU(b, cpu, iters)
					})
				}
			}
		}
	}
}
