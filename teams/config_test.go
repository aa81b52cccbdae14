package teams

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// realTeamConfig is the config.json Claude Code 2.1.332 wrote for a lead
// that spawned alpha and beta through Paneflow's tmux shim (test/agents'
// team run; its HOME kept), byte for byte.
const realTeamConfig = "testdata/claude-2.1.332-team-config.json"

// TestTeamNameFromConfig: a teammate's team name, and its name and colour
// when its command line lacks them, come from the config.json Claude Code
// keeps in the lead's config directory; without a readable file the team
// is named as the command line says.
func TestTeamNameFromConfig(t *testing.T) {
	real, err := os.ReadFile(realTeamConfig)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfgPath := filepath.Join(home, ".claude", "teams", "session-8090a9bf", "config.json")
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cfgPath, string(real))

	h := newFakeHost()
	var logMu sync.Mutex
	var logged []string
	r := New(Options{Host: h, SocketPath: "/run/paneflow.sock", ClaudeConfigDir: filepath.Join(t.TempDir(), "nowhere"),
		Logf: func(f string, a ...any) {
			logMu.Lock()
			defer logMu.Unlock()
			logged = append(logged, f)
		}})
	t.Cleanup(r.Close)
	env := append([]string{"HOME=" + home}, leadEnv[2:]...)
	if _, err := r.Attach(h.wss[0].panes[0], env); err != nil {
		t.Fatal(err)
	}
	// alpha's command line names it and its team; the second teammate's
	// carries only the team, as a hand-written respawn might.
	runWith := func(steps []step) {
		t.Helper()
		for i, s := range steps {
			res := r.Tmux(TmuxRequest{Argv: s.argv, Pane: "%0", Cwd: "/proj", Env: env})
			if res.Code != s.code || (s.out != "*" && res.Stdout != s.out) {
				t.Fatalf("step %d: tmux %q = (%q, %q, %d)", i, s.argv, res.Stdout, res.Stderr, res.Code)
			}
		}
	}
	runWith([]step{
		{[]string{"split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"}, "%1\n", 0},
		{[]string{"respawn-pane", "-k", "-t", "%1", "--", "claude --agent-id alpha@session-8090a9bf --agent-name alpha --team-name session-8090a9bf --agent-color blue"}, "", 0},
		{[]string{"split-window", "-d", "-t", "%1", "-v", "-P", "-F", "#{pane_id}", "--", "cat"}, "%2\n", 0},
		{[]string{"respawn-pane", "-k", "-t", "%2", "--", "claude --team-name session-8090a9bf"}, "", 0},
	})
	teammate := func(pane string) Member {
		t.Helper()
		for _, m := range r.Members() {
			if m.Pane == pane {
				return m
			}
		}
		t.Fatalf("no member %s in %+v", pane, r.Members())
		return Member{}
	}
	// The real file: its name, and beta (%2 in its members) with its colour.
	if m := teammate("%1"); m.TeamName != "session-8090a9bf" || m.Agent != "alpha" || m.Color != "blue" {
		t.Errorf("alpha = %+v, want team_name session-8090a9bf, blue", m)
	}
	if m := teammate("%2"); m.TeamName != "session-8090a9bf" || m.Agent != "beta" || m.Color != "green" || m.Team != "session-8090a9bf" {
		t.Errorf("second teammate = %+v, want beta, green from the config", m)
	}

	// A name the user gave (TeamCreate's team_name in older releases):
	// the file is read again once it changes.
	write(cfgPath, strings.Replace(string(real), `"name": "session-8090a9bf"`, `"name": "Release crew"`, 1))
	if m := teammate("%1"); m.TeamName != "Release crew" || m.Team != "session-8090a9bf" {
		t.Errorf("after renaming: alpha = %+v, want team_name Release crew, team session-8090a9bf", m)
	}

	// A broken file is not trusted: the command line's name, and a log.
	write(cfgPath, `{"name": "half`)
	if m := teammate("%1"); m.TeamName != "session-8090a9bf" || m.Color != "blue" {
		t.Errorf("broken config: alpha = %+v, want the command line's team and colour", m)
	}
	if m := teammate("%2"); m.Agent != "" || m.Color != "" {
		t.Errorf("broken config: second teammate = %+v, want no name or colour", m)
	}
	logMu.Lock()
	if len(logged) != 1 {
		t.Errorf("logged %q, want one line about the broken config", logged)
	}
	logMu.Unlock()

	// CLAUDE_CONFIG_DIR wins over HOME, as it does for Claude Code.
	other := t.TempDir()
	write(filepath.Join(other, "teams", "session-8090a9bf", "config.json"), `{"name":"from CLAUDE_CONFIG_DIR","members":[]}`)
	if _, err := r.Attach(h.wss[0].panes[0], append(env, "CLAUDE_CONFIG_DIR="+other)); err != nil {
		t.Fatal(err)
	}
	if m := teammate("%1"); m.TeamName != "from CLAUDE_CONFIG_DIR" {
		t.Errorf("with CLAUDE_CONFIG_DIR: alpha = %+v", m)
	}

	// A lead whose environment is unknown: the registry's default.
	if got := ClaudeConfigDir(nil); got != "" {
		t.Errorf("ClaudeConfigDir(nil) = %q", got)
	}
}

// TestTeamConfigPath: a team name from a command line never leaves the
// teams directory.
func TestTeamConfigPath(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`, "/abs", "x\x00y", strings.Repeat("n", 256)} {
		if p := TeamConfigPath("/h/.claude", bad); p != "" {
			t.Errorf("TeamConfigPath(%q) = %q, want none", bad, p)
		}
		if _, err := ReadTeamConfig("/h/.claude", bad); err == nil {
			t.Errorf("ReadTeamConfig(%q) succeeded", bad)
		}
	}
	if p := TeamConfigPath("/h/.claude", "session-1"); p != filepath.Join("/h/.claude", "teams", "session-1", "config.json") {
		t.Errorf("TeamConfigPath = %q", p)
	}
	if p := TeamConfigPath("", "session-1"); p != "" {
		t.Errorf("TeamConfigPath without a directory = %q", p)
	}
	cfg, err := ReadTeamConfig("testdata/nonexistent", "session-1")
	if err == nil || !os.IsNotExist(err) || cfg != nil {
		t.Errorf("missing config: %v, %v", cfg, err)
	}
	// Not a regular file.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "teams", "t", "config.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTeamConfig(dir, "t"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory as config.json: %v", err)
	}
}
