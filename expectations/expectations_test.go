package expectations_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/expectations"
)

var t0 = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestDefaultTimeout(t *testing.T) {
	if expectations.DefaultTimeout != 5*time.Minute {
		t.Errorf("DefaultTimeout = %v, want upstream's ExpectationsTimeout of 5m", expectations.DefaultTimeout)
	}
}

// TestSatisfied: pod management may go ahead when nothing is pending
// (fulfilled) or when what is pending was set more than the timeout ago
// (expired); at exactly the timeout it still waits.
func TestSatisfied(t *testing.T) {
	timeout := expectations.DefaultTimeout
	cases := []struct {
		name string
		e    expectations.Expectations
		now  time.Time
		want bool
	}{
		{"zero value expects nothing", expectations.Expectations{}, t0, true},
		{"zero value, zero clock", expectations.Expectations{}, time.Time{}, true},
		{"creations pending, just set", expectations.Expectations{Creations: 2, SetAt: t0}, t0, false},
		{"deletions pending, just set", expectations.Expectations{Deletions: 1, SetAt: t0}, t0, false},
		{"both pending", expectations.Expectations{Creations: 1, Deletions: 1, SetAt: t0}, at(time.Minute), false},
		{"pending, 1ns short of the timeout", expectations.Expectations{Creations: 1, SetAt: t0}, at(timeout - 1), false},
		{"pending, exactly the timeout: not yet expired", expectations.Expectations{Creations: 1, SetAt: t0}, at(timeout), false},
		{"pending, 1ns past the timeout: expired", expectations.Expectations{Creations: 1, SetAt: t0}, at(timeout + 1), true},
		{"deletions pending, exactly the timeout", expectations.Expectations{Deletions: 3, SetAt: t0}, at(timeout), false},
		{"deletions pending, past the timeout", expectations.Expectations{Deletions: 3, SetAt: t0}, at(timeout + time.Second), true},
		{"all observed: fulfilled at once", expectations.Expectations{SetAt: t0}, t0, true},
		{"more observed than expected counts as fulfilled", expectations.Expectations{Creations: -2, Deletions: -1, SetAt: t0}, t0, true},
		{"creations over-observed but a deletion pending", expectations.Expectations{Creations: -1, Deletions: 1, SetAt: t0}, t0, false},
		{"pending with a zero SetAt: long expired", expectations.Expectations{Creations: 1}, t0, true},
		{"pending, SetAt after now (clock skew): waits", expectations.Expectations{Creations: 1, SetAt: at(time.Hour)}, t0, false},
		{"finalizer removals pending do not hold back", expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet("a")}, t0, true},
		{"JobFinished does not hold back pod management", expectations.Expectations{JobFinished: true}, t0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.e.Satisfied(tc.now, timeout); got != tc.want {
				t.Errorf("Satisfied = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSatisfiedCustomTimeout(t *testing.T) {
	e := expectations.Expectations{Creations: 1, SetAt: t0}
	cases := []struct {
		timeout time.Duration
		now     time.Time
		want    bool
	}{
		{time.Second, at(time.Second), false},
		{time.Second, at(time.Second + 1), true},
		{0, t0, false},
		{0, at(1), true},
		{time.Hour, at(30 * time.Minute), false},
	}
	for _, tc := range cases {
		if got := e.Satisfied(tc.now, tc.timeout); got != tc.want {
			t.Errorf("timeout %v, %v after SetAt: Satisfied = %v, want %v", tc.timeout, tc.now.Sub(t0), got, tc.want)
		}
	}
}

// TestCounts: ExpectCreations and ExpectDeletions replace both counts and
// the time, as upstream's SetExpectations does; the Observed methods lower
// one count each, without a floor. Finalizer removals and JobFinished pass
// through untouched.
func TestCounts(t *testing.T) {
	keep := func(e expectations.Expectations) expectations.Expectations {
		e.FinalizerRemovals = expectations.NewUIDSet("u1")
		e.JobFinished = true
		return e
	}
	start := keep(expectations.Expectations{Creations: 3, Deletions: 4, SetAt: at(-time.Hour)})
	cases := []struct {
		name string
		op   func(expectations.Expectations) expectations.Expectations
		want expectations.Expectations
	}{
		{"ExpectCreations replaces both counts and the time",
			func(e expectations.Expectations) expectations.Expectations { return e.ExpectCreations(2, t0) },
			keep(expectations.Expectations{Creations: 2, SetAt: t0})},
		{"ExpectDeletions replaces both counts and the time",
			func(e expectations.Expectations) expectations.Expectations { return e.ExpectDeletions(5, t0) },
			keep(expectations.Expectations{Deletions: 5, SetAt: t0})},
		{"ExpectCreations(0) still resets the time",
			func(e expectations.Expectations) expectations.Expectations { return e.ExpectCreations(0, t0) },
			keep(expectations.Expectations{SetAt: t0})},
		{"CreationObserved lowers creations only",
			func(e expectations.Expectations) expectations.Expectations { return e.CreationObserved() },
			keep(expectations.Expectations{Creations: 2, Deletions: 4, SetAt: at(-time.Hour)})},
		{"DeletionObserved lowers deletions only",
			func(e expectations.Expectations) expectations.Expectations { return e.DeletionObserved() },
			keep(expectations.Expectations{Creations: 3, Deletions: 3, SetAt: at(-time.Hour)})},
		{"observations go below zero",
			func(e expectations.Expectations) expectations.Expectations {
				e = e.ExpectCreations(1, t0)
				return e.CreationObserved().CreationObserved().DeletionObserved()
			},
			keep(expectations.Expectations{Creations: -1, Deletions: -1, SetAt: t0})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := start
			got := tc.op(in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(start, in); diff != "" {
				t.Errorf("receiver modified (-before +after):\n%s", diff)
			}
		})
	}
}

// TestLifecycle walks the create-then-observe cycle of one Job.
func TestLifecycle(t *testing.T) {
	var e expectations.Expectations
	e = e.ExpectCreations(2, t0)
	if e.Satisfied(at(time.Second), expectations.DefaultTimeout) {
		t.Fatalf("satisfied with two creations unseen")
	}
	e = e.CreationObserved()
	if e.Satisfied(at(2*time.Second), expectations.DefaultTimeout) {
		t.Fatalf("satisfied with one creation unseen")
	}
	if !e.Satisfied(at(expectations.DefaultTimeout+time.Second), expectations.DefaultTimeout) {
		t.Fatalf("one creation unseen for longer than the timeout must not block")
	}
	e = e.CreationObserved()
	if !e.Satisfied(at(3*time.Second), expectations.DefaultTimeout) {
		t.Fatalf("not satisfied once every creation was seen")
	}
}

func uids(s ...string) []types.UID {
	var out []types.UID
	for _, x := range s {
		out = append(out, types.UID(x))
	}
	return out
}

func TestExpectFinalizerRemovals(t *testing.T) {
	cases := []struct {
		name string
		have []types.UID
		add  []types.UID
		want []types.UID
	}{
		{"none to none", nil, nil, nil},
		{"nothing added keeps the set", uids("b", "a", "b"), nil, uids("a", "b")},
		{"to an empty set", nil, uids("c", "a", "b"), uids("a", "b", "c")},
		{"duplicates among the added collapse", nil, uids("a", "a", "b", "a"), uids("a", "b")},
		{"merged with the pending ones", uids("b", "d"), uids("c", "a"), uids("a", "b", "c", "d")},
		{"adding a pending one again is a no-op", uids("a", "b"), uids("b"), uids("a", "b")},
		{"the empty UID is a UID like any other", nil, uids("", "a"), uids("", "a")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet(tc.have...)}
			before := e.FinalizerRemovals.Sorted()
			got := e.ExpectFinalizerRemovals(tc.add...)
			if diff := cmp.Diff(tc.want, got.FinalizerRemovals.Sorted()); diff != "" {
				t.Errorf("FinalizerRemovals (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, e.FinalizerRemovals.Sorted()); diff != "" {
				t.Errorf("receiver modified (-before +after):\n%s", diff)
			}
			for _, u := range tc.add {
				if !got.ExpectsFinalizerRemoval(u) {
					t.Errorf("ExpectsFinalizerRemoval(%q) = false after adding it", u)
				}
			}
		})
	}
}

func TestFinalizerRemovalObserved(t *testing.T) {
	cases := []struct {
		name     string
		have     []types.UID
		observed types.UID
		want     []types.UID
	}{
		{"nothing pending", nil, "a", nil},
		{"an unexpected UID changes nothing", uids("a", "c"), "b", uids("a", "c")},
		{"the first", uids("a", "b", "c"), "a", uids("b", "c")},
		{"the middle", uids("a", "b", "c"), "b", uids("a", "c")},
		{"the last", uids("a", "b", "c"), "c", uids("a", "b")},
		{"the only one leaves the empty set", uids("a"), "a", nil},
		{"a UID listed twice by a caller is observed once and for all", uids("a", "b", "a"), "a", uids("b")},
		{"a list of nothing but one duplicated UID empties", uids("x", "x", "x"), "x", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet(tc.have...)}
			before := e.FinalizerRemovals.Sorted()
			got := e.FinalizerRemovalObserved(tc.observed)
			if diff := cmp.Diff(tc.want, got.FinalizerRemovals.Sorted()); diff != "" {
				t.Errorf("FinalizerRemovals (-want +got):\n%s", diff)
			}
			if got.ExpectsFinalizerRemoval(tc.observed) {
				t.Errorf("ExpectsFinalizerRemoval(%q) = true after observing it", tc.observed)
			}
			if diff := cmp.Diff(before, e.FinalizerRemovals.Sorted()); diff != "" {
				t.Errorf("receiver modified (-before +after):\n%s", diff)
			}
			if len(tc.want) == 0 && !got.FinalizerRemovals.IsZero() {
				t.Errorf("empty set is not the zero UIDSet: %#v", got.FinalizerRemovals)
			}
		})
	}
}

