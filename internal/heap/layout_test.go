package heap_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/jobsync/jobsync/"

// TestLayout keeps the library's internal packages apart from the test
// support: the library packages (jobsync, podorder, ...) may import
// internal/heap, so nothing beside it under internal/ may import a library
// package, and the library's non-test files never import
// internal/testsupport, whose packages import the library to build
// snapshots and scenarios for tests. A folder the library imports never
// imports the library back.
func TestLayout(t *testing.T) {
	root := filepath.Join("..", "..")
	imports := map[string][]string{} // package folder -> module imports of its non-test files
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Other modules and data keep their own rules.
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || hasGoMod(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if strings.HasPrefix(p, module) {
				imports[dir] = append(imports[dir], strings.TrimPrefix(p, module))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) == 0 {
		t.Fatal("found no packages importing the module's own packages; is the walk rooted at the module?")
	}
	for dir, deps := range imports {
		testSupport := strings.HasPrefix(dir, "internal/testsupport/")
		for _, dep := range deps {
			depInternal := strings.HasPrefix(dep, "internal/")
			switch {
			case testSupport:
				// Test support may import anything.
			case strings.HasPrefix(dep, "internal/testsupport/"):
				t.Errorf("%s imports %s: test support is for tests only", dir, dep)
			case strings.HasPrefix(dir, "internal/") && !depInternal:
				t.Errorf("%s imports the library package %s, which imports internal/ packages: move it under internal/testsupport/", dir, dep)
			}
		}
	}
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
