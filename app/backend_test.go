package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneRouteIn checks that the window reaches the model only through its
// Backend: outside the backends no file of the package
// names the model, the core or a socket client (the backends: local.go,
// attached.go).
func TestOneRouteIn(t *testing.T) {
	banned := map[string]bool{
		"workspace.Manager": true, "workspace.Surface": true,
		"core.Core": true, "core.New": true,
		"ipc.Client": true, "ipc.Mux": true, "net.Dial": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "local.go" || name == "attached.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
				t.Errorf("%s: %s: the window reaches the model only through its Backend", fset.Position(sel.Pos()), x.Name+"."+sel.Sel.Name)
			}
			return true
		})
	}
}
