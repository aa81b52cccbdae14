package test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The wire protocol (JSON-RPC on Paneflow's socket: method names, params,
// results, error data, event frames) is declared in package proto and
// nowhere else. TestWireDeclaredInProto enforces it over every non-test Go
// file outside proto/:
//
//   - a string literal equal to a method name proto declares is refused
//     (use proto's Method* constant, so every caller of a method is found
//     from its one declaration);
//   - a struct field whose JSON tag names a member of proto's types is
//     refused, and so is a string literal with such a name as a key of a
//     map composite literal or as an index (m["surface_id"]) when the name
//     is a compound one (with an underscore: one-word names such as "text"
//     or "type" are every format's): those are params, results or frames
//     declared a second time;
//   - except in the types and functions listed in notWire, which hold
//     other formats that happen to share a member name: agent hook
//     payloads and agents' config files, the MCP protocol, Claude Code's
//     CustomPaneBackend protocol and team files, our files on disk, and
//     the command-line client's own output. Each entry says which format
//     it is; an entry that no longer matches anything is refused too.
//
// Test files may decode the wire with types of their own: an end-to-end
// test that shares proto's types could not catch proto changing the wire.
//
// The member names are the JSON tag names of proto's non-test files, so a
// member added to proto is protected from then on.

// notWire lists, by "<dir>.<type or function>", the declarations outside
// proto that use a wire member name for a format that is not the wire.
// A struct inside a function is named by the function ("cli.runPs"), a
// method by "<receiver type>.<method>", a package-level variable by its
// name.
var notWire = map[string]string{
	"review.file":                                  "<hash>.json, a worktree's review comments on disk",
	"web.storeFile":                                "web-<hash>.json, the web client's secret and paired browsers on disk",
	"web.storeBrowser":                             "web-<hash>.json, the web client's secret and paired browsers on disk",
	"web.sessionInfo":                              "the web client's own page protocol (GET /session)",
	"web.paneRow":                                  "the web client's WebSocket messages to its own page",
	"web.overviewMsg":                              "the web client's WebSocket messages to its own page",
	"web.clientMsg":                                "the web client's WebSocket messages from its own page",
	"web.helloMsg":                                 "the web client's WebSocket messages to its own page",
	"web.resultMsg":                                "the web client's WebSocket messages to its own page",
	"web.startMsg":                                 "the web client's WebSocket messages to its own page",
	"web.wsConn.relayScreen":                       "the web client's WebSocket messages to its own page",
	"session.Session":                              "session.json, the server's session file",
	"session.Workspace":                            "session.json, the server's session file",
	"session.Pane":                                 "session.json, the server's session file",
	"config.parsePrice":                            "paneflow.toml's [usage.prices] tables",
	"test/internal/vtrelay.Event":                  "the conformance relay's events to its test harness (a private socket between a test and its own child)",
	"conductor.transcriptLine":                     "Claude Code's transcript files",
	"conductor.contentText":                        "Claude Code's transcript files",
	"hook.payloadKeys":                             "the agents' hook payloads",
	"hook.permissionText":                          "the agents' hook payloads (a permission request's tool input)",
	"hook.handlerCommand":                          "the agents' hook configuration files",
	"internal/artifact.Artifact":                   "output.json, an agent's answer on disk",
	"internal/spectrust.Entry":                     "trusted-specs.json, the spec trust store",
	"internal/spectrust.file":                      "trusted-specs.json, the spec trust store",
	"mcpinstall.Agents":                            "the agents' MCP server entries in their configuration files",
	"test/internal/fleettest.Bridges.FireMCPPaced": "the MCP protocol's JSON-RPC over stdio, and Codex's hook payload in a tool call's arguments",
	"mcpinstall.Agent.readEntry":                   "the agents' MCP server entries in their configuration files",
	"teams.TeamConfig":                             "Claude Code's team config.json",
	"teams.ConfigMember":                           "Claude Code's team config.json",
	"teams.backendRequest":                         "Claude Code's CustomPaneBackend protocol, on a socket of its own",
	"teams.backendReply":                           "Claude Code's CustomPaneBackend protocol, on a socket of its own",
	"teams.Registry.backendCall":                   "Claude Code's CustomPaneBackend protocol, on a socket of its own",
	"teams.Registry.publishLocked":                 "Claude Code's CustomPaneBackend protocol, on a socket of its own",
	"teams.subscriber.pushOutput":                  "Claude Code's CustomPaneBackend protocol, on a socket of its own",
	"test/internal/fakemodel.TeammateResult":       "the model APIs the fake model server speaks",
	"test/internal/fakemodel.Server.serve":         "the model APIs the fake model server speaks",
	"usage.claudeFormat.line":                      "Claude Code's transcript files",
	"usage.codexFormat.line":                       "Codex's session rollout files",
	"usage.geminiFormat.line":                      "Gemini CLI's chat recording files",
	"usage.opencodeFormat.line":                    "opencode's message objects, as Paneflow's opencode plugin writes them",
	"usage.dayFile":                                "<date>.json, the usage subsystem's day files",
	"usage.dayRow":                                 "<date>.json, the usage subsystem's day files",
	"worktree.Record":                              "worktrees.json, the registry of the worktrees core owns",
}

// wirePending lists the packages whose calls issue 26 is still moving to
// package proto (by "<dir>." prefix of the owner); they are checked like
// the rest once they are off the list, which only shrinks.
var wirePending = []string{"app.", "cli.", "cmd/paneflow-ai-hook.", "flow.", "hook.", "ipc/ipctest.", "mcp.", "shim."}

// wireViolation is one declaration of wire JSON outside proto.
type wireViolation struct {
	pos   token.Position
	owner string // <dir>.<type or function>
	what  string
}

// TestWireDeclaredInProto checks that no code outside package proto
// declares the wire protocol (see the comment above).
func TestWireDeclaredInProto(t *testing.T) {
	root := mainModule(t).Dir
	names, methods := protoWire(t, filepath.Join(root, "proto"))
	if len(names) < 50 || len(methods) < 30 {
		t.Fatalf("found %d member names and %d methods in proto/; the parser missed them", len(names), len(methods))
	}
	var found []wireViolation
	used := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if p != root && (skipDir(d.Name()) || filepath.ToSlash(rel) == "proto") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if isIgnored(f.Comments, f.Package) {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, v := range wireIn(fset, f, filepath.ToSlash(rel), names, methods) {
			if _, ok := notWire[v.owner]; ok && !strings.HasPrefix(v.what, "method name") {
				used[v.owner] = true
				continue
			}
			if slices.ContainsFunc(wirePending, func(p string) bool { return strings.HasPrefix(v.owner, p) }) {
				continue
			}
			found = append(found, v)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	for _, v := range found {
		rel, _ := filepath.Rel(root, v.pos.Filename)
		t.Errorf("%s:%d: %s (in %s): declare it in package proto and use it from there (see proto/doc.go), or, if it is not the wire, list %s in notWire with the format it is",
			rel, v.pos.Line, v.what, v.owner, v.owner)
	}
	for _, owner := range slices.Sorted(maps.Keys(notWire)) {
		if !used[owner] {
			t.Errorf("notWire lists %s, which uses no wire member name any more: remove the entry", owner)
		}
	}
}

// protoWire returns the JSON member names of proto's struct tags and the
// method names of its Method* constants.
func protoWire(t *testing.T, dir string) (names, methods map[string]bool) {
	t.Helper()
	names, methods = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Field:
					if name := jsonName(n); name != "" {
						names[name] = true
					}
				case *ast.ValueSpec:
					for i, id := range n.Names {
						if strings.HasPrefix(id.Name, "Method") && i < len(n.Values) {
							if s, ok := stringLit(n.Values[i]); ok {
								methods[s] = true
							}
						}
					}
				}
				return true
			})
		}
	}
	return names, methods
}

