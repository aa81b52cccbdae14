package teams

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// leadEnv is the environment of a Claude Code lead launched through the
// shim: what its tmux calls carry.
var leadEnv = []string{
	"PATH=/cache/paneflow/bin/dev/teams:/usr/bin", "HOME=/home/u", "TERM=xterm-256color",
	"ANTHROPIC_BASE_URL=http://127.0.0.1:9999", "ANTHROPIC_API_KEY=k",
	"TMUX=/run/paneflow.sock,0,0", "TMUX_PANE=%0",
	"PANEFLOW_SURFACE_ID=1", "PANEFLOW_AI_PID=4242", "PANEFLOW_AI_TOOL=claude",
	EnvHookToken + "=secret",
}

// newTestRegistry returns a registry on a fake host with its lead (the
// first pane) attached as %0.
func newTestRegistry(t *testing.T) (*Registry, *fakeHost, uint64) {
	t.Helper()
	h := newFakeHost()
	r := New(Options{Host: h, SocketPath: "/run/paneflow.sock"})
	t.Cleanup(r.Close)
	lead := h.wss[0].panes[0]
	a, err := r.Attach(lead, leadEnv)
	if err != nil {
		t.Fatal(err)
	}
	if a.Pane != "%0" || a.Window != "@0" || a.ContextID != "ctx_0" || a.TMUX != "/run/paneflow.sock,0,0" {
		t.Fatalf("attach = %+v", a)
	}
	return r, h, lead
}

// step is one recorded tmux call and what it must answer.
type step struct {
	argv []string
	out  string // expected stdout; "*" skips the check
	code int
}

func run(t *testing.T, r *Registry, steps []step) {
	t.Helper()
	for i, s := range steps {
		res := r.Tmux(TmuxRequest{Argv: s.argv, Pane: "%0", SurfaceID: 1, Cwd: "/proj", Env: leadEnv})
		if res.Code != s.code || (s.out != "*" && res.Stdout != s.out) {
			t.Fatalf("step %d: tmux %q = (%q, %q, %d), want (%q, %d)", i, s.argv, res.Stdout, res.Stderr, res.Code, s.out, s.code)
		}
	}
}

func sock(argv ...string) []string { return append([]string{"-S", "/run/paneflow.sock"}, argv...) }

const respawnCmd = `cd /proj && env CLAUDECODE=1 CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 ANTHROPIC_BASE_URL=http://127.0.0.1:9999 ` +
	`/home/u/.local/share/claude/versions/2.1.332 --agent-id helper@session-620e0f77 --agent-name helper ` +
	`--team-name session-620e0f77 --agent-color blue --parent-session-id 620e0f77-a2a2 --agent-type general-purpose ` +
	`--permission-mode acceptEdits --settings '{"teammateMode":"tmux"}' --model m`

