package indexes_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/indexes"
)

// universe bounds the indexes drawn by the generators: small enough for
// brute force, large enough for gaps, joins and long runs.
const universe = 64

// genMembers draws a set of indexes in [0, universe) as a sorted list.
func genMembers(t *rapid.T, label string) []int {
	ixs := rapid.SliceOfNDistinct(rapid.IntRange(0, universe-1), 0, universe, rapid.ID[int]).Draw(t, label)
	slices.Sort(ixs)
	return ixs
}

func genSet(t *rapid.T, label string) indexes.Set { return fromMembers(genMembers(t, label)) }

func union(lists ...[]int) []int {
	var all []int
	for _, l := range lists {
		all = append(all, l...)
	}
	return slices.Compact(slices.Sorted(slices.Values(all)))
}

func TestPropertyUnion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ma, mb, mc := genMembers(t, "a"), genMembers(t, "b"), genMembers(t, "c")
		a, b, c := fromMembers(ma), fromMembers(mb), fromMembers(mc)
		ab := a.Union(b)
		if err := canonicalErr(ab); err != nil {
			t.Fatalf("a∪b = %v not canonical: %v", ab, err)
		}
		if diff := cmp.Diff(union(ma, mb), members(ab), emptyIsNil); diff != "" {
			t.Fatalf("a∪b is not the set union (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(ab, b.Union(a), emptyIsNil); diff != "" {
			t.Fatalf("not commutative (-a∪b +b∪a):\n%s", diff)
		}
		if diff := cmp.Diff(ab.Union(c), a.Union(b.Union(c)), emptyIsNil); diff != "" {
			t.Fatalf("not associative (-(a∪b)∪c +a∪(b∪c)):\n%s", diff)
		}
		if diff := cmp.Diff(a, a.Union(a), emptyIsNil); diff != "" {
			t.Fatalf("not idempotent:\n%s", diff)
		}
		if diff := cmp.Diff(fromMembers(ma), a); diff != "" {
			t.Fatalf("operand modified:\n%s", diff)
		}
	})
}

func TestPropertyWithIndexes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms := genMembers(t, "set")
		// Sorted, with duplicates allowed.
		add := rapid.SliceOfN(rapid.IntRange(0, universe-1), 0, 20).Draw(t, "add")
		slices.Sort(add)
		got := fromMembers(ms).WithIndexes(add)
		if err := canonicalErr(got); err != nil {
			t.Fatalf("%v not canonical: %v", got, err)
		}
		if diff := cmp.Diff(union(ms, add), members(got), emptyIsNil); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
	})
}

func TestPropertyHasAndTotal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms := genMembers(t, "set")
		s := fromMembers(ms)
		for ix := -2; ix < universe+2; ix++ {
			if got, want := s.Has(ix), slices.Contains(ms, ix); got != want {
				t.Fatalf("%v.Has(%d) = %v, brute force %v", s, ix, got, want)
			}
		}
		if s.Total() != len(ms) {
			t.Fatalf("%v.Total() = %d, want %d", s, s.Total(), len(ms))
		}
	})
}

func TestPropertyFirstMissing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var excluded []indexes.Set
		taken := map[int]bool{}
		for i := range rapid.IntRange(0, 3).Draw(t, "sets") {
			ms := genMembers(t, "excluded"+strconv.Itoa(i))
			excluded = append(excluded, fromMembers(ms))
			for _, ix := range ms {
				taken[ix] = true
			}
		}
		count := rapid.IntRange(-1, universe+3).Draw(t, "count")
		limit := rapid.IntRange(-1, universe+3).Draw(t, "limit")
		var want []int
		for ix := 0; ix < limit && len(want) < count; ix++ {
			if !taken[ix] {
				want = append(want, ix)
			}
		}
		got := indexes.FirstMissing(count, limit, excluded...)
		if diff := cmp.Diff(want, got, emptyIsNil); diff != "" {
			t.Fatalf("FirstMissing(%d, %d, %v) (-brute force +got):\n%s", count, limit, excluded, diff)
		}
	})
}

func TestPropertyBetweenAndCountIn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ma, mb := genMembers(t, "a"), genMembers(t, "b")
		a, b := fromMembers(ma), fromMembers(mb)
		lo := rapid.IntRange(-2, universe+1).Draw(t, "lo")
		hi := rapid.IntRange(-2, universe+1).Draw(t, "hi")
		var in []int
		for _, ix := range ma {
			if lo <= ix && ix <= hi {
				in = append(in, ix)
			}
		}
		got := a.Between(lo, hi)
		if err := canonicalErr(got); err != nil {
			t.Fatalf("Between not canonical: %v", err)
		}
		if diff := cmp.Diff(in, members(got), emptyIsNil); diff != "" {
			t.Fatalf("Between(%d, %d) (-brute force +got):\n%s", lo, hi, diff)
		}
		common := 0
		for _, ix := range ma {
			if slices.Contains(mb, ix) {
				common++
			}
		}
		if got := a.CountIn(b); got != common {
			t.Fatalf("CountIn = %d, brute force %d", got, common)
		}
	})
}

