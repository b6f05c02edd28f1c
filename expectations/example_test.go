package expectations_test

import (
	"fmt"
	"time"

	"github.com/jobsync/jobsync/expectations"
)

// A controller creates three pods and removes the tracking finalizer of a
// finished one, then feeds back what its informer sees. Pod management waits
// until the creations are observed or five minutes have passed; finalizer
// removals are remembered until seen, with no timeout.
func Example() {
	start := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	var e expectations.Expectations

	// What the plan of the first sync leaves behind.
	e = e.ExpectCreations(3, start).ExpectFinalizerRemovals("pod-uid-7")
	fmt.Println("may manage pods:", e.Satisfied(start.Add(time.Second), expectations.DefaultTimeout))

	// The informer sees two of the new pods, and pod-uid-7 without its finalizer.
	e = e.CreationObserved().CreationObserved().FinalizerRemovalObserved("pod-uid-7")
	fmt.Println("creations still expected:", e.Creations)
	fmt.Println("waiting for pod-uid-7:", e.ExpectsFinalizerRemoval("pod-uid-7"))
	fmt.Println("may manage pods at 12:05:00:", e.Satisfied(start.Add(5*time.Minute), expectations.DefaultTimeout))
	fmt.Println("may manage pods at 12:05:01:", e.Satisfied(start.Add(5*time.Minute+time.Second), expectations.DefaultTimeout))

	// The third creation shows up: fulfilled without waiting for expiry.
	e = e.CreationObserved()
	fmt.Println("may manage pods:", e.Satisfied(start.Add(10*time.Second), expectations.DefaultTimeout))
	// Output:
	// may manage pods: false
	// creations still expected: 1
	// waiting for pod-uid-7: false
	// may manage pods at 12:05:00: false
	// may manage pods at 12:05:01: true
	// may manage pods: true
}
