package test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module describes the main module, found with `go list -m`.
type module struct {
	Path string // import path, e.g. github.com/paneflow-go/paneflow
	Dir  string // repository root
}

func mainModule(t *testing.T) module {
	t.Helper()
	out := goCmd(t, nil, "list", "-m", "-json")
	var m module
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("go list -m -json: %v", err)
	}
	if m.Path == "" || m.Dir == "" {
		t.Fatalf("go list -m -json gave path %q, dir %q; want both set", m.Path, m.Dir)
	}
	return m
}

// goCmd runs the go command with extra environment variables and returns its
// stdout, failing the test with its stderr on error.
func goCmd(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	cmd := exec.Command(goBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", strings.Join(env, " "), strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// skipDir reports whether a directory holds no packages of ours: hidden and
// underscore directories and testdata are ignored by the go command, bin is
// build output.
func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || name == "bin" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// TestPackageDocs checks that every package has its doc comment in exactly
// one file: "// Package x ..." for libraries, any comment for commands.
func TestPackageDocs(t *testing.T) {
	root := mainModule(t).Dir
	type pkgDocs struct {
		name  string   // package name
		files []string // non-test files of the package
		docs  []string // files that carry a package comment
		bad   []string // docs that do not start "Package <name> "
	}
	pkgs := map[string]*pkgDocs{} // by directory, relative to root
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if isIgnored(f.Comments, f.Package) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		dir := filepath.ToSlash(filepath.Dir(rel))
		pd := pkgs[dir]
		if pd == nil {
			pd = &pkgDocs{name: f.Name.Name}
			pkgs[dir] = pd
		}
		pd.files = append(pd.files, filepath.Base(p))
		if f.Doc == nil {
			return nil
		}
		pd.docs = append(pd.docs, filepath.Base(p))
		if text := f.Doc.Text(); f.Name.Name != "main" && !strings.HasPrefix(text, "Package "+f.Name.Name+" ") {
			pd.bad = append(pd.bad, filepath.Base(p))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	if len(pkgs) == 0 {
		t.Fatalf("found no Go packages under %s", root)
	}
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		pd := pkgs[dir]
		t.Run(dir, func(t *testing.T) {
			switch len(pd.docs) {
			case 1:
			case 0:
				t.Errorf("package %s (%s) has no package comment in any of %v; want exactly one file starting \"// Package %s ...\" (doc.go when it is long)",
					pd.name, dir, pd.files, pd.name)
			default:
				t.Errorf("package %s (%s) has package comments in %v; want exactly one", pd.name, dir, pd.docs)
			}
			for _, f := range pd.bad {
				t.Errorf("%s/%s: package comment does not start with \"Package %s \"", dir, f, pd.name)
			}
		})
	}
}

// isIgnored reports whether a file is excluded from every build by a
// "//go:build ignore" line above its package clause (generators, examples).
func isIgnored(comments []*ast.CommentGroup, pkgPos token.Pos) bool {
	for _, g := range comments {
		if g.Pos() > pkgPos {
			break
		}
		for _, c := range g.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return true
			}
		}
	}
	return false
}

// anyOtherModulePackage, as a banned import, stands for every package of this
// module outside the checked package's own directory tree, except the
// shared helpers under internal/, which have rules of their own that keep
// them leaves (standard library only).
const anyOtherModulePackage = "<module>"

// stdPrefix, before a banned import path, makes it a standard-library
// path (with no domain, a path is otherwise relative to the module).
const stdPrefix = "std:"

// notForClients lists what the small client binaries (the hook, the MCP
// bridge) must not link: the toolkit, the GUI, and the core except ipc,
// whose client they use.
var notForClients = []string{"fyne.io", "app", "workspace", "terminal", "conductor", "worktree", "flow", "bus", "usage", "hookhttp"}

