//go:build !windows

package core

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/workspace"
	"github.com/paneflow-go/paneflow/worktree"
)

// waitPaneText waits until pane s shows want.
func waitPaneText(t *testing.T, s *workspace.Surface, want string) {
	t.Helper()
	emu := s.Terminal().Emulator()
	deadline := time.After(testDeadline)
	for {
		_, ch := emu.Watch()
		w, _ := emu.ReadText(2000, 0)
		if strings.Contains(w.Text, want) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("pane %d never showed %q; it shows:\n%s", s.ID(), want, w.Text)
		}
	}
}

// waitFile waits until the file at path holds all of want.
func waitFile(t *testing.T, path string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		b, _ := os.ReadFile(path)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(string(b), w)
		}
		if ok {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q; it holds:\n%s", path, want, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSessionKeptAcrossRestart: the server saves its session as it
// changes (names, layout, each pane's cwd, command and env, the managed
// worktree a pane owns, the agent and its session id from the agent's
// frames) and a new server on the same file restores it: the env is
// back, the worktree is owned again (the orphan pruning of the restart
// spares it, closing the pane tears it down) and the agent's record is
// kept for the next save.
func TestSessionKeptAcrossRestart(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	var plans []worktree.Plan
	for _, b := range []string{"restored", "orphan"} {
		p, err := worktree.PlanFor(ctx, root, b)
		if err != nil {
			t.Fatal(err)
		}
		if err := worktree.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	wt, orphan := plans[0], plans[1]
	dir := t.TempDir()
	regPath := filepath.Join(dir, "worktrees.json")
	path := filepath.Join(dir, "state", "session.json")
	sock := ipctest.NewPath(t)
	configure := func(o *Options) {
		o.SocketPath, o.SessionPath, o.WorktreeRegistry, o.NoInitialWorkspace = sock, path, regPath, true
	}

	c, cl, stop := startCoreStop(t, configure)
	var up proto.WorkspaceUpResult
	err := cl.Call(ctx, "workspace.up", map[string]any{"name": "dev", "layout": "even_v", "panes": []any{
		map[string]any{"name": "server", "command": `echo "serving on $PORT"; exec sleep 600`, "env": map[string]string{"PORT": "4123"}},
		map[string]any{"name": "agent", "cwd": wt.Path, "managed_worktree": map[string]any{"path": wt.Path, "repo_root": wt.RepoRoot, "branch": wt.Branch, "action": "create"}},
	}}, &up)
	if err != nil {
		t.Fatal(err)
	}
	if len(up.SurfaceIDs) != 2 {
		t.Fatalf("workspace.up made %d panes", len(up.SurfaceIDs))
	}
	agent := up.SurfaceIDs[1]
	// The agent's hook frames, as paneflow-ai-hook sends them.
	frame := fmt.Sprintf(`{"surface_id":%d,"tool":"claude","pid":%d,"session_id":"0f4c6d1e-77aa-4e2b-9a51-3c2d7e9b8a10"}`, agent, os.Getpid())
	if err := cl.Call(ctx, "ai.session_start", json.RawMessage(frame), nil); err != nil {
		t.Fatal(err)
	}
	waitFile(t, path, `"PORT": "4123"`, `"agent_session": "0f4c6d1e-77aa-4e2b-9a51-3c2d7e9b8a10"`, `"branch": "`+wt.Branch+`"`, `"custom_name": "server"`)
	stop() // a clean stop: the last save runs before the panes close
	if _, err := os.Stat(wt.Path); err != nil {
		t.Fatalf("stopping removed the worktree: %v", err)
	}
	if err := worktree.OpenRegistry(regPath).Add(worktree.Record{Path: orphan.Path, RepoRoot: orphan.RepoRoot, Branch: orphan.Branch, Teardown: "auto"}); err != nil {
		t.Fatal(err)
	}

	logs := make(chan string, 100)
	c, cl, _ = startCoreStop(t, func(o *Options) { configure(o); o.Logf = logTo(t, logs) })
	ws := c.Workspaces.Workspaces()
	if len(ws) != 1 || ws[0].Title != "dev" || ws[0].Panes != 2 {
		t.Fatalf("restored workspaces = %+v, want dev with 2 panes", ws)
	}
	var restored []*workspace.Surface
	for _, p := range c.Workspaces.Panes() {
		s, _ := c.Workspaces.Surface(p.ID)
		restored = append(restored, s)
	}
	waitPaneText(t, restored[0], "serving on 4123")
	// The agent pane said what it resumes and its shell got the resume
	// line (claude is not installed here).
	waitPaneText(t, restored[1], "resuming Claude Code in its conversation")
	waitPaneText(t, restored[1], "claude --resume 0f4c6d1e-77aa-4e2b-9a51-3c2d7e9b8a10")
	if w, ok := c.session.worktrees.worktreeOf(restored[1].ID()); !ok || w.Path != wt.Path {
		t.Errorf("restored agent pane owns worktree %+v, %v; want %s", w, ok, wt.Path)
	}
	// The orphan is pruned; the restored pane's worktree is not.
	for l := range logs {
		if l == "paneflow: orphan worktree "+orphan.Path+": removed" {
			break
		}
	}
	if _, err := os.Stat(wt.Path); err != nil {
		t.Fatalf("the restart pruned the restored pane's worktree: %v", err)
	}
	// The agent's record is kept until it reports again.
	if p := c.session.paneOf(restored[1].ID()); p.Agent != "claude" || p.AgentSession != "0f4c6d1e-77aa-4e2b-9a51-3c2d7e9b8a10" || p.Worktree == nil {
		t.Errorf("restored pane's record = %+v", p)
	}
	// Closing the pane tears its worktree down: it is ours again.
	if err := cl.Call(ctx, "surface.close", map[string]any{"surface_id": restored[1].ID()}, nil); err != nil {
		t.Fatal(err)
	}
	for l := range logs {
		if l == "paneflow: worktree "+wt.Path+": removed" {
			break
		}
	}
}

// TestSessionCorruptFile: a truncated session file is reported with where
// it went, kept aside, and the server starts with its first workspace and
// saves a good file again.
func TestSessionCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.json")
	good := session.Session{Version: session.Version, Workspaces: []session.Workspace{{Title: "x"}}}
	if err := session.Save(path, good); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	truncated := b[:len(b)/2]
	if err := os.WriteFile(path, truncated, 0o600); err != nil {
		t.Fatal(err)
	}
	logs := make(chan string, 100)
	c, _ := startCoreWith(t, func(o *Options) { o.SessionPath, o.Logf = path, logTo(t, logs) })
	if ws := c.Workspaces.Workspaces(); len(ws) != 1 || ws[0].Title != "Terminal" {
		t.Errorf("workspaces = %+v, want the first Terminal", ws)
	}
	var msg string
	for l := range logs {
		if strings.Contains(l, "was corrupt") {
			msg = l
			break
		}
	}
	i := strings.Index(msg, "moved it to ")
	if i < 0 || !strings.Contains(msg, "starting without it") {
		t.Fatalf("log %q does not say where the file went", msg)
	}
	aside := strings.TrimSuffix(msg[i+len("moved it to "):], "; starting without it")
	if kept, err := os.ReadFile(aside); err != nil || string(kept) != string(truncated) {
		t.Errorf("kept aside %q: %q, %v; want the truncated file", aside, kept, err)
	}
	waitFile(t, path, `"title": "Terminal"`)
}
