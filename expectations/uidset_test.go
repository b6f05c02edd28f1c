package expectations_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
)

func TestUIDSetJSON(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want string
	}{
		{"empty list", `[]`, `[]`},
		{"null", `null`, `[]`},
		{"sorted and deduplicated", `["c","a","b","a"]`, `["a","b","c"]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s expectations.UIDSet
			if err := json.Unmarshal([]byte(tc.in), &s); err != nil {
				t.Fatal(err)
			}
			out, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("round trip of %s = %s, want %s", tc.in, out, tc.want)
			}
		})
	}
	var bad expectations.UIDSet
	if err := json.Unmarshal([]byte(`{"a":1}`), &bad); err == nil {
		t.Errorf("an object decoded as a UIDSet")
	}
}

// TestExpectationsJSON: the field keeps the JSON shape of a list, and is
// left out when empty.
func TestExpectationsJSON(t *testing.T) {
	e := expectations.Expectations{Creations: 1}.ExpectFinalizerRemovals("b", "a")
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"creations":1,"setAt":"0001-01-01T00:00:00Z","finalizerRemovals":["a","b"]}`; string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
	var back expectations.Expectations
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	out, _ = json.Marshal(e.FinalizerRemovalObserved("a").FinalizerRemovalObserved("b"))
	if want := `{"creations":1,"setAt":"0001-01-01T00:00:00Z"}`; string(out) != want {
		t.Errorf("Marshal of no removals = %s, want %s", out, want)
	}
}

// TestUIDSetEqual: sets holding the same UIDs are equal under Equal, go-cmp
// and reflect.DeepEqual, however they were built.
func TestUIDSetEqual(t *testing.T) {
	var a, b expectations.UIDSet
	for i := range 2000 {
		a = a.Add(types.UID(fmt.Sprintf("uid-%d", i)))
		b = b.Add(types.UID(fmt.Sprintf("uid-%d", 1999-i)), "extra")
	}
	b = b.Remove("extra")
	if !a.Equal(b) || !cmp.Equal(a, b) || !reflect.DeepEqual(a, b) {
		t.Fatalf("same 2000 UIDs, built in opposite orders: Equal %v, cmp %v, DeepEqual %v", a.Equal(b), cmp.Equal(a, b), reflect.DeepEqual(a, b))
	}
	if c := a.Remove("uid-7"); a.Equal(c) || cmp.Equal(a, c) {
		t.Errorf("sets of different sizes are equal")
	}
	if c := a.Remove("uid-7").Add("uid-x"); a.Equal(c) {
		t.Errorf("sets of the same size, different UIDs, are equal")
	}
	if !(expectations.UIDSet{}).Equal(expectations.NewUIDSet("a").Remove("a")) {
		t.Errorf("an emptied set is not the zero set")
	}
}

// TestUIDSetObservationCost: adding or removing one UID allocates a few
// path nodes, not a copy of the set, whatever its size.
func TestUIDSetObservationCost(t *testing.T) {
	for _, n := range []int{1000, 100_000} {
		s := expectations.UIDSet{}
		uids := make([]types.UID, n)
		for i := range uids {
			uids[i] = types.UID(fmt.Sprintf("0b5a6c2e-1d7f-4e0a-9c3b-%012d", i))
		}
		s = s.Add(uids...)
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			_ = s.Remove(uids[i%n]).Add("one-more")
			i++
		})
		// Depth is about log32(n): 2 to 4 levels here, two allocations a
		// level (the node and its slice) for each of the two changes.
		if allocs > 24 {
			t.Errorf("n=%d: a removal and an addition allocate %.0f times", n, allocs)
		}
		if s.Len() != n {
			t.Errorf("Len = %d, want %d", s.Len(), n)
		}
	}
}

func BenchmarkFinalizerRemovalObserved(b *testing.B) {
	for _, n := range []int{100, 10_000, 1_000_000} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			uids := make([]types.UID, n)
			for i := range uids {
				uids[i] = types.UID(fmt.Sprintf("0b5a6c2e-1d7f-4e0a-9c3b-%012d", i))
			}
			e := expectations.Expectations{}.ExpectFinalizerRemovals(uids...)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// Each iteration observes one of the n pending removals,
				// from the same value: the set keeps its size.
				_ = e.FinalizerRemovalObserved(uids[i%n])
				i++
			}
		})
	}
}