// importRules say which imports a package must never have, directly or
// indirectly. Paths not starting with a domain are relative to the module;
// "std:" before one makes it a standard-library path.
// Rows for packages that do not exist yet are skipped, so a rule can be
// written before its package.
var importRules = []struct {
	pkg    string   // package, relative to the module
	tags   string   // build tags to list its dependencies with
	banned []string // import path prefixes, module-relative, absolute or std:, or anyOtherModulePackage
	allow  []string // module-relative packages exempt from banned (exact paths)
	why    string
}{
	{
		pkg:    "terminal",
		banned: []string{"fyne.io", anyOtherModulePackage},
		why:    "the terminal engine is the bottom layer that the GUI, the headless server and the socket API stand on: it depends on no other package of ours and never on the UI toolkit",
	},
	{
		pkg:    "workspace",
		banned: []string{"fyne.io"},
		why:    "the headless core runs in `paneflow serve` with no display; the GUI is only one of its consumers",
	},
	{
		pkg:    "internal/jsonscan",
		banned: []string{anyOtherModulePackage, "internal/atomicfile"},
		why:    "a helper leaf that ipc and cli share: standard library only",
	},
	{
		pkg:    "internal/atomicfile",
		banned: []string{anyOtherModulePackage, "internal/jsonscan"},
		why:    "a helper leaf that hook, shim and workspace share: standard library only",
	},
	{
		pkg:    "ipc",
		banned: []string{"fyne.io", anyOtherModulePackage},
		allow:  []string{"proto"},
		why:    "the transport is a leaf: the hook and MCP binaries link its client, so it must not drag the core in (it takes its error codes and error object from the wire protocol, itself a leaf)",
	},
	{
		pkg:    "proto",
		banned: []string{"fyne.io", anyOtherModulePackage, "internal"},
		allow:  []string{"internal/jsonscan"},
		why:    "the wire protocol is the leaf every client and server links, the command-line client too: standard library only (and jsonscan, itself standard library only)",
	},
	{
		pkg:    "workspace",
		banned: []string{"ipc", "api", "cli", "core", "conductor", "config", "usage"},
		why:    "the model knows nothing of the socket or of other subsystems; core wires them",
	},
	{
		pkg:    "api",
		banned: []string{"fyne.io", "cli", "core", "conductor", "config", "usage"},
		why:    "the methods use the model through its API; configuration reaches them as options from core",
	},
	{
		pkg:    "cli",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "core", "bus", "conductor"},
		why:    "the CLI is a socket client: it must work against any server, including a remote one over a forwarded socket",
	},
	{
		pkg:    "config",
		banned: []string{"fyne.io", anyOtherModulePackage},
		why:    "configuration is plain data that every subsystem may be given",
	},
	{
		pkg:    "conductor",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "config", "hook", "app", "worktree", "flow", "mcp", "teams", "usage"},
		why:    "the conductor is a subsystem of the headless core (no display): it learns of panes from bus events and a PaneSource that core implements over the model, the api asks it through its own AgentReporter interface, hooks reach it only over the socket or through hookhttp's Options.Frame (wired by core), and its settings come from core as Options",
	},
	{
		pkg:    "hookhttp",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "app", "worktree", "flow", "mcp", "teams", "usage"},
		why:    "the http-hook endpoint is a subsystem of the headless core: it maps payloads with hook.Map and hands frames to the state machine only through Options.Frame, which core wires to the conductor",
	},
	{
		pkg:    "usage",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "hook", "shim", "app", "worktree", "flow", "mcp", "teams"},
		why:    "usage is a subsystem of the headless core: it learns of agents and their transcripts from the conductor's bus events, reaches panes through its own Panes interface that core implements, and gets prices and budgets from core as Options",
	},
	{
		pkg:    "review",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "hook", "shim", "app", "flow", "mcp", "teams", "usage"},
		why:    "review is a subsystem of the headless core: git through package worktree, agents' turn ends from the bus, the panes only through its own socket (a proto.Caller core gives it), as any client reaches them",
	},
	{
		pkg:    "web",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "hook", "shim", "app", "worktree", "flow", "mcp", "teams", "usage", "review", "attach"},
		why:    "web is a subsystem of the headless core that reaches the panes only through the socket, as any client (screen frames relayed as the server encoded them, writes through the scripting gate): it never holds the model or a second emulator",
	},
	{
		pkg:    "worktree",
		banned: []string{"fyne.io"},
		why:    "the headless core runs in `paneflow serve` with no display",
	},
	{
		pkg:    "worktree",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "ipc", "bus", "hook", "app", "flow", "mcp"},
		why:    "worktrees are a subsystem of their own: plain git through os/exec, used by the CLI (up, flow) and by core (teardown, prune) through their own wiring",
	},
	{
		pkg:    "flow",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "ipc", "bus", "hook", "app", "worktree", "mcp"},
		why:    "the spec parsers and the flow engine are a subsystem the CLI links: they reach the server through a Caller and git through a Worktrees interface of their own",
	},
	{
		pkg:    "worktree",
		banned: []string{"subsystem", "internal/clock"},
		why:    "package worktree is plain git that the CLI links too; its server-side owner (a subsystem: teardown, prune) lives in core (up.go)",
	},
	{
		pkg:    "flow",
		banned: []string{"subsystem"},
		why:    "the flow engine runs in the CLI process, not in the core: it is no subsystem and needs none of the contract",
	},
	{
		pkg:    "internal/flowgit",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "ipc", "bus", "hook", "app", "mcp", "teams"},
		why:    "the one adapter of worktree to flow.Worktrees that the CLI and the app share: it joins the two packages and nothing else",
	},
	{
		pkg:    "bus",
		banned: []string{"fyne.io", anyOtherModulePackage},
		allow:  []string{"proto"},
		why:    "the bus and its event types are the leaf every subsystem shares; it imports none of them (its events are the wire protocol's, a leaf)",
	},
	{
		pkg:    "core",
		banned: []string{"fyne.io", "cli", "app"},
		why:    "the headless core runs in `paneflow serve` with no display; the GUI hosts it, not the other way round",
	},
	{
		pkg:    "cmd/paneflow",
		tags:   "nogui",
		banned: []string{"fyne.io"},
		why:    "the nogui build is the server and CI binary: it must build with CGO_ENABLED=0 and run without a display",
	},
	{
		pkg:    "cmd/paneflow",
		tags:   "nogui,client",
		banned: []string{"github.com/BurntSushi/toml", "flow", "worktree", "workspace", "terminal", "core"},
		why:    "the command-line client starts on every CLI call: up and flow (TOML, git) are handed to paneflow-server like serve",
	},
	{
		pkg:    "app/render",
		banned: []string{"fyne.io", "workspace", "api", "cli", "core", "conductor", "config", "ipc", "bus", "hook", "app/termview", "session"},
		why:    "the rasteriser turns a terminal snapshot into pixels: pure Go over the terminal package, testable and benchmarkable without the toolkit",
	},
	{
		pkg:    "app/termview",
		banned: []string{"workspace", "api", "cli", "core", "conductor", "config", "ipc", "hook", "session", "app/keymap"},
		why:    "the terminal widget sees a pane only through its Pane interface, so a window attached to a remote core can reuse it unchanged",
	},
	{
		pkg:    "app/keymap",
		banned: []string{anyOtherModulePackage},
		why:    "keybindings are plain data over the toolkit's key names",
	},
	{
		pkg:    "app/fontfind",
		banned: []string{"fyne.io", anyOtherModulePackage},
		why:    "finding installed fonts is plain file and font-table reading",
	},
	{
		pkg:    "session",
		banned: []string{"fyne.io", "api", "cli", "core", "conductor", "ipc", "hook", "app/termview", "app/render"},
		why:    "session files are the model's layout as data; saving and restoring them needs no window",
	},
	{
		pkg:    "app",
		banned: []string{"cli"},
		why:    "the window hosts the core in-process; it never goes through the CLI client",
	},
	{
		pkg:    "shim",
		banned: append(notForClients, "core", "api", "cli", "config", "teams"),
		why:    "the shim's logic links into paneflow-shim, which runs in front of every agent start: only hook and the ipc client",
	},
	{
		pkg:    "teams",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "hook", "shim", "app", "bus", "worktree", "flow", "mcp"},
		why:    "the agent-teams registry is a subsystem: it sees the model only through its own Host interface that core adapts, and speaks to the shim only over the socket",
	},
	{
		pkg:    "cmd/paneflow-shim",
		banned: notForClients,
		why:    "the launch shim runs in front of every agent start: it links only the ipc client, neither Fyne nor the core",
	},
	{
		pkg:    "cmd/paneflow-ai-hook",
		banned: notForClients,
		why:    "the hook binary starts on every agent hook event: it links only the ipc client, neither Fyne nor the core",
	},
	{
		pkg:    "subsystem",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "hook", "app", "worktree", "flow", "mcp", "teams"},
		why:    "the subsystem contract is what every subsystem imports: it may name only the shared leaves (bus, ipc, the clock), never a subsystem or the model",
	},
	{
		pkg:    "internal/clock",
		banned: []string{anyOtherModulePackage, "internal/jsonscan", "internal/atomicfile"},
		why:    "the clock is a helper leaf that the conductor, surface.wait and the flow engine share: standard library only",
	},
	{
		pkg:    "internal/artifact",
		banned: []string{"fyne.io", "workspace", "terminal", "api", "cli", "core", "conductor", "config", "ipc", "bus", "hook", "app", "worktree", "flow", "mcp", "teams", "github.com/modelcontextprotocol"},
		why:    "the hook binary writes an artifact at every turn end: standard library and internal/atomicfile only",
	},
	{
		pkg:    "mcpinstall",
		banned: append(notForClients, "core", "api", "cli", "mcp", "github.com/modelcontextprotocol"),
		why:    "`paneflow mcp install` edits files (the client build hands it to paneflow-server): it must not link the MCP SDK or the bridge",
	},
	{
		pkg:    "cmd/paneflow",
		tags:   "nogui,client",
		banned: []string{"github.com/modelcontextprotocol", "mcp"},
		why:    "the CLI client starts on every call: the MCP SDK belongs to paneflow-mcp only",
	},
	{
		pkg:    "cmd/paneflow",
		tags:   "nogui,client",
		banned: []string{"std:archive", "std:debug/elf", "std:debug/dwarf", "std:image/png", "std:compress", "std:regexp", "std:regexp/syntax", "github.com/skip2/go-qrcode", "internal/qrtext"},
		why:    "the CLI client starts on every call and initialises every package it links: host install writes its tar and reads ELF headers itself (remote/archive.go), the server encodes web pair's QR code (proto.WebPairResult.QR), and `wait --pattern` goes to paneflow-server, which checks the pattern (regexp/syntax and the unicode tables it initialises: 0.7 ms of every call)",
	},
	{
		pkg:    "remote",
		banned: append(notForClients, "core", "api", "cli", "mcp", "config", "hook", "shim", "attach", "github.com/modelcontextprotocol"),
		why:    "the remote transport links into the command-line client (and paneflow-mcp), which starts on every call: the ipc client and the standard library only",
	},
	{
		pkg:    "mcp",
		banned: append(notForClients, "core", "api", "cli", "config", "hook", "shim"),
		why:    "the bridge's logic links into paneflow-mcp, a socket client that agents start: the ipc client and the MCP SDK only",
	},
	{
		pkg:    "cmd/paneflow-mcp",
		banned: notForClients,
		why:    "the MCP bridge is a socket client: it links only the ipc client, neither Fyne nor the core",
	},
	{
		pkg:    "test/internal/fakemodel",
		banned: []string{anyOtherModulePackage},
		why:    "the fake model server is a test helper the agent, MCP and team harnesses share: standard library only",
	},
	{
		pkg:    "internal/userdir",
		banned: []string{anyOtherModulePackage, "internal/jsonscan", "internal/atomicfile", "internal/clock", "internal/tomlquote"},
		why:    "the per-user base directories are a helper leaf that config, session, shim and mcpinstall share: standard library only",
	},
	{
		pkg:    "internal/tomlquote",
		banned: []string{anyOtherModulePackage, "internal/jsonscan", "internal/atomicfile", "internal/clock", "internal/userdir"},
		why:    "TOML string quoting is a helper leaf that shim and mcpinstall share: standard library only",
	},
	{
		pkg:    "internal/tomledit",
		banned: []string{anyOtherModulePackage, "internal/jsonscan", "internal/atomicfile", "internal/clock", "internal/userdir"},
		why:    "editing a TOML value in place is a helper leaf that config's Save uses: the TOML reader and tomlquote only, writing no file",
	},
	{
		pkg:    "internal/ports",
		banned: []string{anyOtherModulePackage, "internal/jsonscan", "internal/atomicfile", "internal/clock", "internal/userdir", "internal/tomlquote"},
		why:    "listening ports of a process tree are a helper leaf that the window (its own panes' chips) and the server (surface.ports) share: standard library only",
	},
	{
		pkg:    "internal/gittest",
		banned: []string{anyOtherModulePackage, "internal/jsonscan", "internal/atomicfile", "internal/clock", "internal/userdir", "internal/tomlquote"},
		why:    "the tests' real git repositories are a helper leaf that the worktree, core, app, e2e and MCP tests share: standard library only",
	},
	{
		pkg:    "test/internal/keyecho",
		banned: []string{anyOtherModulePackage},
		why:    "the key-echo harness measures any X11 window (ours, alacritty, kitty, an attached window) from the X server's side: it links none of the app",
	},
	{
		pkg:    "test/internal/servetest",
		banned: []string{"fyne.io", "app", "core", "api", "cli", "ipc", "workspace", "terminal", "conductor", "hook", "shim", "mcp", "config"},
		why:    "the harness that starts `paneflow serve` for the end-to-end packages runs the built binaries as a user does: it links none of the app",
	},
	{
		pkg:    "test/internal/fleettest",
		banned: []string{anyOtherModulePackage},
		allow:  []string{"proto", "internal/jsonscan"},
		why:    "the fleet load (bridges, hooks) that test/e2e and test/bench share drives the built binaries and speaks JSON-RPC with the wire protocol's types, as a user's script does: it links none of the app",
	},
	{
		pkg:    "test/agents",
		banned: []string{"fyne.io", "conductor", "hook", "shim", "workspace", "core", "api", "ipc"},
		why:    "the interop harness drives the built binaries and the real agent CLIs from outside, as a user does",
	},
	{
		pkg:    "packaging/pkgtool",
		banned: []string{"fyne.io", anyOtherModulePackage},
		why:    "the packaging helper handles file formats only (Mach-O, .ico): standard library, none of the app",
	},
}

