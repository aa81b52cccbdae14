package mcpinstall

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

// fixture is a fake home with a fake bridge next to a fake paneflow.
type fixture struct {
	t              *testing.T
	home, bin, exe string
	env            map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, home: filepath.Join(dir, "home"), bin: filepath.Join(dir, "bin")}
	for _, d := range []string{f.home, f.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.exe = filepath.Join(f.bin, "paneflow")
	f.write(filepath.Join(f.bin, "paneflow-mcp"), "bridge v1")
	f.env = map[string]string{"HOME": f.home, "PATH": f.bin}
	return f
}

func (f *fixture) write(p, data string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := exefile.Write(p, []byte(data), 0o755); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(p string) string {
	f.t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) path(rel string) string { return filepath.Join(f.home, rel) }

// bridge is where install puts the bridge.
func (f *fixture) bridge() string { return f.path(".local/share/paneflow/bin/paneflow-mcp") }

// run runs `paneflow mcp args…` and returns its exit status and output.
func (f *fixture) run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := RunCommand(args, &out, &errb, Env{Getenv: func(k string) string { return f.env[k] }, GOOS: "linux", Exe: f.exe})
	return code, out.String(), errb.String()
}

func (f *fixture) mustRun(args ...string) string {
	f.t.Helper()
	code, out, errs := f.run(args...)
	if code != 0 {
		f.t.Fatalf("mcp %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

const (
	claudeOrig = `{
  "numStartups": 3,
  "projects": {"/x": {"mcpServers": {"paneflow": {"command": "local"}}}},
  "mcpServers": {
    "other": {"type": "stdio", "command": "/bin/other", "args": ["a"]}
  }
}
`
	codexOrig = `# Codex settings
model = "o3" # the model

[mcp_servers.other]
command = "/bin/other"
args = ["x"]

[profiles.fast]
model = "o4-mini"
`
	geminiOrig   = `{"theme":"Dracula","mcpServers":{}}`
	opencodeOrig = `{
  // my opencode config
  "$schema": "https://opencode.ai/config.json",
  /* servers */
  "mcp": {
    "other": { "type": "local", "command": ["/bin/other"] }, // keep me
  },
}
`
)

func TestInstallStatusUninstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	f := newFixture(t)
	files := map[string]string{
		".claude.json":                   claudeOrig,
		".codex/config.toml":             codexOrig,
		".gemini/settings.json":          geminiOrig,
		".config/opencode/opencode.json": opencodeOrig,
	}
	for rel, data := range files {
		f.write(f.path(rel), data)
		os.Chmod(f.path(rel), 0o600)
	}
	out := f.mustRun("install")
	for _, w := range []string{"Claude Code", "Codex", "Gemini CLI", "opencode"} {
		if !strings.Contains(out, w) || strings.Count(out, ": installed\n") != 4 {
			t.Errorf("install output lacks %s installed:\n%s", w, out)
		}
	}
	if f.read(f.bridge()) != "bridge v1" {
		t.Fatal("the bridge was not copied to its stable path")
	}
	b := f.bridge()
	checks := map[string][]string{
		".claude.json":                   {`"numStartups": 3`, `"other": {"type": "stdio", "command": "/bin/other", "args": ["a"]}`, `"type": "stdio",` + "\n" + `      "command": "` + b + `",` + "\n" + `      "args": []`, `"/x": {"mcpServers": {"paneflow": {"command": "local"}}}`},
		".codex/config.toml":             {"# Codex settings\nmodel = \"o3\" # the model\n", "[profiles.fast]\nmodel = \"o4-mini\"\n", "[mcp_servers.paneflow]\ncommand = \"" + b + "\"\nargs = []\n"},
		".gemini/settings.json":          {`"theme":"Dracula"`, `"command": "` + b + `"`, `"trust": true`},
		".config/opencode/opencode.json": {"// my opencode config", "/* servers */", `"other": { "type": "local", "command": ["/bin/other"] }, // keep me`, `"type": "local",`, `"enabled": true`},
	}
	for rel, wants := range checks {
		got := f.read(f.path(rel))
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", rel, w, got)
			}
		}
		if bak := f.read(f.path(rel) + ".bak"); bak != files[rel] {
			t.Errorf("%s.bak is not the original:\n%s", rel, bak)
		}
		if fi, _ := os.Stat(f.path(rel)); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600 kept", rel, fi.Mode().Perm())
		}
	}

	// Idempotent: nothing is written the second time.
	before := map[string]string{}
	for rel := range files {
		before[rel] = f.read(f.path(rel))
		os.Remove(f.path(rel) + ".bak")
	}
	if out := f.mustRun("install"); strings.Count(out, "already up to date") != 4 {
		t.Errorf("second install:\n%s", out)
	}
	for rel := range files {
		if _, err := os.Stat(f.path(rel) + ".bak"); err == nil {
			t.Errorf("%s: a no-op install wrote a backup", rel)
		}
	}
	if out := f.mustRun("status"); strings.Count(out, "installed ("+b+"); orchestration off") != 4 {
		t.Errorf("status:\n%s", out)
	}

	// A stale path is reported and refreshed.
	f.write(f.path(".gemini/settings.json"), strings.ReplaceAll(before[".gemini/settings.json"], b, "/old/paneflow-mcp"))
	if out := f.mustRun("status"); !strings.Contains(out, "stale path (config points at /old/paneflow-mcp, expected "+b+")") {
		t.Errorf("status with a stale path:\n%s", out)
	}
	if out := f.mustRun("install"); !strings.Contains(out, "settings.json: updated") {
		t.Errorf("install over a stale path:\n%s", out)
	}

	// Uninstall gives every file its original bytes back.
	for rel := range files {
		os.Remove(f.path(rel) + ".bak")
	}
	// Recreate the backups as an install from the originals would.
	for rel, data := range files {
		f.write(f.path(rel), data)
	}
	f.mustRun("install")
	if out := f.mustRun("uninstall"); strings.Count(out, ": removed") != 4 {
		t.Errorf("uninstall:\n%s", out)
	}
	for rel, data := range files {
		if got := f.read(f.path(rel)); got != data {
			t.Errorf("%s after uninstall:\n%s\nwant:\n%s", rel, got, data)
		}
	}
	if out := f.mustRun("uninstall"); strings.Count(out, "nothing to remove") != 4 {
		t.Errorf("second uninstall:\n%s", out)
	}
	if out := f.mustRun("status"); strings.Count(out, "detected but not installed") != 4 {
		t.Errorf("status after uninstall:\n%s", out)
	}
}

