package jobsync

import (
	"math/bits"
	"slices"

	"github.com/jobsync/jobsync/indexes"
)

// indexSet is a set of completion indexes: a bitset for the dense low
// range, sized by the number of active pods rather than by completions (which
// may be in the billions), and a map for the rare index beyond it.
type indexSet struct {
	bits []uint64
	big  map[int]bool
}

func newIndexSet(activeHint int) *indexSet {
	return &indexSet{bits: make([]uint64, (2*activeHint+64)/64)}
}

// set adds i (non-negative) and reports whether it was absent.
func (b *indexSet) set(i int) bool {
	if w := i / 64; w < len(b.bits) {
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

// members returns the set as ordered intervals.
func (b *indexSet) members() indexes.Set {
	if b == nil {
		return nil
	}
	var out indexes.Set
	add := func(i int) {
		if n := len(out); n > 0 && out[n-1].Last == i-1 {
			out[n-1].Last = i
		} else {
			out = append(out, indexes.Interval{First: i, Last: i})
		}
	}
	for w, word := range b.bits {
		for word != 0 {
			add(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
	if len(b.big) > 0 {
		big := make([]int, 0, len(b.big))
		for i := range b.big {
			big = append(big, i)
		}
		slices.Sort(big)
		for _, i := range big {
			add(i)
		}
	}
	return out
}
