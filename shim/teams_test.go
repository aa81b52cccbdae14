package shim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestWithTeammateMode(t *testing.T) {
	injected := []string{"--settings", `{"hooks":{}}`, "--model", "m"}
	for _, tc := range []struct {
		name     string
		args     []string
		mode     string
		injected bool
		want     []string
	}{
		{"merged into ours", injected, "", true, []string{"--settings", `{"teammateMode":"tmux","hooks":{}}`, "--model", "m"}},
		{"own settings flag", []string{"-p", "x"}, "", false, []string{"--settings", `{"teammateMode":"tmux"}`, "-p", "x"}},
		{"user's --settings kept", []string{"--settings", "/f.json"}, "", false, []string{"--settings", "/f.json"}},
		{"mode chosen in settings", []string{"x"}, "in-process", false, []string{"x"}},
		{"mode on the command line", []string{"--teammate-mode", "in-process"}, "", false, []string{"--teammate-mode", "in-process"}},
		{"subcommand", []string{"mcp", "list"}, "", false, []string{"mcp", "list"}},
	} {
		if got := withTeammateMode(tc.args, tc.mode, tc.injected); !slices.Equal(got, tc.want) {
			t.Errorf("%s: withTeammateMode(%q) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestTeamsEnabled(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if on, _ := teamsEnabled(getenv, home, dir); on {
		t.Fatal("enabled with nothing set")
	}
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"env":{"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS":"1"}}`), 0o644)
	if on, mode := teamsEnabled(getenv, home, dir); !on || mode != "" {
		t.Fatalf("user settings: enabled %v mode %q", on, mode)
	}
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte(`{"teammateMode":"in-process"}`), 0o644)
	if _, mode := teamsEnabled(getenv, home, dir); mode != "in-process" {
		t.Fatalf("project settings mode = %q", mode)
	}
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`not json`), 0o644)
	env[EnvAgentTeams] = "1"
	if on, _ := teamsEnabled(getenv, home, dir); !on {
		t.Fatal("the environment variable did not enable teams")
	}
}

// TestClaudeTeamsInsideRealTmux: Claude Code started inside a real tmux
// (TMUX set) keeps that tmux: nothing changes.
func TestClaudeTeamsInsideRealTmux(t *testing.T) {
	env := []string{"TMUX=/tmp/tmux-0/default,123,0", EnvAgentTeams + "=1", "PATH=/usr/bin"}
	p := Program{Environ: env}
	gotEnv, gotArgs, warns := p.claudeTeams(env, nil, []string{"x"}, t.TempDir(), t.TempDir(), false)
	if !slices.Equal(gotEnv, env) || !slices.Equal(gotArgs, []string{"x"}) || warns != nil {
		t.Errorf("claudeTeams inside tmux = %q %q %q", gotEnv, gotArgs, warns)
	}
}

func TestIsTmux(t *testing.T) {
	for in, want := range map[string]bool{"tmux": true, "/x/teams/tmux": true, `C:\x\tmux.exe`: true, "claude": false, "tmux2": false} {
		if isTmux(in) != want {
			t.Errorf("isTmux(%q) = %v", in, !want)
		}
	}
}
