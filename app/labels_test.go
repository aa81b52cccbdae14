//go:build !windows

package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// scrollOf finds the scroll whose content is content under o; nil when
// there is none.
func scrollOf(o fyne.CanvasObject, content fyne.CanvasObject) *container.Scroll {
	sc, _ := findObject(o, func(c fyne.CanvasObject) bool {
		sc, ok := c.(*container.Scroll)
		return ok && sc.Content == content
	}).(*container.Scroll)
	return sc
}

// showsAll reports whether sc is tall enough for all of its content.
func showsAll(t *testing.T, what string, sc *container.Scroll) {
	t.Helper()
	if sc == nil {
		t.Fatalf("%s: no scroll found", what)
	}
	if got, want := sc.Size().Height, sc.Content.MinSize().Height; got < want {
		t.Errorf("%s: %v high, its %v-high content hidden", what, got, want)
	}
}

// TestTemplateAgentsLabelledAndShown: the template view names the agents
// by their display names (it showed "claude_code" beside "Codex") and
// shows every one of them (its checklist showed one row).
func TestTemplateAgentsLabelledAndShown(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"claude", "codex", "opencode", "gemini"} {
		writeFile(t, filepath.Join(bin, name), "#!/bin/sh\nexec cat\n")
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		h.s.w.Resize(fyne.NewSize(1000, 700))
		h.s.runActionLocked(keymap.NewFromTemplate)
		tv := shownPanelAs[*templateView](h.s)
		want := []string{"Claude Code", "Codex", "OpenCode", "Gemini"}
		if got := tv.checks.Options; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("agents offered %q, want %q", got, want)
		}
		showsAll(t, "the agents checklist", scrollOf(h.s.w.Canvas().Overlays().Top(), tv.checks))
	})
}

// TestMCPViewShowsEveryAction: the MCP view's actions are all shown (one
// row showed, hiding the others), and its advice names them rather than
// a command to type.
func TestMCPViewShowsEveryAction(t *testing.T) {
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		h.s.w.Resize(fyne.NewSize(1000, 700))
		h.s.runActionLocked(keymap.OpenMCPInstall)
		sc := shownPanelAs[*mcpView](h.s).list.scroll
		if n := len(shownPanelAs[*mcpView](h.s).list.rows.Objects); n != len(mcpActions) {
			t.Fatalf("%d rows, want %d", n, len(mcpActions))
		}
		showsAll(t, "the MCP actions", sc)
	})
	var status string
	h.waitFor("the MCP status", func() bool {
		status = shownPanelAs[*mcpView](h.s).status.Text
		return !strings.HasPrefix(status, "reading")
	})
	// No bridge in this HOME: the advice names the view's own action, not
	// a command line.
	if !strings.Contains(status, "missing (") || strings.Contains(status, "run `paneflow") {
		t.Errorf("MCP status:\n%s\nwant the missing bridge's advice to name the Install action", status)
	}
}

// TestLaunchPadCountsSpecs: the launch pad counts its specs in English
// ("1 spec found", not "1 spec(s) found").
func TestLaunchPadCountsSpecs(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	writeFile(t, filepath.Join(libraryDir(t), "demo.workspace.toml"), "[[panes]]\ncommand = \"sh\"\n")
	lp := openPad(t, h)
	h.s.guard(func() {
		if got := lp.status.Text; got != "1 spec found" {
			t.Errorf("status %q, want %q", got, "1 spec found")
		}
	})
}

// TestQuickLaunchWithoutAgents: with no agent on PATH, quick launch says
// so and offers no Launch (it offered an empty list and an enabled
// Launch).
func TestQuickLaunchWithoutAgents(t *testing.T) {
	t.Setenv("PATH", t.TempDir()+":/usr/bin:/bin")
	if _, err := exec.LookPath("claude"); err == nil {
		t.Skip("an agent is installed in /usr/bin or /bin")
	}
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		h.s.runActionLocked(keymap.QuickLaunch)
		q := shownPanelAs[*quickLaunch](h.s)
		if len(q.agents) != 0 {
			t.Skipf("agents found on PATH: %v", q.agents)
		}
		if !q.launch.Disabled() {
			t.Error("Launch is enabled with no agent to launch")
		}
		if !strings.Contains(q.status.Text, "No coding agent found") {
			t.Errorf("status %q", q.status.Text)
		}
	})
}
