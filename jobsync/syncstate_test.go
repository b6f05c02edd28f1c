package jobsync_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncStateIsReadOnly checks that no function of the package but
// newSyncState writes to the sync's state: no assignment or increment of
// anything reached through a variable or field named sync (the syncState,
// by the package's convention). What one step decides
// reaches the next through results and parameters that Reconcile hands on,
// never through a field one step writes and another reads.
func TestSyncStateIsReadOnly(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Name.Name == "newSyncState" {
				continue
			}
			checked++
			for _, w := range syncWrites(fn.Body) {
				t.Errorf("%s: %s writes the sync's state", fset.Position(w.Pos()), fn.Name.Name)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d functions checked; is the test run from the package directory?", checked)
	}
}

// syncWrites returns the expressions in body that are assigned or
// incremented and reached through sync.
func syncWrites(body *ast.BlockStmt) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		var written []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				written = n.Lhs
			}
		case *ast.IncDecStmt:
			written = []ast.Expr{n.X}
		}
		for _, e := range written {
			if reachedThroughSync(e) {
				out = append(out, e)
			}
		}
		return true
	})
	return out
}

// reachedThroughSync reports whether e is a field (or an element, or what
// a pointer points to) of something named sync: sync.x, c.sync.x[i], ...
// The variable sync itself, assigned as a whole, is not.
func reachedThroughSync(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			if x.Sel.Name == "sync" {
				return true
			}
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "sync" {
				return true
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return false
		}
	}
}
