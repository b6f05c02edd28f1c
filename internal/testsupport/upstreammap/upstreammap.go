// Package upstreammap reads the tables of UPSTREAM.md, which put each step
// of jobsync beside the upstream functions it re-expresses, so that tests
// can check both sides still exist: the library's test checks our files and
// names, the conformance module's test checks upstream's in the
// k8s.io/kubernetes release it pins. A map that names a function no longer
// there fails a test instead of misleading the next person moving to a new
// Kubernetes version.
package upstreammap

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Ref is one name in a table cell: a Go identifier declared in File (a
// file or, when it ends in "/", a package directory), or the file alone
// when Name is empty.
type Ref struct {
	Line int
	File string
	Name string
}

// Side says how a column's file names are read: relative to DefaultDir
// unless they contain a "/", relative to the root then; DefaultFile, when
// set, is the file of names that come before any file in a group (groups
// are separated by ";").
type Side struct {
	Column      string // the header of the column: "ours" or "upstream"
	DefaultDir  string
	DefaultFile string
}

// Refs returns the names that the column side of every table of markdown
// holds. Names in parentheses are commentary and left out.
func Refs(markdown string, side Side) ([]Ref, error) {
	var refs []Ref
	column := -1
	for i, line := range strings.Split(markdown, "\n") {
		if !strings.HasPrefix(line, "|") {
			column = -1
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if column < 0 {
			for c, cell := range cells {
				if strings.TrimSpace(cell) == side.Column {
					column = c
				}
			}
			if column < 0 {
				column = len(cells) // a table without the column: nothing to read
			}
			continue
		}
		if column >= len(cells) || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		cellRefs, err := side.cell(cells[column], i+1)
		if err != nil {
			return nil, err
		}
		refs = append(refs, cellRefs...)
	}
	return refs, nil
}

var identifier = regexp.MustCompile(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$`)

func (side Side) cell(cell string, line int) ([]Ref, error) {
	var refs []Ref
	file := side.DefaultFile
	depth := 0
	for k, part := range strings.Split(cell, "`") {
		if k%2 == 0 { // prose between code spans
			depth += strings.Count(part, "(") - strings.Count(part, ")")
			if strings.Contains(part, ";") && depth == 0 {
				file = side.DefaultFile
			}
			continue
		}
		if depth > 0 {
			continue
		}
		switch {
		case strings.HasSuffix(part, ".go") || strings.HasSuffix(part, "/") || strings.Contains(part, "/"):
			file = side.path(part)
			refs = append(refs, Ref{Line: line, File: file})
		case identifier.MatchString(part):
			if file == "" {
				return nil, fmt.Errorf("UPSTREAM.md:%d: %q in the %s column comes before any file", line, part, side.Column)
			}
			refs = append(refs, Ref{Line: line, File: file, Name: part})
		}
	}
	return refs, nil
}

// path resolves a file name of the column: a directory ("podorder/",
// "pkg/controller/job/util") or a path with a "/" is taken from the root,
// a bare file name from DefaultDir.
func (side Side) path(p string) string {
	if strings.HasSuffix(p, ".go") && !strings.Contains(p, "/") {
		return side.DefaultDir + p
	}
	if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// Check reports each ref whose file is missing under root or whose name is
// not declared in it (as a function, method, type, field, constant or
// variable; for Type.Name, either part will do).
func Check(root string, refs []Ref) []string {
	var problems []string
	sources := map[string]string{}
	for _, r := range refs {
		src, ok := sources[r.File]
		if !ok {
			var err error
			src, err = read(filepath.Join(root, r.File), strings.HasSuffix(r.File, "/"))
			if err != nil {
				problems = append(problems, fmt.Sprintf("UPSTREAM.md:%d: %s: %v", r.Line, r.File, err))
				sources[r.File] = ""
				continue
			}
			sources[r.File] = src
		}
		if r.Name == "" || src == "" {
			continue
		}
		found := false
		for _, name := range strings.Split(r.Name, ".") {
			if declares(src, name) {
				found = true
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("UPSTREAM.md:%d: %s declares no %s", r.Line, r.File, r.Name))
		}
	}
	return problems
}

// read returns a file's text, or that of every non-test Go file of a
// directory.
func read(path string, dir bool) (string, error) {
	if !dir {
		b, err := os.ReadFile(path)
		return string(b), err
	}
	files, err := filepath.Glob(filepath.Join(path, "*.go"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no Go files in %s", path)
	}
	var all strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		all.Write(b)
		all.WriteString("\n")
	}
	return all.String(), nil
}

// declares reports whether src declares name: func name, a method name, a
// type, or a field, constant or variable at the start of a line.
func declares(src, name string) bool {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?m)^func (\([^)]*\) )?` + q + `[\[(]` +
		`|(?m)^(type|var|const) ` + q + `\b` +
		`|(?m)^\t+` + q + `\s+(=|[A-Za-z*\[\]]|func|map|chan|struct|interface)`).MatchString(src)
}