func TestExpectsFinalizerRemoval(t *testing.T) {
	e := expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet(uids("b", "a")...)}
	for u, want := range map[types.UID]bool{"a": true, "b": true, "c": false, "": false} {
		if got := e.ExpectsFinalizerRemoval(u); got != want {
			t.Errorf("ExpectsFinalizerRemoval(%q) = %v, want %v", u, got, want)
		}
	}
	if (expectations.Expectations{}).ExpectsFinalizerRemoval("") {
		t.Errorf("the zero value expects a removal")
	}
}

// TestValueSemantics: a copy of an Expectations evolves on its own; no
// method writes into a list another value still holds.
func TestValueSemantics(t *testing.T) {
	base := expectations.Expectations{}.ExpectFinalizerRemovals("a", "b", "c")
	held := base.FinalizerRemovals.Sorted()

	branch1 := base.FinalizerRemovalObserved("a")
	branch2 := base.ExpectFinalizerRemovals("d")
	branch3 := base.FinalizerRemovalObserved("c").ExpectFinalizerRemovals("0")

	if diff := cmp.Diff(held, base.FinalizerRemovals.Sorted()); diff != "" {
		t.Fatalf("original changed (-before +after):\n%s", diff)
	}
	for name, c := range map[string]struct{ got, want []types.UID }{
		"branch1": {branch1.FinalizerRemovals.Sorted(), uids("b", "c")},
		"branch2": {branch2.FinalizerRemovals.Sorted(), uids("a", "b", "c", "d")},
		"branch3": {branch3.FinalizerRemovals.Sorted(), uids("0", "a", "b")},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
