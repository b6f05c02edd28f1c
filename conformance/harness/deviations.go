package harness

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Deviation is one deliberate difference from upstream listed in
// DEVIATIONS.md.
type Deviation struct {
	ID    string // the heading, e.g. "D1: ..."
	Class string // the mismatch class it covers, exactly as Verdict.Class prints it
	Test  string // the test that pins the library's behaviour
}

// LoadDeviations reads the deviations listed in the Markdown file at path.
// An entry is a "### " heading followed by "- class: `...`" and
// "- test: `...`" lines (and a "- reason:" for people).
func LoadDeviations(path string) ([]Deviation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Deviation
	var cur *Deviation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Indented lines (the format example) are not entries.
		line := strings.TrimRight(sc.Text(), " \t")
		switch {
		case strings.HasPrefix(line, "### "):
			out = append(out, Deviation{ID: strings.TrimPrefix(line, "### ")})
			cur = &out[len(out)-1]
		case cur != nil && strings.HasPrefix(line, "- class:"):
			cur.Class = strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "- class:")), "`")
		case cur != nil && strings.HasPrefix(line, "- test:"):
			cur.Test = strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "- test:")), "`")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, d := range out {
		if d.Class == "" || d.Test == "" {
			return nil, fmt.Errorf("%s: deviation %q needs both a class and a test", path, d.ID)
		}
	}
	return out, nil
}

// Allowed returns the predicate RunFamily takes: whether a mismatch class is
// one of the deviations.
func Allowed(devs []Deviation) func(string) bool {
	classes := map[string]bool{}
	for _, d := range devs {
		classes[d.Class] = true
	}
	return func(c string) bool { return classes[c] }
}
