package indexes

import (
	"fmt"
	"testing"
)

// BenchmarkString prints the sets status.completedIndexes holds in a
// Tracking sync: every third index of n completed, each its own interval
// (the worst case for the printed length), and one range.
func BenchmarkString(b *testing.B) {
	for _, n := range []int{100, 10000, 100000} {
		var sparse Set
		for i := 0; i < n; i += 3 {
			sparse = append(sparse, Interval{First: i, Last: i})
		}
		dense := Set{{First: 0, Last: n - 1}}
		for _, c := range []struct {
			name string
			s    Set
		}{{"sparse", sparse}, {"range", dense}} {
			b.Run(fmt.Sprintf("shape=%s/n=%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = c.s.String()
				}
			})
		}
	}
}

func TestDecimalLen(t *testing.T) {
	const maxInt = int(^uint(0) >> 1)
	for _, n := range []int{0, 1, 9, 10, 99, 100, 999999, 1000000, -1, -9, -10, -100, maxInt, -maxInt - 1} {
		if got, want := decimalLen(n), len(fmt.Sprint(n)); got != want {
			t.Errorf("decimalLen(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestStringAllocatesOnce pins what BenchmarkString measures: the printed
// list is built in one allocation of the exact size.
func TestStringAllocatesOnce(t *testing.T) {
	sets := []Set{
		{{First: 0, Last: 0}},
		{{First: 1, Last: 2}, {First: 4, Last: 4}, {First: 100, Last: 100000}},
		{{First: 99, Last: 100}, {First: 999, Last: 1001}, {First: 123456, Last: 123456}},
	}
	for _, s := range sets {
		if n := testing.AllocsPerRun(10, func() { _ = s.String() }); n != 1 {
			t.Errorf("%v.String() made %v allocations, want 1", s, n)
		}
	}
}
