package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxShellFields bounds the fields of app's shell (issue 29: under 20,
// each cockpit view a panel owning its state). Lower it as state moves
// out; it never goes up.
const maxShellFields = 16

// TestArchShellFields counts the fields of the window's shell type
// (app/app.go), an embedded field counting as one, and fails when they
// are more than maxShellFields.
func TestArchShellFields(t *testing.T) {
	m := mainModule(t)
	dir := filepath.Join(m.Dir, "app")
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var st *ast.StructType
	for _, p := range pkgs {
		for _, f := range p.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "shell" {
					st, _ = ts.Type.(*ast.StructType)
				}
				return st == nil
			})
		}
	}
	if st == nil {
		t.Fatal("no type shell struct in app/")
	}
	n := 0
	for _, f := range st.Fields.List {
		n += max(len(f.Names), 1)
	}
	if n > maxShellFields {
		t.Errorf("app's shell has %d fields, at most %d allowed: give the new state a type that owns it (a panel, see app/panel.go)", n, maxShellFields)
	}
	t.Logf("shell fields: %d (bound %d)", n, maxShellFields)
}
