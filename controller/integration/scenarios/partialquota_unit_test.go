package scenarios

import (
	"testing"
	"time"
)

func TestTimelineLongestFree(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// Quota 2, four pods: a and b start together; a finishes at 1000 and
	// c replaces it at 1300; b finishes at 1100 and d replaces it at 2500;
	// then c and d finish with nothing left to make.
	tl := &timeline{
		created:  map[string]time.Time{"a": at(0), "b": at(0), "c": at(1300), "d": at(2500)},
		finished: map[string]time.Time{"a": at(1000), "b": at(1100), "c": at(3000), "d": at(3500)},
	}
	if got, want := tl.longestFree(2, 4), 1500*time.Millisecond; got != want {
		t.Errorf("longestFree = %v, want %v (from a's finish at 1.0s to d at 2.5s, a place free throughout)", got, want)
	}
	if got := tl.maxRunning(); got != 2 {
		t.Errorf("maxRunning = %d, want 2", got)
	}
	// With a fifth pod never made, the end is free too, but it is not a
	// gap the Job waited on once all were made: completions 4 ends it.
	if got, want := tl.longestFree(2, 5), 1500*time.Millisecond; got != want {
		t.Errorf("longestFree with a pod missing = %v, want %v (an open gap at the end is not counted)", got, want)
	}
	// A pod seen created and finished in one poll counts as running first.
	tl = &timeline{created: map[string]time.Time{"a": at(0), "b": at(0)}, finished: map[string]time.Time{"a": at(0)}}
	if got := tl.maxRunning(); got != 2 {
		t.Errorf("maxRunning = %d, want 2", got)
	}
}
