package jobsync

import (
	"math/bits"
	"slices"

	"github.com/jobsync/jobsync/indexes"
)

// indexSet is a set of completion indexes: a bitset for the dense low
// range and a map for the rare index beyond it. The bitset grows as far as
// limit words, no further: a sync's set is sized once by the number of
// active pods rather than by completions (which may be in the billions),
// and a caller's set (ActivePods) grows to the largest index it holds
// below denseIndexes. An index is in the map exactly when its word is past
// the limit.
type indexSet struct {
	bits  []uint64
	limit int // the most words bits may have
	big   map[int]bool
}

// denseIndexes bounds the bitset of a set that grows: 2 MiB at most,
// whatever the indexes a caller's pods claim.
const denseIndexes = 1 << 24

// newIndexSet returns a set whose bitset is sized, once, for about
// activeHint indexes.
func newIndexSet(activeHint int) *indexSet {
	n := (2*activeHint + 64) / 64
	return &indexSet{bits: make([]uint64, n), limit: n}
}

// set adds i (non-negative) and reports whether it was absent.
func (b *indexSet) set(i int) bool {
	if w := i / 64; w < b.limit {
		if w >= len(b.bits) {
			b.bits = slices.Grow(b.bits, w+1-len(b.bits))
			b.bits = b.bits[:max(w+1, min(cap(b.bits), b.limit))]
		}
		m := uint64(1) << (i % 64)
		if b.bits[w]&m != 0 {
			return false
		}
		b.bits[w] |= m
		return true
	}
	if b.big[i] {
		return false
	}
	if b.big == nil {
		b.big = make(map[int]bool)
	}
	b.big[i] = true
	return true
}

// clear removes i (non-negative).
func (b *indexSet) clear(i int) {
	if w := i / 64; w < b.limit {
		if w < len(b.bits) {
			b.bits[w] &^= uint64(1) << (i % 64)
		}
		return
	}
	delete(b.big, i)
}

// has reports whether i is in the set.
func (b *indexSet) has(i int) bool {
	if b == nil || i < 0 {
		return false
	}
	if w := i / 64; w < len(b.bits) {
		return b.bits[w]&(uint64(1)<<(i%64)) != 0
	}
	return b.big[i]
}

// atOrAbove reports whether some index of the set is at or above n.
func (b *indexSet) atOrAbove(n int) bool {
	for i := range b.big {
		if i >= n {
			return true
		}
	}
	w := n / 64
	if w >= len(b.bits) {
		return false
	}
	if b.bits[w]>>(n%64) != 0 {
		return true
	}
	for _, word := range b.bits[w+1:] {
		if word != 0 {
			return true
		}
	}
	return false
}

// members returns the set as ordered intervals.
func (b *indexSet) members() indexes.Set {
	if b == nil {
		return nil
	}
	var out indexes.Set
	add := func(first, last int) {
		if n := len(out); n > 0 && out[n-1].Last == first-1 {
			out[n-1].Last = last
		} else {
			out = append(out, indexes.Interval{First: first, Last: last})
		}
	}
	for w, word := range b.bits {
		for word != 0 {
			// A run of set bits from the lowest: added as one interval.
			lo := bits.TrailingZeros64(word)
			run := bits.TrailingZeros64(^(word >> lo))
			add(w*64+lo, w*64+lo+run-1)
			if lo+run >= 64 {
				word = 0
			} else {
				word &^= (uint64(1)<<run - 1) << lo
			}
		}
	}
	if len(b.big) > 0 {
		big := make([]int, 0, len(b.big))
		for i := range b.big {
			big = append(big, i)
		}
		slices.Sort(big)
		for _, i := range big {
			add(i, i)
		}
	}
	return out
}
