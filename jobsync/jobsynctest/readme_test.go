package jobsynctest_test

import (
	"flag"
	"os"
	"regexp"
	"testing"
)

// TestREADMEStatesTheDefaultLifecycles keeps the number of lifecycles per
// property that README.md gives for a default run equal to the -lifecycles
// flag's default.
func TestREADMEStatesTheDefaultLifecycles(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("runs each property with ([0-9]+) lifecycles").FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md no longer says how many lifecycles a default run gives each property")
	}
	def := flag.Lookup("lifecycles").DefValue
	if string(m[1]) != def {
		t.Errorf("README.md says a default run has %s lifecycles per property; -lifecycles defaults to %s", m[1], def)
	}
	for _, m := range regexp.MustCompile(`default run \(([0-9]+) per property\)`).FindAllSubmatch(data, -1) {
		if string(m[1]) != def {
			t.Errorf("README.md says the default run has %s per property; -lifecycles defaults to %s", m[1], def)
		}
	}
}