func TestUninstallKeepsOtherChanges(t *testing.T) {
	f := newFixture(t)
	p := f.path(".claude.json")
	f.write(p, claudeOrig)
	f.mustRun("install")
	// The agent rewrote its file meanwhile: only our entry goes.
	changed := strings.Replace(f.read(p), `"numStartups": 3`, `"numStartups": 4`, 1)
	f.write(p, changed)
	f.mustRun("uninstall")
	got := f.read(p)
	if strings.Contains(got, f.bridge()) || !strings.Contains(got, `"numStartups": 4`) || !strings.Contains(got, `"other"`) {
		t.Errorf("after uninstall:\n%s", got)
	}
	if !strings.Contains(got, `"/x": {"mcpServers": {"paneflow": {"command": "local"}}}`) {
		t.Errorf("a project-scoped entry of the same name was touched:\n%s", got)
	}
}

func TestNewFiles(t *testing.T) {
	f := newFixture(t)
	// Agents on PATH without files: files are created.
	for _, n := range []string{"claude", "codex", "gemini", "opencode"} {
		f.write(filepath.Join(f.bin, n), "#!/bin/sh\n")
	}
	f.mustRun("install")
	b := f.bridge()
	if got, want := f.read(f.path(".claude.json")), "{\n  \"mcpServers\": {\n    \"paneflow\": {\n      \"type\": \"stdio\",\n      \"command\": \""+b+"\",\n      \"args\": []\n    }\n  }\n}\n"; got != want {
		t.Errorf("new .claude.json:\n%s\nwant:\n%s", got, want)
	}
	if got, want := f.read(f.path(".codex/config.toml")), "[mcp_servers.paneflow]\ncommand = \""+b+"\"\nargs = []\n"+
		"env_vars = [\"PANEFLOW_SOCKET_PATH\", \"PANEFLOW_SURFACE_ID\", \"XDG_RUNTIME_DIR\", \"XDG_CACHE_HOME\"]\n"; got != want {
		t.Errorf("new config.toml:\n%q\nwant:\n%q", got, want)
	}
	if got := f.read(f.path(".config/opencode/opencode.json")); !strings.Contains(got, `"command": [`) {
		t.Errorf("new opencode.json:\n%s", got)
	}
	if _, err := os.Stat(f.path(".claude.json.bak")); err == nil {
		t.Error("a backup of a file that did not exist")
	}
}

func TestNoAgents(t *testing.T) {
	f := newFixture(t)
	code, out, _ := f.run("install")
	if code != 0 || !strings.Contains(out, "no agent CLI detected") {
		t.Errorf("install without agents: %d %s", code, out)
	}
	if _, err := os.Stat(f.bridge()); err == nil {
		t.Error("the bridge was installed with no agent to use it")
	}
}

