package shim

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/hook"
)

// launchFor returns a launch of tool in a fresh project and home, with
// reference counting in a fresh state directory.
func launchFor(t *testing.T, tool string) Launch {
	t.Helper()
	root := t.TempDir()
	l := Launch{
		Tool: tool, Dir: filepath.Join(root, "project"), Home: filepath.Join(root, "home"),
		HookPath: "/opt/paneflow/bin/paneflow-ai-hook", GOOS: "linux",
		StateDir: filepath.Join(root, "state"), PID: os.Getpid(),
		Getenv: func(string) string { return "" },
	}
	os.MkdirAll(l.Dir, 0o755)
	os.MkdirAll(l.Home, 0o755)
	return l
}

// hookEvents returns the events of the hooks object in the JSON file p
// that have a group of ours.
func hookEvents(t *testing.T, p string) []string {
	t.Helper()
	var v struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(readFile(t, p)), &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	var out []string
	for ev, groups := range v.Hooks {
		for _, g := range groups {
			var c bytes.Buffer
			json.Compact(&c, g)
			if strings.Contains(c.String(), `"_paneflow_managed":true`) && strings.Contains(string(g), "paneflow-ai-hook") {
				out = append(out, ev)
			}
		}
	}
	return out
}

func TestInjectCodexFresh(t *testing.T) {
	l := launchFor(t, "codex")
	in := Inject(l)
	if !in.Hooked || len(in.Warnings) > 0 {
		t.Fatalf("Inject = hooked %v, warnings %q; want hooked, none", in.Hooked, in.Warnings)
	}
	hooksPath := filepath.Join(l.Dir, ".codex", "hooks.json")
	if got := hookEvents(t, hooksPath); len(got) != len(CodexEvents) {
		t.Errorf("hooks.json has our groups for %v; want %v", got, CodexEvents)
	}
	if !strings.Contains(readFile(t, hooksPath), `"/opt/paneflow/bin/paneflow-ai-hook PreToolUse"`) {
		t.Errorf("hooks.json lacks the hook command:\n%s", readFile(t, hooksPath))
	}
	cfg := filepath.Join(l.Home, ".codex", "config.toml")
	if got := readFile(t, cfg); got != codexFeatureHead+"\n"+codexFlagLine+"\n" {
		t.Errorf("config.toml = %q", got)
	}
	if w := in.Cleanup(); len(w) > 0 {
		t.Fatalf("Cleanup: %q", w)
	}
	for _, p := range []string{filepath.Join(l.Dir, ".codex"), filepath.Join(l.Home, ".codex")} {
		if exists(p) {
			t.Errorf("%s left after cleanup", p)
		}
	}
	if entries, _ := os.ReadDir(l.StateDir); len(entries) > 2 { // only lock files remain
		t.Errorf("state dir holds %d entries after cleanup", len(entries))
	}
}

