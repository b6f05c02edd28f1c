package jobsync_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocListsEveryFile checks the package documentation's list of files
// against the directory: every file of the package (tests aside) has its
// sentence, and every file listed exists, so that the list follows the
// code when files come, go or are renamed.
func TestDocListsEveryFile(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`(?m)^  - (\w+\.go): \S`)
	var listed []string
	for _, m := range entry.FindAllStringSubmatch(f.Doc.Text(), -1) {
		listed = append(listed, m[1])
	}
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, p := range paths {
		if !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
	}
	if len(files) < 10 {
		t.Fatalf("only %d files found; is the test run from the package directory?", len(files))
	}
	for _, name := range files {
		if !slices.Contains(listed, name) {
			t.Errorf("%s is not in doc.go's list of files", name)
		}
	}
	for i, name := range listed {
		if !slices.Contains(files, name) {
			t.Errorf("doc.go lists %s, which is not a file of the package", name)
		}
		if slices.Contains(listed[:i], name) {
			t.Errorf("doc.go lists %s twice", name)
		}
	}
}
