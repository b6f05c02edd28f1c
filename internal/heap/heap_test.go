package heap

import (
	"cmp"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropertyHeapSort: popping the root of an Init'ed heap, Down after
// each pop, yields the elements in sorted order, for a min- and a max-heap.
func TestPropertyHeapSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(rapid.IntRange(-50, 50)).Draw(t, "xs")
		for _, c := range []func(a, b int) int{cmp.Compare[int], func(a, b int) int { return cmp.Compare(b, a) }} {
			h := slices.Clone(xs)
			Init(h, c)
			var got []int
			for len(h) > 0 {
				got = append(got, h[0])
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
				Down(h, 0, c)
			}
			want := slices.Clone(xs)
			slices.SortFunc(want, c)
			if !slices.Equal(got, want) {
				t.Fatalf("heap order %v, sorted %v", got, want)
			}
		}
	})
}
