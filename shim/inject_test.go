package shim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
		// Gemini CLI trusts the folder (its hooks run only there).
		Getenv: func(name string) string { return map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"}[name] },
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

// TestCodexTrustHash pins the hash against one that Codex 0.169.0's
// app-server (hooks/list, currentHash) reported for such a hook.
func TestCodexTrustHash(t *testing.T) {
	got := CodexTrustHash("Stop", "/tmp/i13c/hook.sh Stop", 10)
	if want := "sha256:559ff572b0648024afb619876e203e593018654a8338b33f59f7dd2f6ec82479"; got != want {
		t.Errorf("CodexTrustHash = %s; want %s", got, want)
	}
	// The hashes Codex 0.169.0's app-server reported (hooks/list) for
	// these hooks in a config.toml; Interrupt's timeout 5 clamped to 3.
	for _, tc := range []struct{ event, want string }{
		{"Stop", "sha256:47d492f434f4a7c5f441c5aae807a11f58de7119b18a0a84d65780dc347b4ad6"},
		{"Interrupt", "sha256:d15beb521279d2d4c6a92797e2fdea811e847855c5ddbdb120f4240c744faf8b"},
	} {
		if got := CodexTrustHash(tc.event, "/x/paneflow-ai-hook "+tc.event, codexTimeout(tc.event)); got != tc.want {
			t.Errorf("CodexTrustHash(%s) = %s; want %s", tc.event, got, tc.want)
		}
	}
	if got, want := codexSnake("UserPromptSubmit"), "user_prompt_submit"; got != want {
		t.Errorf("codexSnake = %q; want %q", got, want)
	}
}

func TestInjectCodex(t *testing.T) {
	l := launchFor(t, "codex")
	l.Args = []string{"exec", "fix it"}
	cfg := filepath.Join(l.Home, ".codex", "config.toml")
	userCfg := "model = \"o3\"\n\n[features]\nweb_search = true\n"
	writeFile(t, cfg, userCfg)
	in := Inject(l)
	if !in.Hooked || len(in.Warnings) > 0 {
		t.Fatalf("Inject = hooked %v, warnings %q; want hooked, none", in.Hooked, in.Warnings)
	}
	want := append(CodexOverrides(l.HookPath, l.GOOS), "exec", "fix it")
	if !slices.Equal(in.Args, want) {
		t.Errorf("args = %q; want %q", in.Args, want)
	}
	joined := strings.Join(in.Args, "\n")
	for _, ev := range hook.CodexEvents {
		cmd := "/opt/paneflow/bin/paneflow-ai-hook " + ev
		timeout := 5
		if ev == "Interrupt" {
			timeout = 3 // Codex clamps it to 3 s, and hashes that
		}
		if !strings.Contains(joined, "hooks."+ev+`=[{hooks=[{type="command",command="`+cmd+`",timeout=`+strconv.Itoa(timeout)+`}]}]`) {
			t.Errorf("no hooks.%s override in %q", ev, in.Args)
		}
		key := `"/<session-flags>/config.toml:` + codexSnake(ev) + `:0:0"={trusted_hash="` + CodexTrustHash(ev, cmd, timeout) + `"}`
		if !strings.Contains(joined, key) {
			t.Errorf("no trust for %s (%s) in %q", ev, key, in.Args)
		}
	}
	if exists(filepath.Join(l.Dir, ".codex")) {
		t.Errorf("the launch wrote %s/.codex", l.Dir)
	}
	in.Cleanup()
	if got := readFile(t, cfg); got != userCfg {
		t.Errorf("config.toml = %q; want the user's %q", got, userCfg)
	}
}

// TestCodexMCPTrustHash pins the hash of mcp_tool hooks against those
// Codex 0.169.0's app-server reported (hooks/list, currentHash) for such
// hooks in a config.toml (server "logger", tool "hook", no timeout: 600).
func TestCodexMCPTrustHash(t *testing.T) {
	for _, tc := range []struct {
		event string
		input map[string]any
		want  string
	}{
		{"Stop", map[string]any{"event": "Stop", "payload": map[string]any{"last_assistant_message": "${last_assistant_message}"}},
			"sha256:72ac9c52a93df2ddcd3a3bfe72ecfe547a272e1a907d07d653de7a139085098b"},
		{"PreToolUse", map[string]any{"event": "x"}, "sha256:703c10953f1cdc794802e6121e87e5e51fbac359435fc68972f524dc54eb91ee"},
		{"Stop", map[string]any{"pid": "1234"}, "sha256:f9201df4ccd11996434e513568444190a3b0a0fdf00432bd217ffa6f0da95e4d"},
	} {
		h := map[string]any{"input": tc.input, "server": "logger", "timeout": 600, "tool": "hook", "type": "mcp_tool"}
		if got := codexHash(tc.event, h); got != tc.want {
			t.Errorf("codexHash(%s, %v) = %s; want %s", tc.event, tc.input, got, tc.want)
		}
	}
}

// TestInjectCodexMCP: a Codex whose user config runs our bridge (the
// installed copy or the one next to the shim) gets mcp_tool hooks calling
// its hook tool; any entry that could not serve them (disabled, another
// program, another host, the pane's id not passed on, its tools
// filtered) gets command hooks.
func TestInjectCodexMCP(t *testing.T) {
	entry := "[mcp_servers.paneflow]\ncommand = %q\nargs = []\nenv_vars = [\"PANEFLOW_SOCKET_PATH\", \"PANEFLOW_SURFACE_ID\", \"XDG_RUNTIME_DIR\"]\n"
	for _, tc := range []struct {
		name, cfg string
		mcp       bool
	}{
		{"next to the shim", fmt.Sprintf(entry, "/opt/paneflow/bin/paneflow-mcp"), true},
		{"installed copy", fmt.Sprintf(entry, "HOME/.local/share/paneflow/bin/paneflow-mcp"), true},
		{"disabled", fmt.Sprintf(entry, "/opt/paneflow/bin/paneflow-mcp") + "enabled = false\n", false},
		{"another program", fmt.Sprintf(entry, "/usr/bin/other-mcp"), false},
		{"another host", strings.Replace(fmt.Sprintf(entry, "/opt/paneflow/bin/paneflow-mcp"), "args = []", `args = ["--host", "ssh://h"]`, 1), false},
		{"no surface id", strings.Replace(fmt.Sprintf(entry, "/opt/paneflow/bin/paneflow-mcp"), `"PANEFLOW_SURFACE_ID", `, "", 1), false},
		{"tools filtered", fmt.Sprintf(entry, "/opt/paneflow/bin/paneflow-mcp") + "enabled_tools = [\"read_pane\"]\n", false},
		{"no entry", "model = \"o3\"\n", false},
		{"unparseable", "model = \n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := launchFor(t, "codex")
			l.Getenv = func(name string) string { return map[string]string{"HOME": l.Home}[name] }
			l.Args = []string{"exec", "fix it"}
			writeFile(t, filepath.Join(l.Home, ".codex", "config.toml"), strings.ReplaceAll(tc.cfg, "HOME", l.Home))
			in := Inject(l)
			want := append(CodexOverrides(l.HookPath, l.GOOS), l.Args...)
			if tc.mcp {
				want = append(CodexMCPOverrides("codex", l.PID, l.GOOS), l.Args...)
			}
			if !in.Hooked || !slices.Equal(in.Args, want) {
				t.Fatalf("Inject = hooked %v, args %q; want %q", in.Hooked, in.Args, want)
			}
		})
	}
	joined := strings.Join(CodexMCPOverrides("codex", 42, "linux"), "\n")
	for _, want := range []string{
		`hooks.Stop=[{hooks=[{type="mcp_tool",server="paneflow",tool="paneflow_hook_event",timeout=5,input={event="Stop",tool="codex",pid="42",payload={session_id="${session_id}",transcript_path="${transcript_path}",turn_id="${turn_id}",last_assistant_message="${last_assistant_message}"}}}]}]`,
		`hooks.Interrupt=[{hooks=[{type="mcp_tool",server="paneflow",tool="paneflow_hook_event",timeout=3,`,
		`"/<session-flags>/config.toml:permission_request:0:0"={trusted_hash="sha256:`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s in\n%s", want, joined)
		}
	}
}