// TestImportRules checks importRules on every platform we ship for, with
// `go list -deps -json`.
func TestImportRules(t *testing.T) {
	mod := mainModule(t)
	for _, rule := range importRules {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			t.Run(rule.pkg+"/"+goos, func(t *testing.T) {
				if !hasGoFiles(filepath.Join(mod.Dir, filepath.FromSlash(rule.pkg))) {
					t.Skipf("%s does not exist yet", rule.pkg)
				}
				self := mod.Path + "/" + rule.pkg
				for _, dep := range listDeps(t, goos, rule.tags, self) {
					if slices.ContainsFunc(rule.allow, func(a string) bool { return dep == mod.Path+"/"+a }) {
						continue
					}
					for _, b := range rule.banned {
						if isBanned(dep, b, self, mod.Path) {
							t.Errorf("%s imports %s (GOOS=%s, tags %q), which it must not: %s",
								rule.pkg, dep, goos, rule.tags, rule.why)
						}
					}
				}
			})
		}
	}
}

// isBanned reports whether the import path dep matches the banned entry b
// for the package self of module mod.
func isBanned(dep, b, self, mod string) bool {
	switch {
	case b == anyOtherModulePackage:
		return within(dep, mod) && !within(dep, self) && !within(dep, mod+"/internal")
	case strings.HasPrefix(b, stdPrefix):
		return within(dep, strings.TrimPrefix(b, stdPrefix))
	case strings.Contains(strings.SplitN(b, "/", 2)[0], "."): // a domain: absolute path
		return within(dep, b)
	default:
		return within(dep, mod+"/"+b)
	}
}

