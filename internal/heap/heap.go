// Package heap holds the sift-down of the module's bounded heaps, such as
// podorder's choice of the few pods a scale-down deletes (jobsync's release
// queue writes its own out, for direct calls of its comparison).
// container/heap would box every element in an interface; these work on
// slices of any type with a comparison function.
package heap

// Init orders h as a heap under cmp: h[0] comes first, every element
// before its children (a min-heap of cmp; pass a reversed cmp for a
// max-heap).
func Init[T any](h []T, cmp func(a, b T) int) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		Down(h, i, cmp)
	}
}

// Down restores the heap order below i after h[i] was replaced.
func Down[T any](h []T, i int, cmp func(a, b T) int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if r := c + 1; r < len(h) && cmp(h[r], h[c]) < 0 {
			c = r
		}
		if cmp(h[c], h[i]) >= 0 {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// Up restores the heap order above i after h[i] was appended or replaced.
func Up[T any](h []T, i int, cmp func(a, b T) int) {
	for i > 0 {
		parent := (i - 1) / 2
		if cmp(h[i], h[parent]) >= 0 {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}
