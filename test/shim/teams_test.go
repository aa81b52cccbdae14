//go:build linux

package shim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeClaude replays what Claude Code 2.1.332 does with tmux when its
// lead spawns a teammate (spec real-agents-offline.md), through whatever
// `tmux` is first on its PATH, and records what it saw in $OUT.
const fakeClaude = `#!/bin/sh
{ echo "TMUX=$TMUX"; echo "TMUX_PANE=$TMUX_PANE"; echo "ARGS=$*"; echo "TMUXBIN=$(command -v tmux)"; echo "BACKEND=$CLAUDE_PANE_BACKEND_SOCKET $CLAUDE_PANE_BACKEND_SESSION_ID"; } > "$OUT/lead"
tmux show -gv focus-events > "$OUT/focus" || exit 90
S="${TMUX%%,*}"
w=$(tmux -S "$S" display-message -t "$TMUX_PANE" -p '#{window_id}') || exit 91
tmux -S "$S" list-panes -t "$w" -F '#{pane_id}' > "$OUT/panes1" || exit 92
p=$(tmux -S "$S" split-window -d -t "$TMUX_PANE" -h -l 70% -P -F '#{pane_id}' -- cat) || exit 93
tmux -S "$S" set-option -p -t "$p" window-style bg=default,fg=blue || exit 94
tmux -S "$S" select-pane -t "$p" -T alpha || exit 95
tmux -S "$S" set-option -p -t "$p" remain-on-exit failed || exit 96
tmux -S "$S" respawn-pane -k -t "$p" -- "cd $OUT && env CLAUDECODE=1 sh -c 'command -v tmux > mate-tmux; tmux display-message -p \"#{pane_id} #{pane_title}\" > mate-self; echo \$LEAD_VAR > mate-env; sleep 600'" || exit 97
echo "$p" > "$OUT/spawned"
while [ ! -e "$OUT/go" ]; do sleep 0.05; done
tmux -S "$S" kill-pane -t "$p" || exit 98
tmux -S "$S" kill-pane -t "$p" || exit 99
tmux -S "$S" list-panes -t "$w" -F '#{pane_id}' > "$OUT/panes2"
echo done > "$OUT/done"
exec sleep 600
`

func (e *env) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(e.out, name))
	return string(b)
}

func (e *env) waitFile(name string) string {
	e.t.Helper()
	e.waitFor(name, func() bool { _, err := os.Stat(filepath.Join(e.out, name)); return err == nil })
	var s string
	e.waitFor(name+" written", func() bool { s = e.read(name); return strings.HasSuffix(s, "\n") })
	return s
}

// TestClaudeTeamThroughShim: Claude Code launched through the shim with
// agent teams enabled finds our tmux, and its teammate opens as a named
// Paneflow pane running with the lead's environment; a user's shell pane
// sees neither our tmux nor a TMUX.
func TestClaudeTeamThroughShim(t *testing.T) {
	e := start(t)
	if err := os.WriteFile(filepath.Join(e.dir, "fake", "claude"), []byte(fakeClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("cd %s && claude --model m; echo $? > %s/exit; sleep 600", e.project, e.out)
	if _, err := e.cli("new", "--command", script, "--env", "OUT="+e.out, "--env", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "--env", "LEAD_VAR=from-lead"); err != nil {
		t.Fatal(err)
	}
	spawned := e.waitFile("spawned")
	if exit := e.read("exit"); exit != "" {
		t.Fatalf("fake claude exited %s\nlead: %s", exit, e.read("lead"))
	}
	lead := e.read("lead")
	for _, want := range []string{"TMUX=" + e.sock + ",0,0\n", "TMUX_PANE=%0\n", `ARGS=--settings {"teammateMode":"tmux",`, "/teams/tmux\n", "-panes.sock ctx_0\n"} {
		if !strings.Contains(lead, want) {
			t.Errorf("the lead saw:\n%s\nwant %q in it", lead, want)
		}
	}
	if got := e.read("focus"); got != "on\n" {
		t.Errorf("show -gv focus-events = %q", got)
	}
	if got := e.read("panes1"); got != "%0\n" {
		t.Errorf("list-panes before the spawn = %q", got)
	}
	if spawned != "%1\n" {
		t.Errorf("split-window printed %q, want %%1", spawned)
	}
	// The teammate runs in its own pane, with its own TMUX_PANE, our
	// tmux and the lead's environment; the pane is named after it.
	if got := e.waitFile("mate-self"); got != "%1 alpha\n" {
		t.Errorf("the teammate's tmux display-message = %q", got)
	}
	if got := e.waitFile("mate-tmux"); !strings.HasSuffix(got, "/teams/tmux\n") {
		t.Errorf("the teammate's tmux is %q", got)
	}
	if got := e.waitFile("mate-env"); got != "from-lead\n" {
		t.Errorf("the teammate's LEAD_VAR = %q", got)
	}
	out, err := e.cli("ls")
	if err != nil {
		t.Fatal(err)
	}
	var panes []map[string]any
	if err := json.Unmarshal([]byte(out), &panes); err != nil {
		var wrapped struct {
			Surfaces []map[string]any `json:"surfaces"`
		}
		if err := json.Unmarshal([]byte(out), &wrapped); err != nil {
			t.Fatalf("ls: %v\n%s", err, out)
		}
		panes = wrapped.Surfaces
	}
	named := false
	for _, p := range panes {
		named = named || p["name"] == "alpha"
	}
	if !named || len(panes) != 3 {
		t.Errorf("ls = %s; want the first workspace's shell, the lead and a pane named alpha", out)
	}

	// A user's pane gets the real tmux (or none) and no TMUX.
	if _, err := e.cli("new", "--command", fmt.Sprintf(`{ command -v tmux; echo "TMUX=$TMUX"; } > %s/user; sleep 600`, e.out)); err != nil {
		t.Fatal(err)
	}
	if got := e.waitFile("user"); strings.Contains(got, "/teams/") || !strings.HasSuffix(got, "TMUX=\n") {
		t.Errorf("a user's pane sees %q", got)
	}

	// Shutdown: kill-pane closes the teammate (twice: idempotent).
	os.WriteFile(filepath.Join(e.out, "go"), nil, 0o644)
	e.waitFile("done")
	if exit := e.read("exit"); exit != "" {
		t.Fatalf("fake claude exited %s", exit)
	}
	if got := e.read("panes2"); got != "%0\n" {
		t.Errorf("list-panes after kill-pane = %q", got)
	}
}
