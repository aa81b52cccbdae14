//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cockpitRepo makes a git repository with a linked worktree on branch
// feat that adds a line and an untracked file; it returns the worktree.
func cockpitRepo(t *testing.T) string {
	t.Helper()
	root := tempDir(t)
	repo, wt := filepath.Join(root, "repo"), filepath.Join(root, "repo.wt")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
	git := func(dir string, args ...string) { mustTool(t, env, "git", append([]string{"-C", dir}, args...)...) }
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q", "-b", "main")
	write(filepath.Join(repo, "app.go"), "package app\n")
	git(repo, "add", "app.go")
	git(repo, "commit", "-q", "-m", "first")
	git(repo, "worktree", "add", "-q", "-b", "feat", wt)
	write(filepath.Join(wt, "app.go"), "package app\n\n// Added by the agent.\nfunc Added() {}\n")
	write(filepath.Join(wt, "notes.md"), "a new file\n")
	return wt
}

// TestCockpit drives the agent cockpit with the keyboard: the command
// palette opens the agents overview, Enter there jumps to the waiting
// agent's pane in another workspace, and the Diff view shows that
// pane's worktree in colour.
func TestCockpit(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	first := a.ls().Surfaces[0].ID
	a.waitOutput(strconv.FormatUint(first, 10), promptRe)
	wt := cockpitRepo(t)
	var created struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	a.rpc(&created, "workspace.create", map[string]any{"name": "feature", "cwd": wt})
	var waiting uint64
	for _, s := range a.ls().Surfaces {
		if s.ID != first {
			waiting = s.ID
		}
	}
	if waiting == 0 {
		t.Fatalf("no pane in the new workspace: %+v", a.ls())
	}
	a.waitOutput(strconv.FormatUint(waiting, 10), promptRe)
	a.rpc(nil, "workspace.select", map[string]any{"index": 0})
	a.rpc(nil, "ai.session_start", map[string]any{"surface_id": waiting, "tool": "claude"})
	a.rpc(nil, "ai.notification", map[string]any{"surface_id": waiting, "tool": "claude", "message": "Run the migration?"})
	a.rpc(nil, "ai.session_start", map[string]any{"surface_id": first, "tool": "codex"})
	a.rpc(nil, "ai.prompt_submit", map[string]any{"surface_id": first, "tool": "codex"})
	a.eventually("the attention count in the title", func() (bool, string) {
		name := a.xdo("getwindowname", a.win)
		return strings.Contains(name, "1 waiting"), name
	})
	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	centre := image.Rect(g.W/4, g.H/4, g.W*3/4, g.H*3/4)
	before := a.stable("before", full)

	a.xdo("windowfocus", "--sync", a.win)
	a.xdo("key", "ctrl+shift+p")
	a.waitChange("the palette on screen", "palette", before, centre, 5000)
	a.xdo("type", "--delay", "40", "agents overview")
	a.screenshot("palette-agents")
	a.xdo("key", "Return")
	// The overview stands in the split area's place, its rows from the
	// top: the waiting row's amber text is right of the sidebar (whose
	// own amber is left of g.W/4).
	right := image.Rect(g.W/4, 0, g.W, g.H)
	a.eventually("the agents overview on screen", func() (bool, string) {
		img := a.screenshot("overview")
		// The waiting row's amber text.
		amber := find(img, right, func(c rgb) bool { return c.R > 180 && c.G > 100 && c.B < 90 && int(c.R)-int(c.B) > 100 })
		return amber.N > 50, fmt.Sprintf("%d amber pixels", amber.N)
	})
	// The waiting agent is listed first: Enter jumps to it.
	a.xdo("key", "Return")
	a.eventually("the jump to the waiting pane", func() (bool, string) {
		c := a.current()
		return c.Index == 1 && c.focused() == waiting, fmt.Sprintf("workspace %d, focused pane %d (want 1, %d)", c.Index, c.focused(), waiting)
	})
	jumped := a.stable("jumped", full)
	greenBefore := find(jumped, full, isGreen).N

	// The Diff view of the worktree the pane is in.
	a.xdo("key", "ctrl+shift+g")
	a.eventually("the coloured diff on screen", func() (bool, string) {
		img := a.screenshot("diff")
		green := find(img, full, isGreen)
		return green.N > greenBefore+200, fmt.Sprintf("%d green pixels (%d before)", green.N, greenBefore)
	})
	a.xdo("key", "Escape")
	a.eventually("the Diff view closed", func() (bool, string) {
		green := find(a.screenshot("closed"), full, isGreen)
		return green.N <= greenBefore+20, fmt.Sprintf("%d green pixels (%d before the Diff view)", green.N, greenBefore)
	})
}