func TestBridgeMissing(t *testing.T) {
	f := newFixture(t)
	os.Remove(filepath.Join(f.bin, "paneflow-mcp"))
	f.write(f.path(".claude.json"), claudeOrig)
	code, _, errs := f.run("install")
	if code != 1 || !strings.Contains(errs, "MCP bridge binary is missing at "+f.bridge()) || !strings.Contains(errs, "Nothing was written.") {
		t.Errorf("exit %d: %s", code, errs)
	}
	if f.read(f.path(".claude.json")) != claudeOrig {
		t.Error("the file changed")
	}
}

// TestStatusAdvice: status says how to install the missing bridge in the
// words of the caller (the desktop app has a button, not a command line).
func TestStatusAdvice(t *testing.T) {
	f := newFixture(t)
	_, out, _ := f.run("status")
	if !strings.Contains(out, "missing (run `paneflow mcp install`)") {
		t.Errorf("status without a bridge:\n%s", out)
	}
	var b bytes.Buffer
	RunCommand([]string{"status"}, &b, &b, Env{Getenv: func(k string) string { return f.env[k] }, GOOS: "linux", Exe: f.exe, Install: "choose Install"})
	if got := b.String(); !strings.Contains(got, "missing (choose Install)") || strings.Contains(got, "paneflow mcp install") {
		t.Errorf("status with Env.Install:\n%s", got)
	}
}

func TestBridgeKeptCurrent(t *testing.T) {
	f := newFixture(t)
	f.write(f.path(".claude.json"), "{}")
	f.mustRun("install")
	f.write(filepath.Join(f.bin, "paneflow-mcp"), "bridge v2")
	if out := f.mustRun("install"); !strings.Contains(out, "installed from") {
		t.Errorf("a new bridge was not copied:\n%s", out)
	}
	if f.read(f.bridge()) != "bridge v2" {
		t.Error("stale bridge")
	}
	if out := f.mustRun("install"); strings.Contains(out, "installed from") {
		t.Errorf("an unchanged bridge was copied again:\n%s", out)
	}
}

func TestUnsafeFilesLeftAlone(t *testing.T) {
	cases := []struct {
		name, rel, data, want string
		setup                 func(f *fixture, p string)
	}{
		{name: "broken json", rel: ".claude.json", data: `{"mcpServers": {`, want: "cannot be parsed"},
		{name: "json with comments", rel: ".gemini/settings.json", data: "{\n// no\n}", want: "cannot be parsed"},
		{name: "not an object", rel: ".claude.json", data: `[1,2]`, want: "not a JSON object"},
		{name: "duplicate key", rel: ".claude.json", data: `{"a":1,"a":2}`, want: "duplicate key"},
		{name: "foreign container", rel: ".claude.json", data: `{"mcpServers": ["x"]}`, want: `"mcpServers" is not an object`},
		{name: "broken toml", rel: ".codex/config.toml", data: "model = \n[x", want: "cannot be parsed"},
		{name: "inline toml entry", rel: ".codex/config.toml", data: "mcp_servers = { paneflow = { command = \"x\" } }\n", want: "edit it by hand"},
		{name: "broken jsonc", rel: ".config/opencode/opencode.json", data: "{ /* open", want: "cannot be parsed"},
		{name: "read-only", rel: ".claude.json", data: claudeOrig, want: "read-only",
			setup: func(f *fixture, p string) { os.Chmod(p, 0o444) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.path(tc.rel)
			f.write(p, tc.data)
			if tc.setup != nil {
				tc.setup(f, p)
			}
			for _, verb := range []string{"install", "uninstall", "status"} {
				code, _, errs := f.run(verb)
				if tc.name == "read-only" && verb != "install" {
					continue // nothing of ours to remove; status reads fine
				}
				if tc.name == "inline toml entry" && verb == "status" {
					continue // status reads it fine
				}
				if code != 1 || !strings.Contains(errs, tc.want) {
					t.Errorf("%s: exit %d, stderr %q, want 1 and %q", verb, code, errs, tc.want)
				}
			}
			if got := f.read(p); got != tc.data {
				t.Errorf("the file changed:\n%s", got)
			}
			if _, err := os.Stat(p + ".bak"); err == nil {
				t.Error("a backup was written")
			}
		})
	}
}