// within reports whether import path p is prefix or below it.
func within(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

func TestIsBanned(t *testing.T) {
	const mod = "example.com/m"
	tests := []struct {
		dep, banned, self string
		want              bool
	}{
		{"fyne.io/fyne/v2", "fyne.io", mod + "/terminal", true},
		{"fyne.io", "fyne.io", mod + "/terminal", true},
		{"fyne.iox/thing", "fyne.io", mod + "/terminal", false},
		{mod + "/bus", anyOtherModulePackage, mod + "/terminal", true},
		{mod + "/terminal", anyOtherModulePackage, mod + "/terminal", false},
		{mod + "/terminal/internal/x", anyOtherModulePackage, mod + "/terminal", false},
		{mod + "/internal/jsonscan", anyOtherModulePackage, mod + "/ipc", false},
		{"golang.org/x/sys/unix", anyOtherModulePackage, mod + "/terminal", false},
		{mod + "/workspace", "workspace", mod + "/cmd/paneflow-ai-hook", true},
		{mod + "/workspacex", "workspace", mod + "/cmd/paneflow-ai-hook", false},
		{mod + "/ipc", "workspace", mod + "/cmd/paneflow-ai-hook", false},
		{"compress/flate", "std:compress", mod + "/cmd/paneflow", true},
		{"debug/elf", "std:debug/elf", mod + "/cmd/paneflow", true},
		{"runtime/debug", "std:debug/elf", mod + "/cmd/paneflow", false},
		{mod + "/compress", "std:compress", mod + "/cmd/paneflow", false},
		{"compress/flate", "compress", mod + "/cmd/paneflow", false},
	}
	for _, tt := range tests {
		t.Run(tt.dep+" vs "+tt.banned, func(t *testing.T) {
			if got := isBanned(tt.dep, tt.banned, tt.self, mod); got != tt.want {
				t.Errorf("isBanned(%q, %q, %q) = %v, want %v", tt.dep, tt.banned, tt.self, got, tt.want)
			}
		})
	}
}

// hasGoFiles reports whether dir holds non-test Go files.
func hasGoFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			return true
		}
	}
	return false
}

