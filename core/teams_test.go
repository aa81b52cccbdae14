//go:build !windows

package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/shim"
	"github.com/paneflow-go/paneflow/teams"
)

// tmuxResult is teams.tmux's answer.
type tmuxResult struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"exit_code"`
}

// attachLead registers the first pane as a lead and returns its surface.
func attachLead(t *testing.T, c *Core, cl *ipc.Client) (uint64, teams.AttachInfo) {
	t.Helper()
	lead := c.Workspaces.Panes()[0].ID
	var a teams.AttachInfo
	if err := cl.Call(context.Background(), "teams.attach", map[string]any{"surface_id": lead, "env": []string{"LEAD_ONLY=yes", "PANEFLOW_AI_PID=1"}}, &a); err != nil {
		t.Fatal(err)
	}
	if a.Pane != "%0" || a.BackendSocket != BackendSocketPath(c.SocketPath) {
		t.Fatalf("attach = %+v", a)
	}
	return lead, a
}

func tmux(t *testing.T, cl *ipc.Client, argv ...string) tmuxResult {
	t.Helper()
	var r tmuxResult
	err := cl.Call(context.Background(), "teams.tmux", map[string]any{
		"argv": argv, "pane": "%0", "env": []string{"LEAD_ONLY=yes", "TERM=xterm-256color"},
	}, &r)
	if err != nil {
		t.Fatalf("tmux %q: %v", argv, err)
	}
	return r
}

// waitTmux repeats a tmux command until its output satisfies ok.
func waitTmux(t *testing.T, cl *ipc.Client, ok func(string) bool, argv ...string) string {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		r := tmux(t, cl, argv...)
		if ok(r.Stdout) {
			return r.Stdout
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmux %q still answers %q (%q)", argv, r.Stdout, r.Stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTeamsTmuxRealPanes runs Claude Code's spawn sequence against real
// panes: a `cat` placeholder respawned with sh -c on a fresh PTY with the
// lead's environment and its own TMUX_PANE; remain-on-exit failed keeps
// the failed teammate with its status; kill-pane closes the pane and is
// idempotent.
func TestTeamsTmuxRealPanes(t *testing.T) {
	c, cl := startCore(t, true)
	lead, _ := attachLead(t, c, cl)
	r := tmux(t, cl, "-S", c.SocketPath, "split-window", "-d", "-t", "%0", "-h", "-l", "70%", "-P", "-F", "#{pane_id}", "--", "cat")
	if r.Code != 0 || r.Stdout != "%1\n" {
		t.Fatalf("split = %+v", r)
	}
	for _, argv := range [][]string{
		{"select-pane", "-t", "%1", "-T", "helper"},
		{"set-option", "-p", "-t", "%1", "remain-on-exit", "failed"},
		{"respawn-pane", "-k", "-t", "%1", "--", `: --agent-name helper --team-name t1; echo "pane=$TMUX_PANE lead=$LEAD_ONLY ai=${PANEFLOW_AI_PID:-none}"; exit 3`},
	} {
		if r := tmux(t, cl, argv...); r.Code != 0 {
			t.Fatalf("tmux %q = %+v", argv, r)
		}
	}
	waitTmux(t, cl, func(s string) bool { return s == "1 3\n" }, "display-message", "-p", "-t", "%1", "#{pane_dead} #{pane_dead_status}")
	out := tmux(t, cl, "capture-pane", "-p", "-t", "%1").Stdout
	if !strings.Contains(out, "pane=%1 lead=yes ai=none") {
		t.Errorf("teammate screen:\n%s", out)
	}
	// Geometry from real cell sizes: the lead keeps 30 % of the width.
	geo := tmux(t, cl, "display-message", "-p", "-t", "%0", "#{pane_width}\t#{window_width}\t#{pane_left}\t#{pane_title}").Stdout
	var pw, ww, left int
	if _, err := fmt.Sscanf(geo, "%d\t%d\t%d\t", &pw, &ww, &left); err != nil || pw != 80 || ww < 250 || ww > 285 || left != 0 {
		t.Errorf("lead geometry = %q (%v)", geo, err)
	}
	if got := tmux(t, cl, "display-message", "-p", "-t", "%1", "#{pane_title}\t#{pane_left}").Stdout; !strings.HasPrefix(got, "helper\t") || got == "helper\t0\n" {
		t.Errorf("teammate title and left = %q", got)
	}
	// The pane carries the teammate's name.
	var names []string
	for _, s := range c.Workspaces.Surfaces() {
		names = append(names, s.CustomName)
	}
	if !slices.Contains(names, "helper") {
		t.Errorf("pane names = %q, want one named helper", names)
	}
	// surface.list (paneflow ls) shows the team and the teammate.
	var list struct {
		Surfaces []struct {
			ID       uint64 `json:"surface_id"`
			Team     string `json:"team"`
			Teammate string `json:"teammate"`
		} `json:"surfaces"`
	}
	if err := cl.Call(context.Background(), "surface.list", nil, &list); err != nil {
		t.Fatal(err)
	}
	var teamOf []string
	for _, s := range list.Surfaces {
		teamOf = append(teamOf, fmt.Sprintf("%v:%s/%s", s.ID == lead, s.Team, s.Teammate))
	}
	if !slices.Equal(teamOf, []string{"true:t1/", "false:t1/helper"}) {
		t.Errorf("surface.list teams = %q", teamOf)
	}
	for range 2 {
		if r := tmux(t, cl, "kill-pane", "-t", "%1"); r.Code != 0 {
			t.Fatalf("kill-pane = %+v", r)
		}
	}
	if got := tmux(t, cl, "list-panes", "-F", "#{pane_id}").Stdout; got != "%0\n" {
		t.Errorf("after kill-pane list-panes = %q", got)
	}
	if _, ok := c.Workspaces.Surface(lead); !ok {
		t.Error("the lead's pane was closed")
	}
	// A teammate that exits 0 closes.
	tmux(t, cl, "split-window", "-d", "-h", "-P", "-F", "#{pane_id}", "--", "cat")
	tmux(t, cl, "set-option", "-p", "-t", "%2", "remain-on-exit", "failed")
	tmux(t, cl, "respawn-pane", "-k", "-t", "%2", "--", "exit 0")
	waitTmux(t, cl, func(s string) bool { return s == "%0\n" }, "list-panes", "-F", "#{pane_id}")
}

// TestTeamsConcurrentSplits: 20 parallel split-window calls through the
// socket get 20 distinct ids and 20 real panes.
func TestTeamsConcurrentSplits(t *testing.T) {
	c, cl := startCore(t, true)
	attachLead(t, c, cl)
	ids := make([]string, 20)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			// The shim's own client: it waits while the server is busy
			// (16 connections at most).
			r, err := shim.CallTmux(context.Background(), c.SocketPath, map[string]any{
				"argv": []string{"split-window", "-d", "-t", "%0", "-v", "-P", "-F", "#{pane_id}", "--", "cat"}, "pane": "%0",
			})
			if err != nil || r.Code != 0 {
				t.Errorf("split %d: %v %+v", i, err, r)
			}
			ids[i] = strings.TrimSpace(r.Stdout)
		})
	}
	wg.Wait()
	slices.Sort(ids)
	if len(slices.Compact(slices.Clone(ids))) != 20 || slices.Contains(ids, "") || slices.Contains(ids, "%0") {
		t.Fatalf("ids = %q, want 20 distinct new ids", ids)
	}
	if n := len(c.Workspaces.Panes()); n != 21 {
		t.Fatalf("%d panes, want 21", n)
	}
}

// TestTeamsBackend drives the CustomPaneBackend socket with our Go client:
// initialize with the lead's session hint, spawn_agent with argv and
// metadata, write, capture, list, the pushed context_exited, kill.
func TestTeamsBackend(t *testing.T) {
	c, cl := startCore(t, true)
	_, a := attachLead(t, c, cl)
	ctx := context.Background()
	bc, self, err := teams.DialBackend(ctx, a.BackendSocket, a.ContextID, "output")
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	if self != "ctx_0" {
		t.Fatalf("self_context_id = %q, want ctx_0", self)
	}
	var sp struct {
		ContextID string `json:"context_id"`
	}
	err = bc.Call(ctx, "spawn_agent", map[string]any{
		"command":  []string{"/bin/sh", "-c", `echo "ready $LEAD_ONLY $ROLE_ENV"; read x; echo "got $x"; exit 4`},
		"env":      map[string]string{"ROLE_ENV": "tester"},
		"metadata": map[string]any{"name": "alpha", "color": "green", "role": "teammate"},
	}, &sp)
	if err != nil || sp.ContextID != "ctx_1" {
		t.Fatalf("spawn_agent = %+v, %v", sp, err)
	}
	capture := func() string {
		var res struct{ Text string }
		if err := bc.Call(ctx, "capture", map[string]any{"context_id": sp.ContextID, "lines": 50}, &res); err != nil {
			t.Fatalf("capture: %v", err)
		}
		return res.Text
	}
	deadline := time.Now().Add(testDeadline)
	for !strings.Contains(capture(), "ready yes tester") {
		if time.Now().After(deadline) {
			t.Fatalf("the agent never printed ready:\n%s", capture())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var list struct{ Contexts []string }
	if err := bc.Call(ctx, "list", map[string]any{}, &list); err != nil || !slices.Equal(list.Contexts, []string{"ctx_0", "ctx_1"}) {
		t.Fatalf("list = %v, %v", list, err)
	}
	if err := bc.Call(ctx, "write", map[string]any{"context_id": sp.ContextID, "data": base64.StdEncoding.EncodeToString([]byte("hello\n"))}, nil); err != nil {
		t.Fatal(err)
	}
	// context_output streams the agent's raw output; context_exited
	// follows with its code.
	var output strings.Builder
	for exited := false; !exited; {
		select {
		case n := <-bc.Notifications():
			var p struct {
				ContextID string `json:"context_id"`
				ExitCode  int    `json:"exit_code"`
				Data      []byte `json:"data"`
			}
			json.Unmarshal(n.Params, &p)
			switch {
			case n.Method == "context_output" && p.ContextID == "ctx_1":
				output.Write(p.Data)
			case n.Method == "context_exited" && p.ContextID == "ctx_1" && p.ExitCode == 4:
				exited = true
			default:
				t.Fatalf("notification = %s %s", n.Method, n.Params)
			}
		case <-time.After(testDeadline):
			t.Fatalf("no context_exited; output so far %q", output.String())
		}
	}
	if !strings.Contains(output.String(), "got hello") {
		t.Errorf("context_output = %q, want the agent's answer in it", output.String())
	}
	if !strings.Contains(capture(), "got hello") {
		t.Errorf("after write:\n%s", capture())
	}
	var names []string
	for _, s := range c.Workspaces.Surfaces() {
		names = append(names, s.CustomName)
	}
	if !slices.Contains(names, "alpha") {
		t.Errorf("pane names = %q, want alpha (it failed, so it stays)", names)
	}
	for _, id := range []string{"ctx_1", "ctx_1", "ctx_99"} {
		if err := bc.Call(ctx, "kill", map[string]any{"context_id": id}, nil); err != nil {
			t.Errorf("kill %s: %v", id, err)
		}
	}
	if err := bc.Call(ctx, "kill", map[string]any{"context_id": "ctx_0"}, nil); err == nil {
		t.Error("killing the lead's own context succeeded")
	}
	for _, bad := range []map[string]any{{"command": []string{}}, {"command": "sh -c x"}} {
		var be *teams.BackendError
		if err := bc.Call(ctx, "spawn_agent", bad, nil); !errorsAs(err, &be) || be.Code != -32602 {
			t.Errorf("spawn_agent %v = %v, want -32602", bad, err)
		}
	}
	if err := bc.Call(ctx, "nope", nil, nil); err == nil || !strings.Contains(err.Error(), "-32601") {
		t.Errorf("unknown method = %v", err)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestTeamsStartAfterSocket proves the teams subsystem binds its backend
// socket only once the main socket is this server's: it starts after
// "ipc", and a second core on the same path fails without replacing the
// first one's live backend socket (its lead context is still there).
func TestTeamsStartAfterSocket(t *testing.T) {
	c, cl := startCore(t, true)
	started := c.group.Started()
	ipcAt, teamsAt := slices.Index(started, "ipc"), slices.Index(started, "teams")
	if ipcAt < 0 || teamsAt < ipcAt {
		t.Fatalf("started = %q, want teams after ipc", started)
	}
	_, a := attachLead(t, c, cl)
	second, err := New(Options{
		SocketPath: c.SocketPath, Cols: 80, Rows: 24,
		Getenv: func(string) string { return "" }, NoInitialWorkspace: true, Logf: t.Logf,
	})
	if err == nil {
		second.Shutdown(context.Background())
		t.Fatal("a second core on a live socket started")
	}
	ctx := context.Background()
	bc, self, err := teams.DialBackend(ctx, a.BackendSocket, a.ContextID)
	if err != nil {
		t.Fatalf("the first core's backend socket is gone: %v", err)
	}
	defer bc.Close()
	var list struct{ Contexts []string }
	if err := bc.Call(ctx, "list", map[string]any{}, &list); err != nil || self != "ctx_0" || !slices.Equal(list.Contexts, []string{"ctx_0"}) {
		t.Fatalf("backend after a second core: self %q, list %v, %v; want the first core's ctx_0", self, list, err)
	}
}

// TestTeamsNameFromConfig: surface.list names a team as Claude Code's
// config.json in the lead's HOME does (team_name), beside the team id
// from the teammate's command line.
func TestTeamsNameFromConfig(t *testing.T) {
	c, cl := startCore(t, true)
	home := t.TempDir()
	cfg := filepath.Join(home, ".claude", "teams", "t1", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"name":"Release crew","members":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	lead := c.Workspaces.Panes()[0].ID
	if err := cl.Call(context.Background(), "teams.attach", map[string]any{"surface_id": lead, "env": []string{"HOME=" + home}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"split-window", "-d", "-t", "%0", "-h", "-P", "-F", "#{pane_id}", "--", "cat"},
		{"respawn-pane", "-k", "-t", "%1", "--", ": --agent-name helper --team-name t1; exec sleep 600"},
	} {
		if r := tmux(t, cl, argv...); r.Code != 0 {
			t.Fatalf("tmux %q = %+v", argv, r)
		}
	}
	var list struct {
		Surfaces []struct {
			ID       uint64 `json:"surface_id"`
			Team     string `json:"team"`
			TeamName string `json:"team_name"`
			Teammate string `json:"teammate"`
		} `json:"surfaces"`
	}
	if err := cl.Call(context.Background(), "surface.list", nil, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list.Surfaces {
		got = append(got, fmt.Sprintf("%v:%s:%s:%s", s.ID == lead, s.Team, s.TeamName, s.Teammate))
	}
	if !slices.Equal(got, []string{"true:t1:Release crew:", "false:t1:Release crew:helper"}) {
		t.Errorf("surface.list teams = %q", got)
	}
}

// TestTeamsSplitFocus: on real panes, split-window without -d focuses the
// new pane in the lead's workspace, as tmux makes it the window's active
// pane, without switching away from the workspace the user is in; with -d
// the focus stays on the lead.
func TestTeamsSplitFocus(t *testing.T) {
	c, cl := startCore(t, true)
	lead, _ := attachLead(t, c, cl)
	ws, ok := c.Workspaces.WorkspaceOf(lead)
	if !ok {
		t.Fatal("the lead has no workspace")
	}
	focused := func() uint64 {
		id, _ := c.Workspaces.FocusedSurface(ws)
		return id
	}
	if r := tmux(t, cl, "split-window", "-d", "-t", "%0", "-h", "-P", "-F", "#{pane_id}", "--", "cat"); r.Code != 0 || r.Stdout != "%1\n" {
		t.Fatalf("split -d = %+v", r)
	}
	if got := focused(); got != lead {
		t.Errorf("after split-window -d the focus is on %d, want the lead %d", got, lead)
	}
	// The user is in another workspace meanwhile.
	if _, err := c.Workspaces.CreateWorkspace("other", "", nil, true); err != nil {
		t.Fatal(err)
	}
	if r := tmux(t, cl, "split-window", "-t", "%1", "-v", "-P", "-F", "#{pane_id}", "--", "cat"); r.Code != 0 || r.Stdout != "%2\n" {
		t.Fatalf("split = %+v", r)
	}
	var mate uint64
	for _, s := range c.Workspaces.Surfaces() {
		if s.ID != lead && s.CustomName == "" && s.Workspace == 0 && s.ID > mate {
			mate = s.ID
		}
	}
	if got := focused(); got == lead || got != mate {
		t.Errorf("after split-window without -d the focus is on %d, want the new pane %d", got, mate)
	}
	if a, _ := c.Workspaces.ActiveWorkspace(); a.Title != "other" {
		t.Errorf("the split switched the active workspace to %q", a.Title)
	}
}
