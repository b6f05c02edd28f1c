package benchsnap

import (
	"fmt"
	"testing"
)

// BenchFloor is the body of BenchmarkFloor in both modules, so that each
// benchmark run measures its floors beside its own Reconcile (and upstream)
// figures, on the same machine at the same time.
func BenchFloor(b *testing.B) {
	for _, n := range Sizes {
		pods := Steady(n, NonIndexed).Pods
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Floor(pods)
			}
		})
	}
}

// BenchSemanticFloor is the body of BenchmarkSemanticFloor in both modules.
func BenchSemanticFloor(b *testing.B) {
	for _, n := range Sizes {
		s := Steady(n, NonIndexed)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SemanticFloor(s.Pods, s.Job.UID)
			}
		})
	}
}
