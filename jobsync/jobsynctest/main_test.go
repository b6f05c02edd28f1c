package jobsynctest_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// lifecycles sets how many lifecycles each property runs; it is rapid's
// -rapid.checks under a name that says what it counts. An explicit
// -rapid.checks wins over both.
var lifecycles = flag.Int("lifecycles", 1000, "lifecycles per property (rapid's checks)")

// sabotage turns on, in every lifecycle of the properties, the wrong
// write-ahead order (finalizers removed before the status write), to watch
// the properties catch it.
var sabotage = flag.Bool("sabotage.writeahead", false, "remove finalizers before the interim status write in every lifecycle")

// TestMain makes each property run -lifecycles cases (1000 by default).
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			explicit = true
		}
	})
	if !explicit {
		_ = flag.Set("rapid.checks", fmt.Sprint(*lifecycles))
	}
	os.Exit(m.Run())
}
