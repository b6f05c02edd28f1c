package expectations_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/expectations"
)

// model is upstream's ControllerExpectations entry plus its uidTrackingExpectations set for
// one Job, written as plainly as possible.
type model struct {
	add, del int64
	setAt    time.Time
	uids     map[types.UID]bool
}

func (m model) satisfied(now time.Time, timeout time.Duration) bool {
	fulfilled := m.add <= 0 && m.del <= 0
	expired := now.Sub(m.setAt) > timeout
	return fulfilled || expired
}

// TestPropertyAgainstModel runs random sequences of operations, starting from
// any list a caller may hand in (unsorted, with duplicates), and checks each
// step against the model; every step must also leave the value it started
// from as it was.
func TestPropertyAgainstModel(t *testing.T) {
	domain := uids("", "a", "b", "c", "d")
	rapid.Check(t, func(t *rapid.T) {
		initial := rapid.SliceOfN(rapid.SampledFrom(domain), 0, 6).Draw(t, "initial")
		e := expectations.Expectations{FinalizerRemovals: expectations.NewUIDSet(initial...)}
		m := model{uids: map[types.UID]bool{}}
		for _, u := range initial {
			m.uids[u] = true
		}
		clock := t0
		for range rapid.IntRange(0, 30).Draw(t, "steps") {
			clock = clock.Add(time.Duration(rapid.IntRange(0, 400).Draw(t, "tick")) * time.Second)
			prev := e
			prevList := e.FinalizerRemovals.Sorted()
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); op {
			case 0:
				n := rapid.IntRange(0, 5).Draw(t, "creations")
				e = e.ExpectCreations(n, clock)
				m.add, m.del, m.setAt = int64(n), 0, clock
			case 1:
				n := rapid.IntRange(0, 5).Draw(t, "deletions")
				e = e.ExpectDeletions(n, clock)
				m.add, m.del, m.setAt = 0, int64(n), clock
			case 2:
				e = e.CreationObserved()
				m.add--
			case 3:
				e = e.DeletionObserved()
				m.del--
			case 4:
				add := rapid.SliceOfN(rapid.SampledFrom(domain), 0, 4).Draw(t, "expect")
				e = e.ExpectFinalizerRemovals(add...)
				for _, u := range add {
					m.uids[u] = true
				}
			case 5:
				u := rapid.SampledFrom(domain).Draw(t, "observed")
				e = e.FinalizerRemovalObserved(u)
				delete(m.uids, u)
			}
			if diff := cmp.Diff(prevList, prev.FinalizerRemovals.Sorted()); diff != "" {
				t.Fatalf("operation wrote into the previous value's list (-before +after):\n%s", diff)
			}
			if e.Creations != m.add || e.Deletions != m.del || !e.SetAt.Equal(m.setAt) {
				t.Fatalf("counts %d/%d at %v, model %d/%d at %v", e.Creations, e.Deletions, e.SetAt, m.add, m.del, m.setAt)
			}
			for _, u := range domain {
				if got := e.ExpectsFinalizerRemoval(u); got != m.uids[u] {
					t.Fatalf("ExpectsFinalizerRemoval(%q) = %v, model %v (list %v)", u, got, m.uids[u], e.FinalizerRemovals)
				}
			}
			if e.FinalizerRemovals.Len() != len(m.uids) {
				t.Fatalf("Len() = %d, model %d (%v)", e.FinalizerRemovals.Len(), len(m.uids), e.FinalizerRemovals)
			}
			for _, timeout := range []time.Duration{0, time.Minute, expectations.DefaultTimeout} {
				for _, now := range []time.Time{clock, m.setAt.Add(timeout), m.setAt.Add(timeout + 1)} {
					if got, want := e.Satisfied(now, timeout), m.satisfied(now, timeout); got != want {
						t.Fatalf("Satisfied(%v, %v) = %v, model %v", now, timeout, got, want)
					}
				}
			}
		}
	})
}