// TestReplayCurrentProtocol replays the tmux calls of Claude Code 2.1.332
// spawning one teammate (spec real-agents-offline.md), then a second one
// as 2.1.211 does (spec agent-teams.md §2a), the layout calls and the
// shutdown.
func TestReplayCurrentProtocol(t *testing.T) {
	r, h, lead := newTestRegistry(t)
	run(t, r, []step{
		{[]string{"show", "-gv", "focus-events"}, "on\n", 0},
		{[]string{"show", "-Av", "mouse"}, "off\n", 0},
		{[]string{"show-options", "-gv", "extended-keys"}, "on\n", 0},
		{[]string{"display-message", "-p", "-t", "%0", "#{session_name}:#{window_id}.#{pane_id}"}, "paneflow:@0.%0\n", 0},
		{[]string{"display-message", "-p", "-t", "%0", "#{client_termtype}\t#{allow-passthrough}\t#{focus-events}\t#{pane_top}\t#{pane_left}\t#{status}\t#{status-position}\t#{window_bigger}"},
			"xterm-256color\toff\ton\t0\t0\toff\t\t\n", 0},
		{sock("display-message", "-t", "%0", "-p", "#{window_id}"), "@0\n", 0},
		{sock("list-panes", "-t", "@0", "-F", "#{pane_id}"), "%0\n", 0},
		{sock("split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat"), "%1\n", 0},
		{sock("set-option", "-p", "-t", "%1", "window-style", "bg=default,fg=blue"), "", 0},
		{sock("set-option", "-p", "-t", "%1", "pane-border-style", "fg=blue"), "", 0},
		{sock("set-option", "-p", "-t", "%1", "pane-active-border-style", "fg=blue"), "", 0},
		{sock("select-pane", "-t", "%1", "-T", "helper"), "", 0},
		{sock("set-option", "-p", "-t", "%1", "pane-border-format", "#[fg=blue,bold] #{pane_title} #[default]"), "", 0},
		{sock("list-panes", "-t", "@0", "-F", "#{pane_id}"), "%0\n%1\n", 0},
		{sock("set-option", "-w", "-t", "@0", "pane-border-status", "top"), "", 0},
		{sock("set-option", "-p", "-t", "%1", "remain-on-exit", "failed"), "", 0},
		{sock("respawn-pane", "-k", "-t", "%1", "--", respawnCmd), "", 0},
		{sock("display-message", "-t", "%1", "-p", "#{pane_title} #{remain-on-exit} #{pane_dead}"), "helper failed 0\n", 0},
		// 2.1.211's second teammate: split the previous one, stacked.
		{sock("split-window", "-d", "-t", "%1", "-v", "-P", "-F", "#{pane_id}", "--", "cat"), "%2\n", 0},
		{sock("select-pane", "-t", "%2", "-T", "beta"), "", 0},
		{sock("list-panes", "-t", "@0", "-F", "#{pane_id}\t#{pane_title}"), "%0\tlead\n%1\thelper\n%2\tbeta\n", 0},
		{sock("select-layout", "-t", "@0", "main-vertical"), "", 0},
		{sock("resize-pane", "-t", "%0", "-x", "30%"), "", 0},
		{sock("kill-pane", "-t", "%2"), "", 0},
		{sock("kill-pane", "-t", "%2"), "", 0},
		{sock("kill-pane", "-t", "%99"), "", 0},
		{sock("list-panes", "-t", "@0", "-F", "#{pane_id}"), "%0\n%1\n", 0},
	})
	// The teammate runs the command with sh -c, the lead's environment
	// (without Paneflow's per-launch variables) and its own TMUX_PANE.
	sid := r.panes[1].surface
	p, ok := h.pane(sid)
	if !ok {
		t.Fatal("teammate pane is gone")
	}
	if !slices.Equal(p.spec.Argv, []string{"/bin/sh", "-c", respawnCmd}) {
		t.Errorf("argv = %q", p.spec.Argv)
	}
	env := p.spec.Env
	if env["TMUX_PANE"] != "%1" || env["ANTHROPIC_API_KEY"] != "k" || env["TMUX"] != "/run/paneflow.sock,0,0" || env[EnvBackendSession] != "ctx_1" {
		t.Errorf("env = %v", env)
	}
	if _, ok := env["PANEFLOW_AI_PID"]; ok {
		t.Errorf("the teammate inherited PANEFLOW_AI_PID: %v", env)
	}
	// The lead's http hooks, which Claude Code gives the teammate, send
	// the endpoint's secret from the environment.
	if env[EnvHookToken] != "secret" {
		t.Errorf("the teammate did not inherit %s: %v", EnvHookToken, env)
	}
	if p.name != "helper" {
		t.Errorf("pane name = %q, want helper", p.name)
	}
	ms := r.Members()
	if len(ms) != 2 || ms[1].Agent != "helper" || ms[1].Team != "session-620e0f77" || ms[1].Color != "blue" ||
		ms[1].Role != "general-purpose" || ms[1].LeadSurfaceID != lead || !ms[1].Teammate || ms[0].Teammate {
		t.Errorf("members = %+v", ms)
	}
	// Layout: the first teammate took 70 % beside the lead; main-vertical
	// evens the stack and puts the lead at 30 %; resize-pane -x 30 % too.
	if len(h.shares) == 0 || !strings.HasSuffix(h.shares[0], " true 0.70") {
		t.Errorf("shares = %q, want the first teammate at 70 %% beside the lead first", h.shares)
	}
	if !slices.Contains(h.shares, fmt.Sprintf("%d true 0.30", lead)) {
		t.Errorf("shares = %q: the lead never got 30 %%", h.shares)
	}
}

