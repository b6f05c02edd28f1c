package jobsync_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain raises rapid's default number of cases per property to 1000;
// an explicit -rapid.checks on the command line still wins.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			explicit = true
		}
	})
	if !explicit {
		_ = flag.Set("rapid.checks", "1000")
	}
	os.Exit(m.Run())
}
