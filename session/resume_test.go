//go:build !windows

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

func TestResume(t *testing.T) {
	const id = "0f4c6d1e-77aa-4e2b-9a51-3c2d7e9b8a10"
	tests := []struct {
		name          string
		p             Pane
		command       string
		wantCommand   string
		wantTyped     string
		wantNoticeHas string
	}{
		{name: "no agent", command: "make run", wantCommand: "make run"},
		{name: "claude in a shell", p: Pane{Agent: "claude", AgentSession: id},
			wantTyped: "claude --resume " + id + "\r", wantNoticeHas: "resuming Claude Code in its conversation " + id},
		{name: "codex in a shell", p: Pane{Agent: "codex", AgentSession: id}, wantTyped: "codex resume " + id + "\r", wantNoticeHas: "resuming Codex"},
		{name: "gemini in a shell", p: Pane{Agent: "gemini", AgentSession: id}, wantTyped: "gemini --resume " + id + "\r", wantNoticeHas: "resuming Gemini"},
		{name: "opencode in a shell", p: Pane{Agent: "opencode", AgentSession: "ses_4a1b2c3dXyZ"},
			wantTyped: "opencode --session ses_4a1b2c3dXyZ\r", wantNoticeHas: "resuming OpenCode"},
		{name: "the pane's command was the agent: its flags and prompt are dropped",
			p: Pane{Agent: "claude", AgentSession: id}, command: "/opt/bin/claude --model x 'fix the bug'",
			wantCommand: "/opt/bin/claude --resume " + id, wantNoticeHas: "resuming Claude Code"},
		{name: "codex command", p: Pane{Agent: "codex", AgentSession: id}, command: "codex",
			wantCommand: "codex resume " + id, wantNoticeHas: "resuming Codex"},
		{name: "no session id", p: Pane{Agent: "claude"}, command: "claude",
			wantCommand: "claude", wantNoticeHas: "Claude Code was running here and is not resumable: it reported no usable session id"},
		{name: "an id that is no id", p: Pane{Agent: "codex", AgentSession: "x; rm -rf ~"},
			wantNoticeHas: "Codex was running here and is not resumable"},
		{name: "an id like a flag", p: Pane{Agent: "codex", AgentSession: "--last"}, wantNoticeHas: "not resumable"},
		{name: "an agent Paneflow cannot resume", p: Pane{Agent: "amp", AgentSession: id},
			wantNoticeHas: "Amp was running here and is not resumable: Paneflow does not know how to resume it"},
		{name: "started inside another program", p: Pane{Agent: "claude", AgentSession: id}, command: "make agent",
			wantCommand: "make agent", wantNoticeHas: "not resumable: it was started inside `make agent`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, typed, notice := Resume(tt.p, tt.command)
			if cmd != tt.wantCommand || typed != tt.wantTyped {
				t.Errorf("Resume = command %q, typed %q; want %q, %q", cmd, typed, tt.wantCommand, tt.wantTyped)
			}
			if tt.wantNoticeHas == "" && notice != "" || !strings.Contains(notice, tt.wantNoticeHas) {
				t.Errorf("notice = %q, want it to contain %q", notice, tt.wantNoticeHas)
			}
			if notice != "" && !strings.HasSuffix(notice, "\r\n") {
				t.Errorf("notice %q does not end its line", notice)
			}
		})
	}
	for _, tool := range []string{"claude", "codex", "gemini", "opencode"} {
		if !Resumable(tool) {
			t.Errorf("Resumable(%q) = false", tool)
		}
	}
	if Resumable("amp") {
		t.Error("Resumable(amp) = true")
	}
}

// TestRestoreResumesAndAdopts restores a session whose panes ran agents
// and one in a worktree: each pane's env comes back, a shell pane gets
// the resume line typed, a command pane runs the resume command, a pane
// whose agent cannot be resumed says so on its screen, and Restored is
// told of each pane with something saved.
func TestRestoreResumesAndAdopts(t *testing.T) {
	dir := realDir(t)
	// A stand-in "claude" on PATH that prints its arguments.
	bin := filepath.Join(dir, "bin")
	writeScript(t, filepath.Join(bin, "claude"), "#!/bin/sh\necho \"fake-claude args: $*\"\nexec sleep 600\n")
	env := map[string]string{"PORT": "3107"}
	wt := &proto.ManagedWorktree{Path: dir, RepoRoot: dir, Branch: "feature", Teardown: "auto"}
	s := Session{Version: Version, Workspaces: []Workspace{{
		Title: "agents", Cwd: dir,
		Layout: workspace.LayoutNode{Type: workspace.NodeSplit, Direction: "vertical", Children: []workspace.LayoutNode{
			{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{Env: env}}},
			{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{Command: filepath.Join(bin, "claude") + " --model m"}}},
			{Type: workspace.NodePane, Surfaces: []workspace.SurfaceDefinition{{Command: "echo plain; exec sleep 600"}}},
		}},
		Panes: []Pane{
			{Agent: "claude", AgentSession: "sess-1"},
			{Agent: "claude", AgentSession: "sess-2", Worktree: wt},
			{Agent: "pi", AgentSession: "sess-3"},
		},
	}}}
	m := newManager(t, workspace.Options{Env: []string{"PATH=" + bin + ":/usr/bin:/bin"}})
	var told []Pane
	warns, err := RestoreWith(m, s, RestoreOptions{Resume: true, Restored: func(_ *workspace.Surface, p Pane) { told = append(told, p) }})
	if err != nil || len(warns) != 0 {
		t.Fatalf("RestoreWith = %q, %v", warns, err)
	}
	ss := surfacesOf(t, m, 0)
	if len(ss) != 3 {
		t.Fatalf("%d panes restored, want 3", len(ss))
	}
	waitText(t, ss[0], "resuming Claude Code in its conversation sess-1")
	waitText(t, ss[0], "fake-claude args: --resume sess-1") // typed into the shell
	ss[0].Terminal().SendInput([]byte("\x03"))              // back to the shell
	ss[0].Terminal().SendInput([]byte("echo \"port=$PORT\"\r"))
	waitText(t, ss[0], "port=3107")
	waitText(t, ss[1], "fake-claude args: --resume sess-2")
	waitText(t, ss[2], "Pi was running here and is not resumable")
	waitText(t, ss[2], "plain")
	if diff := cmp.Diff(s.Workspaces[0].Panes, told); diff != "" {
		t.Errorf("Restored was told (-want +got):\n%s", diff)
	}
	// Capture keeps the env; without paneOf it keeps no Panes.
	got := Capture(m)
	if e := got.Workspaces[0].Layout.Children[0].Surfaces[0].Env; !cmp.Equal(e, env) || got.Workspaces[0].Panes != nil {
		t.Errorf("Capture: env %v, panes %v; want %v and none", e, got.Workspaces[0].Panes, env)
	}
	withPanes := CaptureWith(m, func(id uint64) Pane {
		if id == ss[1].ID() {
			return Pane{Agent: "codex", AgentSession: "x"}
		}
		return Pane{}
	})
	if diff := cmp.Diff([]Pane{{}, {Agent: "codex", AgentSession: "x"}, {}}, withPanes.Workspaces[0].Panes); diff != "" {
		t.Errorf("CaptureWith panes (-want +got):\n%s", diff)
	}
}

// writeScript writes an executable script at path, creating its directory.
func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
}