// TestReplayOlderProtocol replays 2.1.38 / 2.1.174 (spec agent-teams.md
// §2b): login-shell splits, send-keys, capture-pane polling.
func TestReplayOlderProtocol(t *testing.T) {
	r, h, _ := newTestRegistry(t)
	run(t, r, []step{
		{[]string{"-V"}, "tmux 3.4\n", 0},
		{[]string{"display-message", "-p", "#{pane_id}"}, "%0\n", 0},
		{[]string{"display-message", "-p", "#{session_name}:#{window_index}"}, "paneflow:0\n", 0},
		{[]string{"list-panes", "-t", "paneflow:0", "-F", "#{pane_id}"}, "%0\n", 0},
		{[]string{"splitw", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}"}, "%1\n", 0},
		{[]string{"split-window", "-t", "%1", "-v", "-P", "-F", "#{pane_id}"}, "%2\n", 0},
		{[]string{"selectp", "-t", "%1", "-P", "bg=default,fg=blue"}, "", 0},
		{[]string{"select-pane", "-t", "%1", "-T", "alpha"}, "", 0},
		{[]string{"setw", "-t", "paneflow:0", "pane-border-status", "top"}, "", 0},
		{[]string{"send-keys", "-t", "%1", "cd /x && env CLAUDECODE=1 claude --agent-name alpha", "Enter"}, "", 0},
		{[]string{"send", "-t", "%2", "-l", "claude --agent-name beta"}, "", 0},
		{[]string{"send-keys", "-t", "%2", "Enter"}, "", 0},
		{[]string{"send-keys", "-t", "%2", "C-c", "M-x", "Escape", "BSpace", "Tab", "Space", "C-m"}, "", 0},
		{[]string{"capture-pane", "-p", "-t", "%1"}, "hello\n\n", 0},
		{[]string{"capturep", "-p", "-t", "%1", "-S", "-2"}, "old2\nold3\nhello\n\n", 0},
		{[]string{"capture-pane", "-p", "-t", "%1", "-S", "-", "-E", "0"}, "old1\nold2\nold3\nhello\n", 0},
		{[]string{"capture-pane", "-p", "-t", "%1", "-S", "-1", "-E", "0", "-J"}, "old3hello\n", 0},
		{[]string{"has-session", "-t", "paneflow"}, "", 0},
		{[]string{"has", "-t", "claude-swarm"}, "", 1},
		{[]string{"killp", "-t", "%1"}, "", 0},
		{[]string{"kill-pane", "-t", "%1"}, "", 0},
		{[]string{"list-panes", "-F", "#{pane_id} #{pane_index}"}, "%0 0\n%2 1\n", 0},
		{[]string{"new-session", "-d", "-s", "x"}, "", 1},
		{[]string{"frobnicate"}, "", 1},
		{[]string{"split-window", "-Q"}, "", 1},
	})
	p2, _ := h.pane(r.panes[2].surface)
	if got, want := string(p2.input), "claude --agent-name beta\r\x03\x1bx\x1b\x7f\t \r"; got != want {
		t.Errorf("%%2 input = %q, want %q", got, want)
	}
	if p2.spec.Argv != nil {
		t.Errorf("a split without a command runs %q, want the shell", p2.spec.Argv)
	}
}

func init() {
	// Text for the capture steps of TestReplayOlderProtocol: pane %1 of
	// the fake host (surface 2) shows "hello" over three lines of
	// scrollback; "old3" fills its 4-column width (a soft wrap for -J).
	fakeText = map[uint64]Text{2: {History: []string{"old1", "old2", "old3"}, Screen: []string{"hello", ""}, Cols: 4}}
}

func TestUnknownVerbAndErrors(t *testing.T) {
	r, _, _ := newTestRegistry(t)
	for _, tc := range []struct {
		argv []string
		err  string
	}{
		{[]string{"frobnicate"}, "unknown command: frobnicate"},
		{[]string{}, "no command"},
		{[]string{"-c", "ls"}, "not supported"},
		{[]string{"split-window", "-l"}, "requires an argument"},
		{[]string{"split-window", "-t", "%7"}, "can't find pane: %7"},
		{[]string{"split-window", "-l", "150%"}, "bad size"},
		{[]string{"respawn-pane", "-t", "%0", "--", "x"}, "not started by a team"},
		{[]string{"display-message", "-t", "other:0", "-p", "x"}, "can't find session: other"},
		{[]string{"s"}, "ambiguous command"},
	} {
		res := r.Tmux(TmuxRequest{Argv: tc.argv, Pane: "%0", Env: leadEnv})
		if res.Code != 1 || !strings.Contains(res.Stderr, tc.err) {
			t.Errorf("tmux %q = (%q, %d), want exit 1 and %q", tc.argv, res.Stderr, res.Code, tc.err)
		}
	}
}

// TestConcurrentSplits: 20 parallel split-window calls get 20 distinct
// ids and 20 panes.
func TestConcurrentSplits(t *testing.T) {
	r, h, _ := newTestRegistry(t)
	var wg sync.WaitGroup
	ids := make([]string, 20)
	for i := range ids {
		wg.Go(func() {
			res := r.Tmux(TmuxRequest{Argv: sock("split-window", "-d", "-t", "%0", "-h", "-P", "-F", "#{pane_id}", "--", "cat"), Pane: "%0", Env: leadEnv})
			if res.Code != 0 {
				t.Errorf("split %d: %q", i, res.Stderr)
			}
			ids[i] = strings.TrimSpace(res.Stdout)
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] || !strings.HasPrefix(id, "%") || id == "%0" {
			t.Fatalf("ids = %q: not 20 distinct new ids", ids)
		}
		seen[id] = true
	}
	if n := h.count(); n != 21 {
		t.Fatalf("host has %d panes, want 21 (lead + 20)", n)
	}
	res := r.Tmux(TmuxRequest{Argv: []string{"list-panes", "-F", "#{pane_id}"}, Pane: "%0"})
	if n := strings.Count(res.Stdout, "\n"); n != 21 {
		t.Fatalf("list-panes lists %d panes, want 21:\n%s", n, res.Stdout)
	}
}

// TestRemainOnExit: with remain-on-exit failed a teammate that exits
// non-zero stays with its status and one that exits 0 closes; with the
// default (off) any exit closes the pane.
func TestRemainOnExit(t *testing.T) {
	r, h, _ := newTestRegistry(t)
	handled := make(chan struct{}, 10)
	r.mu.Lock()
	r.exitHook = func() { handled <- struct{}{} }
	r.mu.Unlock()
	spawn := func(remain string) (string, uint64) {
		res := r.Tmux(TmuxRequest{Argv: []string{"split-window", "-d", "-h", "-P", "-F", "#{pane_id}", "--", "cat"}, Pane: "%0", Env: leadEnv})
		id := strings.TrimSpace(res.Stdout)
		if remain != "" {
			run(t, r, []step{{[]string{"set-option", "-p", "-t", id, "remain-on-exit", remain}, "", 0}})
		}
		run(t, r, []step{{[]string{"respawn-pane", "-k", "-t", id, "--", "agent"}, "", 0}})
		n, _ := parseNum(id, '%')
		r.mu.Lock()
		defer r.mu.Unlock()
		return id, r.panes[n].surface
	}
	failed, fs := spawn("failed")
	ok, os := spawn("failed")
	off, ofs := spawn("")
	// The placeholders' exits (killed by respawn) are handled and ignored.
	for range 3 {
		<-handled
	}
	h.exit(fs, 3)
	<-handled
	h.exit(os, 0)
	<-handled
	h.exit(ofs, 5)
	<-handled
	res := r.Tmux(TmuxRequest{Argv: []string{"list-panes", "-F", "#{pane_id} #{pane_dead} #{pane_dead_status}"}, Pane: "%0"})
	want := "%0 0 \n" + failed + " 1 3\n"
	if res.Stdout != want {
		t.Fatalf("after exits list-panes =\n%s\nwant\n%s(%s exited 0, %s has remain-on-exit off)", res.Stdout, want, ok, off)
	}
}

func TestFormat(t *testing.T) {
	vars := func(n string) string {
		return map[string]string{"pane_id": "%3", "one": "1", "zero": "0", "pane_title": "alpha"}[n]
	}
	for _, tc := range []struct{ in, want string }{
		{"#{pane_id}", "%3"},
		{"#{pane_id}\t#{unknown}\t#{pane_title}", "%3\t\talpha"},
		{"##{pane_id} ## #", "#{pane_id} # #"},
		{"#D #T", "%3 alpha"},
		{"#{?one,yes,no} #{?zero,yes,no} #{?nothing,yes}", "yes no "},
		{"#{?one,#{pane_id},x}", "%3"},
		{"#[fg=blue,bold] #{pane_title} #[default]", "#[fg=blue,bold] alpha #[default]"},
		{"#{=5:pane_title}", ""},
		{"#{pane_id", "#{pane_id"},
		{"", ""},
	} {
		if got := expand(tc.in, vars); got != tc.want {
			t.Errorf("expand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAgentFlags(t *testing.T) {
	name, team, color, role := agentFlags(respawnCmd)
	if name != "helper" || team != "session-620e0f77" || color != "blue" || role != "general-purpose" {
		t.Errorf("agentFlags = %q %q %q %q", name, team, color, role)
	}
	name, team, _, _ = agentFlags(`env X="a b" claude --agent-id 'alpha@team one'`)
	if name != "alpha" || team != "team one" {
		t.Errorf("agentFlags from --agent-id = %q %q", name, team)
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		"split-window\x00-d\x00-t\x00%0\x00-h\x00-l\x0070%\x00-P\x00-F\x00#{pane_id}\x00--\x00cat",
		"-S\x00/s\x00respawn-pane\x00-k\x00-t\x00%1\x00--\x00cd x && y",
		"-V", "send-keys\x00-t\x00%1\x00-l\x00x", "capture-pane\x00-p\x00-S\x00-10\x00-J",
		"display\x00-p\x00#{?a,#{b},c}", "-L", "--\x00lsp",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		argv := strings.Split(s, "\x00")
		c, err := parseCommand(argv)
		if err != nil {
			return
		}
		if !c.version && c.verb == nil {
			t.Fatalf("parseCommand(%q): no verb and no error", argv)
		}
		_ = NeedsEnv(argv)
		if c.verb != nil && c.verb.run != nil {
			for f := range c.flags {
				if !strings.ContainsRune(c.verb.bools+c.verb.values, rune(f)) {
					t.Fatalf("parseCommand(%q): flag -%c not in %s's table", argv, f, c.verb.name)
				}
			}
		}
		expand(strings.Join(argv, " "), func(string) string { return "v" })
	})
}

// TestSplitFocus: split-window without -d makes the new pane its window's
// active (focused) one, as tmux does; with -d the focus stays.
// select-pane -t focuses; select-pane -T only names.
func TestSplitFocus(t *testing.T) {
	r, h, lead := newTestRegistry(t)
	run(t, r, []step{{[]string{"split-window", "-d", "-h", "-P", "-F", "#{pane_id}", "--", "cat"}, "%1\n", 0}})
	if got := h.focused(lead); got != lead {
		t.Errorf("after split-window -d the focus is on %d, want the lead %d", got, lead)
	}
	run(t, r, []step{{[]string{"split-window", "-v", "-t", "%1", "-P", "-F", "#{pane_id}", "--", "cat"}, "%2\n", 0}})
	second := r.panes[2].surface
	if got := h.focused(lead); got != second {
		t.Errorf("after split-window without -d the focus is on %d, want the new pane %d", got, second)
	}
	run(t, r, []step{{[]string{"select-pane", "-t", "%1", "-T", "alpha"}, "", 0}})
	if got := h.focused(lead); got != second {
		t.Errorf("select-pane -T moved the focus to %d", got)
	}
	run(t, r, []step{{[]string{"select-pane", "-t", "%0"}, "", 0}})
	if got := h.focused(lead); got != lead {
		t.Errorf("after select-pane -t %%0 the focus is on %d, want the lead %d", got, lead)
	}
	run(t, r, []step{{[]string{"select-pane", "-t", "%2", "-P", "bg=red"}, "", 0}})
	if got := h.focused(lead); got != lead {
		t.Errorf("select-pane -P moved the focus to %d", got)
	}
}

// TestInherited: a teammate's pane (tmux split or the pane backend's
// spawn_agent) gets the lead's variables but Paneflow's per-pane and
// per-launch ones, and keeps the http hooks' secret.
func TestInherited(t *testing.T) {
	for k, want := range map[string]bool{
		"PATH": true, "ANTHROPIC_API_KEY": true, EnvHookToken: true,
		"PANEFLOW_SURFACE_ID": false, "PANEFLOW_AI_PID": false, "PANEFLOW_AI_TOOL": false, "": false,
	} {
		if got := inherited(k); got != want {
			t.Errorf("inherited(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestShellScript: the teammate's flags are read from a respawn's one
// argument and from the `/bin/sh -c SCRIPT` Claude Code 2.1.332 sends
// when the lead's --settings hold http hooks; other argv forms are no
// shell script.
func TestShellScript(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{respawnCmd}, respawnCmd, true},
		{[]string{"/bin/sh", "-c", respawnCmd}, respawnCmd, true},
		{[]string{"bash", "-c", "x"}, "x", true},
		{[]string{"/usr/bin/python3", "-c", "x"}, "", false},
		{[]string{"claude", "--agent-name", "alpha"}, "", false},
		{nil, "", false},
	} {
		if got, ok := shellScript(tc.args); got != tc.want || ok != tc.ok {
			t.Errorf("shellScript(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
	if name, team, _, _ := agentFlags(respawnCmd); name == "" || team == "" {
		t.Fatalf("agentFlags(respawnCmd) = %q, %q", name, team)
	}
}
