// Package indexes holds sets of completion indexes of Indexed Jobs as
// ordered intervals, the form in which status.completedIndexes,
// status.failedIndexes and successPolicy rules write them ("1,3-5,7").
package indexes

import (
	"strconv"
	"strings"
)

// Interval is the closed range of indexes First..Last.
type Interval struct {
	First, Last int
}

// Set is a set of indexes as intervals in ascending order, neither
// overlapping nor adjacent. The nil Set is empty. Sets made by this package
// always have this form, except those ParseLenient reads from malformed
// lists; Union and WithIndexes treat such lists as upstream's merge does,
// other methods give unspecified answers on them.
type Set []Interval

// Has reports whether ix is in the set, in O(log intervals).
func (s Set) Has(ix int) bool {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s[mid].Last >= ix {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi < len(s) && s[hi].First <= ix
}

// Total is the number of indexes in the set.
func (s Set) Total() int {
	n := 0
	for _, iv := range s {
		n += iv.Last - iv.First + 1
	}
	return n
}

// String prints the set the way upstream writes it into Job status: ranges
// of three or more as "a-b", a pair of neighbours as "a,b", all comma
// separated, the empty set as "".
func (s Set) String() string {
	if len(s) == 0 {
		return ""
	}
	// One allocation, of the exact size: numbers are formatted into a stack
	// buffer (strconv.Itoa allocates a string for every number above 99).
	size := len(s) - 1
	for _, iv := range s {
		size += decimalLen(iv.First)
		if iv.Last > iv.First {
			size += 1 + decimalLen(iv.Last)
		}
	}
	var b strings.Builder
	b.Grow(size)
	var num [20]byte
	for i, iv := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(strconv.AppendInt(num[:0], int64(iv.First), 10))
		switch {
		case iv.Last == iv.First+1:
			b.WriteByte(',')
			b.Write(strconv.AppendInt(num[:0], int64(iv.Last), 10))
		case iv.Last > iv.First+1:
			b.WriteByte('-')
			b.Write(strconv.AppendInt(num[:0], int64(iv.Last), 10))
		}
	}
	return b.String()
}

// decimalLen is the length of n printed in base 10.
func decimalLen(n int) int {
	l := 1
	if n < 0 {
		l++ // the sign; -n may overflow, so count on n itself
	}
	for n >= 10 || n <= -10 {
		n /= 10
		l++
	}
	return l
}

// Union returns the set of indexes in s or in o. Neither operand changes.
//
// On lists not in canonical form (ParseLenient of a malformed list) it does
// what upstream's merge does, even when the other operand is empty: it walks
// both lists by First, ties going to o, and keeps each interval that starts
// more than one past the end of the last one kept, else extends that one to
// its end (so an interval starting before the last kept one is merged into
// it, as if it started there).
func (s Set) Union(o Set) Set {
	var out Set
	if n := len(s) + len(o); n > 0 {
		out = make(Set, 0, n)
	}
	add := func(iv Interval) {
		if n := len(out); n > 0 && iv.First <= out[n-1].Last+1 {
			if iv.Last > out[n-1].Last {
				out[n-1].Last = iv.Last
			}
			return
		}
		out = append(out, iv)
	}
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		if s[i].First < o[j].First {
			add(s[i])
			i++
		} else {
			add(o[j])
			j++
		}
	}
	for ; i < len(s); i++ {
		add(s[i])
	}
	for ; j < len(o); j++ {
		add(o[j])
	}
	return out
}

// WithIndexes returns s plus the given indexes, which must be in ascending
// order (duplicates are fine). It is Union with the indexes as a set, and so
// treats a list not in canonical form as upstream's withOrderedIndexes does.
func (s Set) WithIndexes(sorted []int) Set {
	add := make(Set, 0, len(sorted))
	for _, ix := range sorted {
		if n := len(add); n > 0 && ix <= add[n-1].Last+1 {
			if ix > add[n-1].Last {
				add[n-1].Last = ix
			}
			continue
		}
		add = append(add, Interval{ix, ix})
	}
	return s.Union(add)
}

// FirstMissing returns up to count indexes below limit that are in none of
// the excluded sets, lowest first. Its cost is bounded by count and the
// number of excluded intervals, never by limit.
func FirstMissing(count, limit int, excluded ...Set) []int {
	if count <= 0 {
		return nil
	}
	var taken Set
	for _, e := range excluded {
		taken = taken.Union(e)
	}
	out := make([]int, 0, min(count, max(limit, 0)))
	next := 0
	for _, iv := range taken {
		for ; next < limit && len(out) < count && next < iv.First; next++ {
			out = append(out, next)
		}
		if next <= iv.Last {
			next = iv.Last + 1
		}
	}
	for ; next < limit && len(out) < count; next++ {
		out = append(out, next)
	}
	return out
}

// Between returns the part of s within [lo, hi].
func (s Set) Between(lo, hi int) Set {
	var out Set
	for _, iv := range s {
		f, l := max(iv.First, lo), min(iv.Last, hi)
		if f <= l {
			out = append(out, Interval{f, l})
		}
	}
	return out
}

// CountIn is the number of indexes of s that are also in o.
func (s Set) CountIn(o Set) int {
	n, i, j := 0, 0, 0
	for i < len(s) && j < len(o) {
		if f, l := max(s[i].First, o[j].First), min(s[i].Last, o[j].Last); f <= l {
			n += l - f + 1
		}
		if s[i].Last < o[j].Last {
			i++
		} else {
			j++
		}
	}
	return n
}