func TestSymlinkFollowed(t *testing.T) {
	f := newFixture(t)
	real := filepath.Join(f.home, "dotfiles", "claude.json")
	f.write(real, claudeOrig)
	if err := os.Symlink(real, f.path(".claude.json")); err != nil {
		t.Skip(err)
	}
	f.mustRun("install")
	if fi, err := os.Lstat(f.path(".claude.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if !strings.Contains(f.read(real), f.bridge()) {
		t.Error("the link's target was not edited")
	}
	f.mustRun("uninstall")
	if f.read(real) != claudeOrig {
		t.Errorf("after uninstall:\n%s", f.read(real))
	}
	// A dangling link is an error, and stays.
	os.Remove(real)
	if code, _, errs := f.run("install"); code != 1 || !strings.Contains(errs, "symlink") {
		t.Errorf("dangling symlink: %d %s", code, errs)
	}
}

func TestOrchestrateFlag(t *testing.T) {
	f := newFixture(t)
	f.write(f.path(".claude.json"), claudeOrig)
	f.write(f.path(".codex/config.toml"), codexOrig)
	f.write(f.path(".config/opencode/opencode.json"), opencodeOrig)
	f.mustRun("install", "--orchestrate")
	if got := f.read(f.path(".claude.json")); !strings.Contains(got, `"args": [`+"\n"+`        "--orchestrate"`) {
		t.Errorf("claude entry without --orchestrate:\n%s", got)
	}
	if got := f.read(f.path(".codex/config.toml")); !strings.Contains(got, `args = ["--orchestrate"]`) {
		t.Errorf("codex entry without --orchestrate:\n%s", got)
	}
	if got := f.read(f.path(".config/opencode/opencode.json")); !strings.Contains(got, `"--orchestrate"`) {
		t.Errorf("opencode entry without --orchestrate:\n%s", got)
	}
	if out := f.mustRun("status"); strings.Count(out, "; orchestration on (--orchestrate)") != 3 {
		t.Errorf("status says not all three entries have orchestration on:\n%s", out)
	}
	// Without the flag the entries go back to no arguments.
	if out := f.mustRun("install"); strings.Count(out, ": updated") != 3 {
		t.Errorf("install without the flag:\n%s", out)
	}
	if got := f.read(f.path(".codex/config.toml")); !strings.Contains(got, "args = []") {
		t.Errorf("codex entry:\n%s", got)
	}
	if out := f.mustRun("status"); strings.Count(out, "; orchestration off") != 3 || strings.Contains(out, "orchestration on") {
		t.Errorf("status after install without the flag:\n%s", out)
	}
	f.mustRun("install", "--orchestrate")
	f.mustRun("uninstall")
	for rel, want := range map[string]string{".claude.json": claudeOrig, ".codex/config.toml": codexOrig} {
		if got := f.read(f.path(rel)); strings.Contains(got, "paneflow-mcp") {
			t.Errorf("%s after uninstall:\n%s (want like %q)", rel, got, want[:20])
		}
	}
	if code, _, _ := f.run("status", "--orchestrate"); code != 2 {
		t.Errorf("status --orchestrate: exit %d, want 2", code)
	}
}

func TestUsage(t *testing.T) {
	f := newFixture(t)
	for _, args := range [][]string{nil, {"bogus"}, {"install", "extra"}} {
		if code, _, errs := f.run(args...); code != 2 || !strings.Contains(errs, "usage: paneflow mcp") {
			t.Errorf("%v: %d %s", args, code, errs)
		}
	}
	if code, out, _ := f.run("--help"); code != 0 || !strings.HasPrefix(out, "usage:") {
		t.Errorf("--help: %d", code)
	}
}

func TestOpencodeJSONC(t *testing.T) {
	f := newFixture(t)
	p := f.path(".config/opencode/opencode.jsonc")
	f.write(p, opencodeOrig)
	f.mustRun("install")
	if _, err := os.Stat(f.path(".config/opencode/opencode.json")); err == nil {
		t.Error("opencode.json created next to an existing opencode.jsonc")
	}
	got := f.read(p)
	for _, w := range []string{"// my opencode config", "/* servers */", "// keep me", f.bridge()} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q:\n%s", w, got)
		}
	}
	f.mustRun("uninstall")
	if f.read(p) != opencodeOrig {
		t.Errorf("after uninstall:\n%s", f.read(p))
	}
}

func FuzzJSONCEdit(f *testing.F) {
	for _, s := range []string{claudeOrig, geminiOrig, opencodeOrig, "{}", `{"mcp":{"paneflow":1,}}`, "{\n//c\n\"a\":[1,{\"b\":2}],}"} {
		f.Add([]byte(s))
	}
	a := &Agent{Path: "x", Format: JSONC, Container: "mcp", entry: Agents("/h", "/c")[3].entry}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := a.withEntry(data, "/b/paneflow-mcp", []string{})
		if err != nil {
			return
		}
		if err := a.verify(out, "/b/paneflow-mcp"); err != nil {
			t.Fatalf("install produced %q from %q: %v", out, data, err)
		}
		back, err := a.withoutEntry(out)
		if err != nil {
			t.Fatalf("uninstall of %q: %v", out, err)
		}
		if _, has, err := a.current(back); err != nil || has {
			t.Fatalf("uninstall left %q (%v)", back, err)
		}
	})
}
