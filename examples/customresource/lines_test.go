package customresource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxLines bounds the example's code: a controller for a resource of one's
// own, built from jobsync and the controller module, fits in fewer lines
// than this.
const maxLines = 150

// TestUnderMaxLines counts the lines of code of the example's Go files
// (tests left out): every line that is neither blank nor a comment,
// imports included.
func TestUnderMaxLines(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := codeLines(string(data))
		t.Logf("%s: %d lines of code", f, n)
		total += n
	}
	if total == 0 || total >= maxLines {
		t.Errorf("the example has %d lines of code, want between 1 and %d", total, maxLines-1)
	}
}

// codeLines counts the lines of src that are neither blank nor comments
// (// lines, and /* */ blocks that start a line).
func codeLines(src string) int {
	n, inBlock := 0, false
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case inBlock:
			inBlock = !strings.Contains(line, "*/")
		case line == "", strings.HasPrefix(line, "//"):
		case strings.HasPrefix(line, "/*"):
			inBlock = !strings.Contains(line, "*/")
		default:
			n++
		}
	}
	return n
}

func TestCodeLines(t *testing.T) {
	src := "package p\n\n// doc\nfunc f() {} // trailing\n/* a\nb */\n/* c */\n\tx := 1\n"
	if got := codeLines(src); got != 3 {
		t.Errorf("codeLines = %d, want 3", got)
	}
}