// wireIn returns the wire declarations in one file of directory dir.
func wireIn(fset *token.FileSet, f *ast.File, dir string, names, methods map[string]bool) []wireViolation {
	var out []wireViolation
	var stack []ast.Node
	owner := func() string {
		for i := len(stack) - 1; i >= 0; i-- {
			switch n := stack[i].(type) {
			case *ast.TypeSpec:
				return dir + "." + n.Name.Name
			case *ast.ValueSpec:
				if i == 2 { // a package-level var or const (File, GenDecl, ValueSpec)
					return dir + "." + n.Names[0].Name
				}
			case *ast.FuncDecl:
				if n.Recv != nil && len(n.Recv.List) == 1 {
					return dir + "." + recvName(n.Recv.List[0].Type) + "." + n.Name.Name
				}
				return dir + "." + n.Name.Name
			}
		}
		return dir + ".<package>"
	}
	add := func(n ast.Node, what string) {
		out = append(out, wireViolation{pos: fset.Position(n.Pos()), owner: owner(), what: what})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.Field:
			if name := jsonName(n); names[name] {
				add(n, fmt.Sprintf("struct tag json:%q", name))
			}
		case *ast.BasicLit:
			if s, ok := stringLit(n); ok && methods[s] {
				add(n, fmt.Sprintf("method name %q written as a string", s))
			}
		case *ast.CompositeLit:
			if mt, ok := n.Type.(*ast.MapType); ok && isIdent(mt.Key, "string") {
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if s, ok := stringLit(kv.Key); ok && names[s] && strings.Contains(s, "_") {
							add(kv, fmt.Sprintf("map key %q", s))
						}
					}
				}
			}
		case *ast.IndexExpr:
			if s, ok := stringLit(n.Index); ok && names[s] && strings.Contains(s, "_") {
				add(n, fmt.Sprintf("map index %q", s))
			}
		}
		return true
	})
	return out
}

// jsonName returns the member name of a field's json tag, "" for none.
func jsonName(f *ast.Field) string {
	if f.Tag == nil {
		return ""
	}
	tag, err := strconv.Unquote(f.Tag.Value)
	if err != nil {
		return ""
	}
	v, ok := reflect.StructTag(tag).Lookup("json")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(v, ",")
	if name == "-" {
		return ""
	}
	return name
}

// stringLit returns the value of a string literal expression.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// recvName is a method receiver's type name, without pointer or type
// parameters.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}