// TestPropertyStringParseRoundTrip: what String prints, Parse reads back
// as the same set, with or without a limit above its indexes.
func TestPropertyStringParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSet(t, "set")
		str := s.String()
		for _, limit := range []int{-1, universe} {
			got, err := indexes.Parse(str, limit)
			if err != nil {
				t.Fatalf("Parse(%q, %d): %v", str, limit, err)
			}
			if diff := cmp.Diff(s, got, emptyIsNil); diff != "" {
				t.Fatalf("round trip of %q (-want +got):\n%s", str, diff)
			}
		}
		if got := indexes.ParseLenient(str, universe); !cmp.Equal(s, got, emptyIsNil) {
			t.Fatalf("ParseLenient(%q) = %v, want %v", str, got, s)
		}
	})
}

// genWellFormed draws a list that Parse accepts but that String would not
// print: neighbours written apart, one-index ranges, leading zeros.
func genWellFormed(t *rapid.T) (string, []int) {
	var elems []string
	var ixs []int
	next := 0
	for i := range rapid.IntRange(0, 8).Draw(t, "elements") {
		first := next + rapid.IntRange(0, 5).Draw(t, "gap"+strconv.Itoa(i))
		last := first + rapid.IntRange(0, 5).Draw(t, "len"+strconv.Itoa(i))
		pad := func(n int, label string) string {
			return strings.Repeat("0", rapid.IntRange(0, 2).Draw(t, label)) + strconv.Itoa(n)
		}
		if first == last && rapid.Bool().Draw(t, "single"+strconv.Itoa(i)) {
			elems = append(elems, pad(first, "padF"+strconv.Itoa(i)))
		} else {
			elems = append(elems, pad(first, "padF"+strconv.Itoa(i))+"-"+pad(last, "padL"+strconv.Itoa(i)))
		}
		for ix := first; ix <= last; ix++ {
			ixs = append(ixs, ix)
		}
		next = last + 1
	}
	return strings.Join(elems, ","), ixs
}

// TestPropertyParseLenientAgreesOnWellFormed: on every list Parse accepts
// with a non-negative limit, the lenient reader gives the same set.
func TestPropertyParseLenientAgreesOnWellFormed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str, ixs := genWellFormed(t)
		limit := rapid.IntRange(0, 60).Draw(t, "limit")
		strict, err := indexes.Parse(str, limit)
		if err != nil {
			if len(ixs) > 0 && ixs[len(ixs)-1] < limit {
				t.Fatalf("Parse(%q, %d) rejects a well-formed list: %v", str, limit, err)
			}
			return
		}
		if diff := cmp.Diff(fromMembers(ixs), strict, emptyIsNil); diff != "" {
			t.Fatalf("Parse(%q) (-want +got):\n%s", str, diff)
		}
		if diff := cmp.Diff(strict, indexes.ParseLenient(str, limit), emptyIsNil); diff != "" {
			t.Fatalf("ParseLenient(%q, %d) differs from Parse (-strict +lenient):\n%s", str, limit, diff)
		}
	})
}

// walkMerge states upstream's merge rule one interval at a time: take the
// intervals of both lists by First (ties to b), keep one that starts more
// than one past the end of the last kept, else stretch the last kept to its
// end.
func walkMerge(a, b indexes.Set) indexes.Set {
	var out indexes.Set
	keep := func(iv indexes.Interval) {
		if n := len(out); n == 0 || iv.First > out[n-1].Last+1 {
			out = append(out, iv)
		} else if iv.Last > out[n-1].Last {
			out[n-1].Last = iv.Last
		}
	}
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && a[0].First < b[0].First) {
			keep(a[0])
			a = a[1:]
		} else {
			keep(b[0])
			b = b[1:]
		}
	}
	return out
}

// genAnyList draws interval lists in any order, overlapping, reversed: what
// ParseLenient makes of malformed status.
func genAnyList(t *rapid.T, label string) indexes.Set {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) indexes.Interval {
		return indexes.Interval{First: rapid.IntRange(0, 20).Draw(t, "first"), Last: rapid.IntRange(0, 20).Draw(t, "last")}
	}), 0, 6).Draw(t, label)
}

// TestPropertyMergeOnAnyList: Union and WithIndexes follow upstream's merge
// on lists in any form, so that malformed status is read as upstream reads it.
func TestPropertyMergeOnAnyList(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genAnyList(t, "a"), genAnyList(t, "b")
		if diff := cmp.Diff(walkMerge(a, b), a.Union(b), emptyIsNil); diff != "" {
			t.Fatalf("%v ∪ %v (-upstream's walk +got):\n%s", a, b, diff)
		}
		add := rapid.SliceOfN(rapid.IntRange(0, 22), 0, 8).Draw(t, "add")
		slices.Sort(add)
		var singles indexes.Set
		for _, ix := range add {
			singles = append(singles, indexes.Interval{First: ix, Last: ix})
		}
		if diff := cmp.Diff(walkMerge(a, singles), a.WithIndexes(add), emptyIsNil); diff != "" {
			t.Fatalf("%v.WithIndexes(%v) (-upstream's walk +got):\n%s", a, add, diff)
		}
	})
}
