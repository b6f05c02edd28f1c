package indexes_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobsync/jobsync/indexes"
)

type S = indexes.Set

func TestString(t *testing.T) {
	cases := []struct {
		name string
		set  S
		want string
	}{
		{"nil set", nil, ""},
		{"empty non-nil set", S{}, ""},
		{"one index", S{{0, 0}}, "0"},
		{"a pair of neighbours is written as two", S{{3, 4}}, "3,4"},
		{"three or more as a range", S{{3, 5}}, "3-5"},
		{"mixed", S{{1, 1}, {3, 5}, {7, 7}}, "1,3-5,7"},
		{"pair then range then single", S{{0, 1}, {3, 9}, {12, 12}}, "0,1,3-9,12"},
		{"large indexes", S{{99999, 100001}, {2147483646, 2147483647}}, "99999-100001,2147483646,2147483647"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHas(t *testing.T) {
	two := S{{2, 4}, {6, 8}}
	cases := []struct {
		name string
		set  S
		ix   int
		want bool
	}{
		{"empty set", nil, 4, false},
		{"negative index", S{{0, 3}}, -1, false},
		{"before all", S{{2, 4}, {5, 7}}, 1, false},
		{"after all", two, 9, false},
		{"in the gap", two, 5, false},
		{"first of the first interval", two, 2, true},
		{"inside the first interval", two, 3, true},
		{"last of the first interval", two, 4, true},
		{"first of the second interval", two, 6, true},
		{"last of the last interval", two, 8, true},
		{"single-index intervals", S{{0, 0}, {2, 2}, {4, 4}}, 2, true},
		{"between single-index intervals", S{{0, 0}, {2, 2}, {4, 4}}, 3, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.Has(tc.ix); got != tc.want {
				t.Errorf("%v.Has(%d) = %v, want %v", tc.set, tc.ix, got, tc.want)
			}
		})
	}
}

func TestTotal(t *testing.T) {
	cases := []struct {
		set  S
		want int
	}{
		{nil, 0},
		{S{{0, 0}}, 1},
		{S{{3, 4}}, 2},
		{S{{1, 1}, {3, 5}, {7, 7}}, 5},
		{S{{0, 99}, {200, 299}}, 200},
	}
	for _, tc := range cases {
		if got := tc.set.Total(); got != tc.want {
			t.Errorf("%v.Total() = %d, want %d", tc.set, got, tc.want)
		}
	}
}

// TestUnion: the result is canonical (ascending, neither overlapping nor
// adjacent) whatever the operands' relative layout; both operand orders
// give the same answer; neither operand changes.
func TestUnion(t *testing.T) {
	cases := []struct {
		name string
		a, b S
		want S
	}{
		{"both empty", nil, nil, nil},
		{"empty and set", nil, S{{1, 2}}, S{{1, 2}}},
		{"empty non-nil and set", S{}, S{{1, 2}}, S{{1, 2}}},
		{"disjoint", S{{0, 1}}, S{{5, 6}}, S{{0, 1}, {5, 6}}},
		{"adjacent intervals join", S{{0, 4}}, S{{5, 6}}, S{{0, 6}}},
		{"single indexes adjacent join", S{{4, 4}}, S{{5, 5}}, S{{4, 5}}},
		{"a gap of one index does not join", S{{0, 3}}, S{{5, 6}}, S{{0, 3}, {5, 6}}},
		{"overlap", S{{0, 5}}, S{{3, 8}}, S{{0, 8}}},
		{"same start", S{{2, 3}}, S{{2, 7}}, S{{2, 7}}},
		{"containment", S{{0, 10}}, S{{2, 3}, {5, 6}}, S{{0, 10}}},
		{"identical", S{{1, 1}, {3, 4}}, S{{1, 1}, {3, 4}}, S{{1, 1}, {3, 4}}},
		{"interleaved singles fill the gaps", S{{0, 0}, {2, 2}, {4, 4}}, S{{1, 1}, {3, 3}}, S{{0, 4}}},
		{"a bridge joins two intervals", S{{0, 2}, {6, 9}}, S{{3, 5}}, S{{0, 9}}},
		{"a long interval swallows several", S{{1, 1}, {3, 3}, {5, 5}, {20, 21}}, S{{0, 10}}, S{{0, 10}, {20, 21}}},
		// From upstream's calculateSucceededIndexes cases.
		{"prev and new separate", S{{0, 0}, {4, 5}, {10, 12}}, S{{2, 2}, {7, 8}}, S{{0, 0}, {2, 2}, {4, 5}, {7, 8}, {10, 12}}},
		{"prev between new", S{{3, 4}, {6, 6}}, S{{2, 2}, {7, 8}}, S{{2, 4}, {6, 8}}},
		{"new between prev", S{{2, 2}, {7, 8}}, S{{3, 4}, {6, 6}}, S{{2, 4}, {6, 8}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := clone(tc.a), clone(tc.b)
			for _, order := range []struct {
				name string
				x, y S
			}{{"a∪b", tc.a, tc.b}, {"b∪a", tc.b, tc.a}} {
				got := order.x.Union(order.y)
				if diff := cmp.Diff(tc.want, got, emptyIsNil); diff != "" {
					t.Errorf("%s (-want +got):\n%s", order.name, diff)
				}
			}
			if diff := cmp.Diff(a, tc.a); diff != "" {
				t.Errorf("first operand modified:\n%s", diff)
			}
			if diff := cmp.Diff(b, tc.b); diff != "" {
				t.Errorf("second operand modified:\n%s", diff)
			}
		})
	}
}

// TestUnionDoesNotAlias: the result owns its memory, even when one operand
// is empty and the answer equals the other.
func TestUnionDoesNotAlias(t *testing.T) {
	a := S{{1, 2}, {5, 6}}
	for name, got := range map[string]S{
		"a∪nil": a.Union(nil),
		"nil∪a": S(nil).Union(a),
		"a∪a":   a.Union(a),
	} {
		got[0].First = 99
		if a[0].First != 1 {
			t.Fatalf("%s shares memory with its operand", name)
		}
	}
}

func TestWithIndexes(t *testing.T) {
	cases := []struct {
		name string
		set  S
		add  []int
		want S
	}{
		{"nothing to nothing", nil, nil, nil},
		{"nothing added", S{{1, 2}}, nil, S{{1, 2}}},
		{"to an empty set", nil, []int{1, 2, 3, 7}, S{{1, 3}, {7, 7}}},
		{"duplicates are fine", nil, []int{1, 1, 2, 2, 2, 5}, S{{1, 2}, {5, 5}}},
		{"indexes already present", S{{0, 5}}, []int{0, 3, 5}, S{{0, 5}}},
		{"extending at both ends", S{{3, 4}}, []int{2, 5}, S{{2, 5}}},
		{"filling a gap", S{{0, 1}, {3, 4}}, []int{2}, S{{0, 4}}},
		// From upstream's calculateSucceededIndexes cases.
		{"two separate", nil, []int{5, 10}, S{{5, 5}, {10, 10}}},
		{"two intervals", nil, []int{2, 3, 5, 6, 7}, S{{2, 3}, {5, 7}}},
		{"new within prev", S{{2, 7}}, []int{0, 3, 5, 9}, S{{0, 0}, {2, 7}, {9, 9}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := clone(tc.set)
			got := tc.set.WithIndexes(tc.add)
			if diff := cmp.Diff(tc.want, got, emptyIsNil); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.set); diff != "" {
				t.Errorf("receiver modified:\n%s", diff)
			}
		})
	}
}

// TestFirstMissing: the count lowest indexes below limit in none of the
// excluded sets (upstream's firstPendingIndexes loop).
func TestFirstMissing(t *testing.T) {
	cases := []struct {
		name         string
		count, limit int
		excluded     []S
		want         []int
	}{
		{"count zero", 0, 10, nil, nil},
		{"count negative", -1, 10, nil, nil},
		{"limit zero", 3, 0, nil, []int{}},
		{"limit negative", 3, -5, nil, []int{}},
		{"count greater than limit", 5, 3, nil, []int{0, 1, 2}},
		{"count less than limit", 2, 5, nil, []int{0, 1}},
		{"the first indexes taken", 3, 10, []S{{{0, 1}}}, []int{2, 3, 4}},
		{"the last indexes taken", 6, 6, []S{{{4, 5}}}, []int{0, 1, 2, 3}},
		{"everything taken", 3, 4, []S{{{0, 3}}}, []int{}},
		{"taken beyond the limit does not matter", 3, 3, []S{{{3, 100}}}, []int{0, 1, 2}},
		{"an interval crossing the limit", 5, 6, []S{{{1, 1}, {4, 10}}}, []int{0, 2, 3}},
		{"gaps between intervals", 5, 20, []S{{{2, 5}, {8, 9}}}, []int{0, 1, 6, 7, 10}},
		{"several excluded sets, overlapping", 5, 20,
			[]S{{{1, 1}, {5, 5}, {9, 9}}, {{3, 3}, {9, 9}}, {{2, 2}, {6, 7}}},
			[]int{0, 4, 8, 10, 11}},
		{"empty excluded sets", 2, 5, []S{nil, {}, nil}, []int{0, 1}},
		{"a huge limit costs nothing", 3, 1 << 40, []S{{{0, 1 << 30}}}, []int{1<<30 + 1, 1<<30 + 2, 1<<30 + 3}},
		// Upstream's "mixed": succeeded 2-4,9 and active 3,5,8.
		{"upstream's mixed case", 5, 20, []S{{{2, 4}, {9, 9}}, {{3, 3}, {5, 5}, {8, 8}}}, []int{0, 1, 6, 7, 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before []S
			for _, e := range tc.excluded {
				before = append(before, clone(e))
			}
			got := indexes.FirstMissing(tc.count, tc.limit, tc.excluded...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FirstMissing(%d, %d, %v) (-want +got):\n%s", tc.count, tc.limit, tc.excluded, diff)
			}
			for i := range before {
				if diff := cmp.Diff(before[i], tc.excluded[i]); diff != "" {
					t.Errorf("excluded[%d] modified:\n%s", i, diff)
				}
			}
		})
	}
}

func TestBetween(t *testing.T) {
	set := S{{0, 2}, {5, 9}, {12, 12}}
	cases := []struct {
		name   string
		lo, hi int
		want   S
	}{
		{"everything", 0, 100, set},
		{"nothing: an empty window", 5, 4, nil},
		{"nothing: in a gap", 3, 4, nil},
		{"clips an interval on both sides", 6, 8, S{{6, 8}}},
		{"clips the ends", 1, 12, S{{1, 2}, {5, 9}, {12, 12}}},
		{"a single index", 12, 12, S{{12, 12}}},
		{"negative bounds", -10, 0, S{{0, 0}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := set.Between(tc.lo, tc.hi)
			if diff := cmp.Diff(tc.want, got, emptyIsNil); diff != "" {
				t.Errorf("Between(%d, %d) (-want +got):\n%s", tc.lo, tc.hi, diff)
			}
		})
	}
}

func TestCountIn(t *testing.T) {
	cases := []struct {
		name string
		a, b S
		want int
	}{
		{"both empty", nil, nil, 0},
		{"one empty", S{{0, 5}}, nil, 0},
		{"disjoint", S{{0, 2}}, S{{3, 5}}, 0},
		{"identical", S{{0, 2}, {4, 4}}, S{{0, 2}, {4, 4}}, 4},
		{"containment", S{{0, 10}}, S{{2, 3}, {7, 7}}, 3},
		{"partial overlaps", S{{0, 4}, {8, 12}}, S{{3, 9}}, 4},
		{"many small against one", S{{1, 1}, {3, 3}, {5, 5}, {7, 7}}, S{{2, 6}}, 2},
		{"an interval of one spanning several of the other", S{{0, 1}, {3, 4}, {6, 7}}, S{{1, 6}, {9, 9}}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.CountIn(tc.b); got != tc.want {
				t.Errorf("%v.CountIn(%v) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := tc.b.CountIn(tc.a); got != tc.want {
				t.Errorf("%v.CountIn(%v) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
			}
		})
	}
}

// TestUnionNonCanonical: on the lists ParseLenient reads from malformed
// status, Union and WithIndexes give what upstream's merge and
// withOrderedIndexes give, including when there is nothing to add (upstream
// still walks the list).
func TestUnionNonCanonical(t *testing.T) {
	cases := []struct {
		name   string
		status string
		add    []int
		want   S
	}{
		{"descending: the lower index is merged into the interval before it", "5,1", nil, S{{5, 5}}},
		{"descending, with an index added before both", "5,1", []int{3}, S{{3, 3}, {5, 5}}},
		{"descending ranges: the later one extends the earlier", "5-6,1-9", nil, S{{5, 9}}},
		{"overlapping ranges are joined", "1-5,3-4", nil, S{{1, 5}}},
		{"a reversed range is kept as it comes", "4-2", nil, S{{4, 2}}},
		{"a reversed range then an index inside it", "4-2,3", nil, S{{4, 3}}},
		{"duplicates collapse", "2,2,2", nil, S{{2, 2}}},
		{"canonical input is unchanged", "0,2-4", nil, S{{0, 0}, {2, 4}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := indexes.ParseLenient(tc.status, 100)
			if diff := cmp.Diff(tc.want, in.WithIndexes(tc.add), emptyIsNil); diff != "" {
				t.Errorf("WithIndexes (-want +got):\n%s", diff)
			}
			add := S(nil).WithIndexes(tc.add)
			if diff := cmp.Diff(tc.want, in.Union(add), emptyIsNil); diff != "" {
				t.Errorf("in∪add (-want +got):\n%s", diff)
			}
			if len(tc.add) == 0 {
				if diff := cmp.Diff(tc.want, S(nil).Union(in), emptyIsNil); diff != "" {
					t.Errorf("nil∪in (-want +got):\n%s", diff)
				}
			}
		})
	}
}