// listDeps returns the import paths pkg depends on, itself included, when
// built for goos with tags.
func listDeps(t *testing.T, goos, tags, pkg string) []string {
	t.Helper()
	args := []string{"list", "-deps", "-json=ImportPath"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out := goCmd(t, []string{"GOOS=" + goos, "CGO_ENABLED=0"}, append(args, pkg)...)
	var deps []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ ImportPath string }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output for %s: %v", pkg, err)
		}
		deps = append(deps, p.ImportPath)
	}
	if len(deps) == 0 {
		t.Fatalf("go list -deps %s listed nothing", pkg)
	}
	return deps
}

// TestReadmeOpensWithSetupCommands checks the README contract: its first two
// commands, in the first code block and anywhere in the text, are `make run`
// then `make test`.
func TestReadmeOpensWithSetupCommands(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(mainModule(t).Dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"make run", "make test"}

	mentions := regexp.MustCompile(`make (run|test)`).FindAllString(string(data), 2)
	if !slices.Equal(mentions, want) {
		t.Errorf("first two mentions of `make run|test` in README.md = %q, want %q", mentions, want)
	}

	var cmds []string
	inBlock := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() && len(cmds) < 2 {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			if inBlock {
				break // end of the first code block
			}
			inBlock = true
			continue
		}
		if !inBlock || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "$ ")
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i] // a trailing shell comment
		}
		cmds = append(cmds, strings.TrimSpace(line))
	}
	if !slices.Equal(cmds, want) {
		t.Errorf("first commands of README.md's first code block = %q, want %q", cmds, want)
	}
}

// TestCIRunsMakeTest checks that .ci/run, which CI runs on a fresh clone, is
// an executable bash script that fails on errors and runs `make test`.
func TestCIRunsMakeTest(t *testing.T) {
	p := filepath.Join(mainModule(t).Dir, ".ci", "run")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode()&0o111 == 0 {
		t.Errorf(".ci/run mode = %v, want it executable", info.Mode())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#!/usr/bin/env bash", "set -euo pipefail", "make test"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf(".ci/run does not contain %q", want)
		}
	}
}

// TestMakefileTargets checks that the Makefile declares the targets README.md
// and CI rely on.
func TestMakefileTargets(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(mainModule(t).Dir, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"run", "test", "bench", "fuzz", "lint", "build", "deps", "clean", "package"} {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`)
		if !re.Match(data) {
			t.Errorf("Makefile has no %q target", target)
		}
	}
}