func TestInjectCodexKeepsUserContent(t *testing.T) {
	l := launchFor(t, "codex")
	hooksPath := filepath.Join(l.Dir, ".codex", "hooks.json")
	user := `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ]
  },
  "other": 1
}
`
	writeFile(t, hooksPath, user)
	cfg := filepath.Join(l.Home, ".codex", "config.toml")
	userCfg := "model = \"o3\"\n\n[features]\nweb_search = true\n\n[tui]\nnotifications = true\n"
	writeFile(t, cfg, userCfg)

	in := Inject(l)
	if !in.Hooked {
		t.Fatalf("Inject not hooked: %q", in.Warnings)
	}
	data := readFile(t, hooksPath)
	if !strings.Contains(data, "notify-send done") || len(hookEvents(t, hooksPath)) != len(CodexEvents) {
		t.Errorf("hooks.json after Inject:\n%s", data)
	}
	if got := readFile(t, cfg); got != "model = \"o3\"\n\n[features]\n"+codexFlagLine+"\nweb_search = true\n\n[tui]\nnotifications = true\n" {
		t.Errorf("config.toml after Inject = %q", got)
	}
	// A second launch (same pid here) changes nothing: idempotent.
	again := Inject(l)
	if got := readFile(t, hooksPath); got != data {
		t.Errorf("a second Inject changed hooks.json:\n%s", got)
	}
	again.Cleanup()
	in.Cleanup()
	var got, want any
	json.Unmarshal([]byte(readFile(t, hooksPath)), &got)
	json.Unmarshal([]byte(user), &want)
	if g, _ := json.Marshal(got); string(g) != mustJSON(want) {
		t.Errorf("hooks.json after cleanup = %s; want the user's %s", g, mustJSON(want))
	}
	if got := readFile(t, cfg); got != userCfg {
		t.Errorf("config.toml after cleanup = %q; want %q", got, userCfg)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInjectCodexUserFlag(t *testing.T) {
	for _, tt := range []struct {
		cfg    string
		hooked bool
	}{
		{"[features]\ncodex_hooks = true\n", true},
		{"features.hooks = true\n", true},
		{"[features]\ncodex_hooks = false\n", false},
	} {
		l := launchFor(t, "codex")
		cfg := filepath.Join(l.Home, ".codex", "config.toml")
		writeFile(t, cfg, tt.cfg)
		in := Inject(l)
		if in.Hooked != tt.hooked {
			t.Errorf("config %q: hooked = %v; want %v (warnings %q)", tt.cfg, in.Hooked, tt.hooked, in.Warnings)
		}
		if got := readFile(t, cfg); got != tt.cfg {
			t.Errorf("config %q changed by Inject: %q", tt.cfg, got)
		}
		in.Cleanup()
		if got := readFile(t, cfg); got != tt.cfg {
			t.Errorf("config %q changed by Cleanup: %q", tt.cfg, got)
		}
	}
}

func TestInjectUnparseableLeftAlone(t *testing.T) {
	for _, tool := range []string{"codex", "gemini"} {
		t.Run(tool, func(t *testing.T) {
			l := launchFor(t, tool)
			p := filepath.Join(l.Dir, "."+tool, map[string]string{"codex": "hooks.json", "gemini": "settings.json"}[tool])
			bad := "{\"hooks\": {  // a comment\n"
			writeFile(t, p, bad)
			in := Inject(l)
			if in.Hooked || len(in.Warnings) == 0 {
				t.Errorf("Inject = hooked %v, warnings %q; want not hooked, a warning", in.Hooked, in.Warnings)
			}
			in.Cleanup()
			if got := readFile(t, p); got != bad {
				t.Errorf("%s = %q; want it untouched", p, got)
			}
			if exists(p + ".bak") {
				t.Errorf("%s.bak written for a file we could not parse", p)
			}
			if tool == "codex" && exists(filepath.Join(l.Home, ".codex")) {
				t.Error("config.toml edited although hooks.json was refused")
			}
		})
	}
}

func TestInjectSymlinkedDirRefused(t *testing.T) {
	l := launchFor(t, "gemini")
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(l.Dir, ".gemini"))
	in := Inject(l)
	defer in.Cleanup()
	if in.Hooked {
		t.Error("Inject wrote through a symlinked .gemini")
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("files written outside the project: %v", entries)
	}
}

func TestInjectGemini(t *testing.T) {
	l := launchFor(t, "gemini")
	p := filepath.Join(l.Dir, ".gemini", "settings.json")
	user := "{\n  \"theme\": \"GitHub\",\n  \"hooks\": {\n    \"AfterAgent\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n    ]\n  }\n}\n"
	writeFile(t, p, user)
	in := Inject(l)
	if !in.Hooked {
		t.Fatalf("not hooked: %q", in.Warnings)
	}
	data := readFile(t, p)
	for _, want := range []string{`"theme": "GitHub"`, `say done`, `"/opt/paneflow/bin/paneflow-ai-hook Stop"`, `"timeout": 5000`, `"name": "paneflow-status"`} {
		if !strings.Contains(data, want) {
			t.Errorf("settings.json lacks %s:\n%s", want, data)
		}
	}
	if got := hookEvents(t, p); len(got) != len(GeminiEvents) {
		t.Errorf("our groups for %v; want %d events", got, len(GeminiEvents))
	}
	if readFile(t, p+".bak") != user {
		t.Error("no backup of the user's settings")
	}
	in.Cleanup()
	var got, want any
	json.Unmarshal([]byte(readFile(t, p)), &got)
	json.Unmarshal([]byte(user), &want)
	if mustJSON(got) != mustJSON(want) {
		t.Errorf("settings.json after cleanup = %s; want %s", mustJSON(got), mustJSON(want))
	}
}

func TestInjectOpencode(t *testing.T) {
	l := launchFor(t, "opencode")
	os.MkdirAll(filepath.Join(l.Dir, ".opencode"), 0o755) // the user's
	in := Inject(l)
	if !in.Hooked {
		t.Fatalf("not hooked: %q", in.Warnings)
	}
	p := filepath.Join(l.Dir, ".opencode", "plugins", opencodePluginName)
	if got := readFile(t, p); got != OpencodePlugin(l.HookPath) || !strings.Contains(got, `const HOOK = "/opt/paneflow/bin/paneflow-ai-hook";`) {
		t.Errorf("plugin = %q", got)
	}
	in.Cleanup()
	if exists(filepath.Join(l.Dir, ".opencode", "plugins")) {
		t.Error("plugins dir we created left behind")
	}
	if !exists(filepath.Join(l.Dir, ".opencode")) {
		t.Error("the user's .opencode removed")
	}

	// A file of the same name that is not ours is left alone.
	theirs := "export const Mine = async () => ({})\n"
	writeFile(t, p, theirs)
	in = Inject(l)
	if in.Hooked {
		t.Error("hooked over someone else's plugin file")
	}
	in.Cleanup()
	if readFile(t, p) != theirs {
		t.Error("someone else's plugin file changed")
	}
}

func TestInjectSharedByTwoLaunches(t *testing.T) {
	l := launchFor(t, "codex")
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	l2 := l
	l2.PID = other.Process.Pid // a second live shim in the same project

	first, second := Inject(l), Inject(l2)
	hooksPath := filepath.Join(l.Dir, ".codex", "hooks.json")
	first.Cleanup()
	if !exists(hooksPath) || len(hookEvents(t, hooksPath)) != len(CodexEvents) {
		t.Fatal("the first launch's exit removed the hooks the second still uses")
	}
	second.Cleanup()
	if exists(filepath.Join(l.Dir, ".codex")) {
		t.Fatal("the last launch's exit left the hooks")
	}

	// A launch that died without cleaning up does not pin the hooks.
	Inject(l2) // never cleaned up
	other.Process.Kill()
	other.Wait()
	third := Inject(l)
	third.Cleanup()
	if exists(filepath.Join(l.Dir, ".codex")) {
		t.Fatal("a dead launch kept the hooks alive")
	}
}

func TestInjectClaude(t *testing.T) {
	l := launchFor(t, "claude")
	l.Args = []string{"-c"}
	in := Inject(l)
	if !in.Hooked || len(in.Args) != 3 || in.Args[0] != "--settings" || in.Args[2] != "-c" {
		t.Fatalf("Inject = hooked %v, args %q", in.Hooked, in.Args)
	}
	var settings struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(in.Args[1]), &settings); err != nil || len(settings.Hooks) != len(hook.ClaudeEvents) {
		t.Fatalf("--settings %s: %v", in.Args[1], err)
	}
	in.Cleanup()

	for _, args := range [][]string{{"mcp", "list"}, {"--settings", "x.json"}, {"--settings=x.json"}} {
		l.Args = args
		if in := Inject(l); in.Hooked || strings.Join(in.Args, " ") != strings.Join(args, " ") {
			t.Errorf("args %q: hooked %v, args %q; want no injection", args, in.Hooked, in.Args)
		}
	}

	// With the user-scope hooks installed (and their program present)
	// nothing is added.
	prog := writeExec(t, t.TempDir(), "paneflow-ai-hook", "exit 0")
	inst := &hook.Installer{SettingsPath: filepath.Join(l.Home, ".claude", "settings.json"), HookPath: prog, GOOS: "linux"}
	if _, err := inst.Setup(); err != nil {
		t.Fatal(err)
	}
	l.Args = nil
	if in := Inject(l); !in.Hooked || len(in.Args) != 0 {
		t.Errorf("with user hooks: hooked %v, args %q; want hooked, no args", in.Hooked, in.Args)
	}
	os.Remove(prog)
	if in := Inject(l); !in.Hooked || len(in.Args) != 2 || len(in.Warnings) != 1 {
		t.Errorf("with stale user hooks: hooked %v, args %q, warnings %q; want --settings and a warning", in.Hooked, in.Args, in.Warnings)
	}
}

func TestInjectOtherTool(t *testing.T) {
	l := launchFor(t, "amp")
	l.Args = []string{"x"}
	in := Inject(l)
	if in.Hooked || len(in.Args) != 1 {
		t.Errorf("amp: hooked %v, args %q", in.Hooked, in.Args)
	}
	if entries, _ := os.ReadDir(l.Dir); len(entries) > 0 {
		t.Errorf("amp launch wrote %v", entries)
	}
}