func TestInjectCodexNoSession(t *testing.T) {
	for _, args := range [][]string{{"login"}, {"mcp", "list"}, {"--version"}} {
		l := launchFor(t, "codex")
		l.Args = args
		if in := Inject(l); in.Hooked || !slices.Equal(in.Args, args) {
			t.Errorf("codex %q: hooked %v, args %q; want no hooks", args, in.Hooked, in.Args)
		}
	}
	l := launchFor(t, "codex")
	l.Args = []string{"-c", "features.hooks=false", "exec", "x"}
	if in := Inject(l); in.Hooked || len(in.Warnings) != 1 || !slices.Equal(in.Args, l.Args) {
		t.Errorf("hooks turned off: hooked %v, warnings %q, args %q", in.Hooked, in.Warnings, in.Args)
	}
}

func TestInjectUnparseableLeftAlone(t *testing.T) {
	for _, tool := range []string{"gemini"} {
		t.Run(tool, func(t *testing.T) {
			l := launchFor(t, tool)
			p := filepath.Join(l.Dir, "."+tool, "settings.json")
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
	if exists(p + ".bak") {
		t.Error("a backup left inside the project")
	}
	in.Cleanup()
	if got := readFile(t, p); got != user {
		t.Errorf("settings.json after cleanup = %q; want the user's exact bytes %q", got, user)
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf(".gemini holds %v; want settings.json alone", entries)
	}
}

// TestInjectGeminiSymlinkRefused: a repository's .gemini/settings.json
// that is a symlink to a file of the user's outside it is neither followed
// nor backed up into the repository; the launch runs unhooked and says
// why (issue 25).
func TestInjectGeminiSymlinkRefused(t *testing.T) {
	l := launchFor(t, "gemini")
	outside := filepath.Join(t.TempDir(), "victim.json")
	secret := "{\"token\": \"s3cret\"}\n"
	writeFile(t, outside, secret)
	p := filepath.Join(l.Dir, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	in := Inject(l)
	if in.Hooked {
		t.Error("hooked through a symlinked settings.json")
	}
	if !strings.Contains(in.Reason, "hooks_not_installed") || !strings.Contains(in.Reason, "symlink") {
		t.Errorf("reason = %q; want hooks_not_installed naming the symlink", in.Reason)
	}
	in.Cleanup()
	if got := readFile(t, outside); got != secret {
		t.Errorf("the file outside the project = %q; want it untouched", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf(".gemini holds %v; want the symlink alone", entries)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
}

// TestInjectGeminiEditedMeanwhile: when the user edits the file while the
// agent runs, cleanup keeps their edit and removes only our groups.
func TestInjectGeminiEditedMeanwhile(t *testing.T) {
	l := launchFor(t, "gemini")
	p := filepath.Join(l.Dir, ".gemini", "settings.json")
	writeFile(t, p, `{"theme":"GitHub"}`)
	in := Inject(l)
	if !in.Hooked {
		t.Fatalf("not hooked: %q", in.Warnings)
	}
	var v map[string]any
	json.Unmarshal([]byte(readFile(t, p)), &v)
	v["theme"] = "Dracula"
	writeFile(t, p, mustJSON(v))
	in.Cleanup()
	var got any
	json.Unmarshal([]byte(readFile(t, p)), &got)
	if want := `{"theme":"Dracula"}`; mustJSON(got) != want {
		t.Errorf("after cleanup %s; want %s", mustJSON(got), want)
	}
}

// TestInjectGeminiTwoLaunches: the exact bytes come back when the last of
// two launches sharing the file exits, with or without a state directory.
func TestInjectGeminiTwoLaunches(t *testing.T) {
	for _, counted := range []bool{true, false} {
		l := launchFor(t, "gemini")
		if !counted {
			l.StateDir = ""
		}
		p := filepath.Join(l.Dir, ".gemini", "settings.json")
		user := "{ \"theme\" :\t\"GitHub\" }  \n\n"
		writeFile(t, p, user)
		first := Inject(l)
		l2 := l
		l2.PID = os.Getppid()
		second := Inject(l2)
		if !first.Hooked || !second.Hooked {
			t.Fatalf("counted %v: hooked %v %v", counted, first.Hooked, second.Hooked)
		}
		first.Cleanup()
		if counted && len(hookEvents(t, p)) == 0 {
			t.Error("the first exit removed the hooks the second launch uses")
		}
		second.Cleanup()
		if got := readFile(t, p); got != user {
			t.Errorf("counted %v: after both exits %q; want %q", counted, got, user)
		}
	}
}

// TestInjectOpencodeConfigDir: by default opencode's plugin goes into a
// directory of the launch's own, named by OPENCODE_CONFIG_DIR; nothing is
// written into the project.
func TestInjectOpencodeConfigDir(t *testing.T) {
	l := launchFor(t, "opencode")
	in := Inject(l)
	if !in.Hooked || len(in.Warnings) > 0 {
		t.Fatalf("Inject = hooked %v, warnings %q", in.Hooked, in.Warnings)
	}
	dir := filepath.Join(l.StateDir, fmt.Sprintf("opencode-%d", l.PID))
	if want := []string{"OPENCODE_CONFIG_DIR=" + dir, EnvOpencodeUsage + "=" + filepath.Join(dir, "usage.jsonl")}; !slices.Equal(in.Env, want) {
		t.Errorf("env = %q; want %q", in.Env, want)
	}
	if got := readFile(t, filepath.Join(dir, "plugins", opencodePluginName)); got != OpencodePlugin(l.HookPath) {
		t.Errorf("plugin = %q", got)
	}
	if exists(filepath.Join(l.Dir, ".opencode")) {
		t.Error("the launch wrote into the project")
	}
	in.Cleanup()
	if exists(dir) {
		t.Error("the launch's config dir left behind")
	}
}

// TestInjectOpencode: when the user sets OPENCODE_CONFIG_DIR, the plugin
// goes into the project's .opencode/plugins for the run.
func TestInjectOpencode(t *testing.T) {
	l := launchFor(t, "opencode")
	l.Getenv = func(name string) string {
		if name == "OPENCODE_CONFIG_DIR" {
			return "/somewhere/of/theirs"
		}
		return ""
	}
	os.MkdirAll(filepath.Join(l.Dir, ".opencode"), 0o755) // the user's
	in := Inject(l)
	if !in.Hooked {
		t.Fatalf("not hooked: %q", in.Warnings)
	}
	p := filepath.Join(l.Dir, ".opencode", "plugins", opencodePluginName)
	if got := readFile(t, p); got != OpencodePlugin(l.HookPath) || !strings.Contains(got, `const HOOK = "/opt/paneflow/bin/paneflow-ai-hook";`) {
		t.Errorf("plugin = %q", got)
	}
	// The usage file goes into a directory of the launch's own, not the
	// project.
	usageDir := filepath.Join(l.StateDir, fmt.Sprintf("opencode-%d", l.PID))
	if want := []string{EnvOpencodeUsage + "=" + filepath.Join(usageDir, "usage.jsonl")}; !slices.Equal(in.Env, want) || !exists(usageDir) {
		t.Errorf("env = %q, want %q in a directory that exists", in.Env, want)
	}
	in.Cleanup()
	if exists(usageDir) {
		t.Error("the launch's usage directory left behind")
	}
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
	l := launchFor(t, "gemini")
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	l2 := l
	l2.PID = other.Process.Pid // a second live shim in the same project

	first, second := Inject(l), Inject(l2)
	hooksPath := filepath.Join(l.Dir, ".gemini", "settings.json")
	first.Cleanup()
	if !exists(hooksPath) || len(hookEvents(t, hooksPath)) != len(GeminiEvents) {
		t.Fatal("the first launch's exit removed the hooks the second still uses")
	}
	second.Cleanup()
	if exists(filepath.Join(l.Dir, ".gemini")) {
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

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestGeminiUntrusted(t *testing.T) {
	l := launchFor(t, "gemini")
	l.Getenv = func(string) string { return "" }
	trusted := filepath.Join(l.Home, ".gemini", "trustedFolders.json")
	for _, tt := range []struct {
		settings, folders string
		trusted           bool
	}{
		{"", "", false},
		{"", `{"` + l.Dir + `":"TRUST_FOLDER"}`, true},
		{"", `{"` + filepath.Dir(l.Dir) + `":"TRUST_FOLDER"}`, true},
		{"", `{"` + filepath.Join(l.Dir, "sub") + `":"TRUST_PARENT"}`, true},
		{"", `{"` + filepath.Dir(l.Dir) + `":"TRUST_FOLDER","` + l.Dir + `":"DO_NOT_TRUST"}`, false},
		{"", `{"` + l.Dir + `x":"TRUST_FOLDER"}`, false},
		{`{"security":{"folderTrust":{"enabled":false}}}`, "", true},
		{"// jsonc\n{}", "", true}, // cannot tell: Gemini decides
	} {
		os.RemoveAll(filepath.Join(l.Home, ".gemini"))
		if tt.settings != "" {
			writeFile(t, filepath.Join(l.Home, ".gemini", "settings.json"), tt.settings)
		}
		if tt.folders != "" {
			writeFile(t, trusted, tt.folders)
		}
		in := Inject(l)
		if in.Hooked != tt.trusted || (in.Reason != "") == tt.trusted {
			t.Errorf("settings %q folders %q: hooked %v reason %q; want hooked %v", tt.settings, tt.folders, in.Hooked, in.Reason, tt.trusted)
		}
		if !tt.trusted && (!strings.HasPrefix(in.Reason, "untrusted_folder: ") || exists(filepath.Join(l.Dir, ".gemini"))) {
			t.Errorf("untrusted: reason %q, or the project file was written", in.Reason)
		}
		in.Cleanup()
	}
}

// TestInjectClaudeHTTP: with the server's http-hook endpoint, Claude Code
// gets an http hook per event posting there with the pane's ids in the
// query and the secret only in its environment (interpolated into the
// Authorization header), never in its arguments.
func TestInjectClaudeHTTP(t *testing.T) {
	l := launchFor(t, "claude")
	env := map[string]string{hook.EnvSurfaceID: "7", hook.EnvWorkspaceID: "2"}
	l.Getenv = func(k string) string { return env[k] }
	l.PID = 4242
	l.HookURL, l.HookToken = "http://127.0.0.1:5555/hook", "s3cr3t-token"
	in := Inject(l)
	defer in.Cleanup()
	if !in.Hooked || len(in.Args) != 2 || in.Args[0] != "--settings" {
		t.Fatalf("Inject = hooked %v, args %q", in.Hooked, in.Args)
	}
	if strings.Contains(strings.Join(in.Args, " "), l.HookToken) {
		t.Fatalf("the secret is in the arguments: %q", in.Args)
	}
	if len(in.Env) != 1 || in.Env[0] != hook.EnvHTTPToken+"="+l.HookToken {
		t.Fatalf("Env = %q", in.Env)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type           string            `json:"type"`
				URL            string            `json:"url"`
				Headers        map[string]string `json:"headers"`
				AllowedEnvVars []string          `json:"allowedEnvVars"`
				Timeout        int               `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(in.Args[1]), &settings); err != nil || len(settings.Hooks) != len(hook.ClaudeEvents) {
		t.Fatalf("--settings %s: %v", in.Args[1], err)
	}
	for _, ev := range hook.ClaudeEvents {
		g := settings.Hooks[ev]
		if len(g) != 1 || len(g[0].Hooks) != 1 {
			t.Fatalf("%s: %s", ev, in.Args[1])
		}
		h := g[0].Hooks[0]
		// The pane's ids come from the posting process's environment (a
		// teammate posts with its own), not from the lead's URL.
		want := "http://127.0.0.1:5555/hook?event=" + ev + "&tool=claude"
		wantAllowed := []string{hook.EnvPID, hook.EnvHTTPToken, hook.EnvSurfaceID, hook.EnvWorkspaceID}
		if h.Type != "http" || h.URL != want || h.Timeout <= 0 ||
			h.Headers["Authorization"] != "Bearer ${"+hook.EnvHTTPToken+"}" || h.Headers[hook.HTTPHookMark] != "1" ||
			h.Headers["X-Paneflow-Surface"] != "${"+hook.EnvSurfaceID+"}" || h.Headers["X-Paneflow-Workspace"] != "${"+hook.EnvWorkspaceID+"}" ||
			h.Headers["X-Paneflow-Pid"] != "${"+hook.EnvPID+"}" || !slices.Equal(h.AllowedEnvVars, wantAllowed) {
			t.Errorf("%s: %+v, want url %s, allowedEnvVars %q", ev, h, want, wantAllowed)
		}
	}
}
