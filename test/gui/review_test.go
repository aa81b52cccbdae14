//go:build linux

package gui

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReviewInDiffView drives the review loop of issue 32 in a window
// attached to a server, with the mouse and keyboard: in the Diff view a
// click and a Shift+click select two added lines, Ctrl+Enter makes the
// comment (the server keeps it on lines 3–4), "Send to agent" types it
// into the hooked agent working in the worktree and the window confirms
// its turn start; "Land…" then Enter merges the branch into main, and
// the teardown offer is declined with Escape (the worktree stays).
func TestReviewInDiffView(t *testing.T) {
	x := display(t)
	ident := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	a := startApp(t, x, ident...) // the server's git commits the merge
	first := a.ls().Surfaces[0].ID
	a.waitOutput(strconv.FormatUint(first, 10), promptRe)
	wt := cockpitRepo(t)
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1")
	mustTool(t, env, "git", "-C", wt, "commit", "-qam", "agent: Added")
	a.rpc(nil, "workspace.create", map[string]any{"name": "feature", "cwd": wt})
	var pane uint64
	for _, s := range a.ls().Surfaces {
		if s.ID != first {
			pane = s.ID
		}
	}
	target := strconv.FormatUint(pane, 10)
	a.waitOutput(target, promptRe)
	// The agent: the pane's shell reads its input with bracketed paste on
	// and reports hooks under its own pid.
	a.rpc(nil, "surface.send_text", map[string]any{"surface_id": pane, "text": `printf '\033[?2004h'; echo PID=$$; cat` + "\n"})
	a.waitOutput(target, `PID=\d+`)
	pid, _ := strconv.Atoi(regexp.MustCompile(`PID=(\d+)`).FindStringSubmatch(a.readRaw(target))[1])
	a.rpc(nil, "ai.session_start", map[string]any{"surface_id": pane, "tool": "claude", "pid": pid})
	a.rpc(nil, "workspace.select", map[string]any{"index": 1})
	a.eventually("the worktree's pane focused", func() (bool, string) {
		c := a.current()
		return c.Index == 1 && c.focused() == pane, fmt.Sprintf("workspace %d, pane %d", c.Index, c.focused())
	})

	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	diff := a.openDiff(200)
	// The added lines are the green rows right of the file list: click
	// the first ("+" of line 2 is empty, so take the last two: 3 and 4).
	rows := greenRows(diff, image.Rect(g.W/4, 120, g.W, g.H))
	if len(rows) < 4 {
		t.Fatalf("want 4 green rows (app.go's 3 added lines, notes.md's 1), got %v", rows)
	}
	// rows[0..2] are app.go's lines 2–4 (line 2 is empty: its "+" only).
	a.click(g.W/3+60, rows[1])
	a.xdo("keydown", "shift")
	a.click(g.W/3+60, rows[2])
	a.xdo("keyup", "shift")
	a.screenshot("selected")
	a.xdo("type", "--delay", "30", "Name it AddedFunc")
	a.xdo("key", "ctrl+Return")
	var list struct {
		Comments []struct {
			ID        string `json:"id"`
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			EndLine   int    `json:"end_line"`
			Body      string `json:"body"`
			Sent      int    `json:"sent"`
		} `json:"comments"`
	}
	a.eventually("the comment kept by the server", func() (bool, string) {
		r := a.cli("review", "list", "--json", "--worktree", wt)
		if r.code != 0 {
			return false, r.String()
		}
		if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
			return false, r.String()
		}
		return len(list.Comments) == 1, r.stdout
	})
	if c := list.Comments[0]; c.Path != "app.go" || c.StartLine != 3 || c.EndLine != 4 || c.Body != "Name it AddedFunc" {
		t.Fatalf("comment = %+v, want app.go:3-4 'Name it AddedFunc'", c)
	}
	a.stable("commented", full)

	// "Send to agent" is the second button of the bar, right of the two
	// mode choices: find it by its text's row and click it.
	a.click(sendButtonX(g), barY)
	a.eventually("the prompt in the agent's pane", func() (bool, string) {
		text := a.readRaw(target)
		return strings.Contains(text, "Name it AddedFunc") && strings.Contains(text, "app.go"), text
	})
	a.rpc(nil, "ai.prompt_submit", map[string]any{"surface_id": pane, "tool": "claude", "pid": pid})
	a.eventually("the comment counted as sent", func() (bool, string) {
		r := a.cli("review", "list", "--json", "--worktree", wt)
		_ = json.Unmarshal([]byte(r.stdout), &list)
		return len(list.Comments) == 1 && list.Comments[0].Sent == 1, r.stdout
	})
	a.stable("sent", full)

	// Land: the dialog's Enter lands with the default (merge).
	repo := filepath.Join(filepath.Dir(wt), "repo")
	a.click(landButtonX(g), barY)
	a.stable("land-dialog", full)
	a.xdo("key", "Return")
	a.eventually("feat merged into main", func() (bool, string) {
		out := mustTool(t, env, "git", "-C", repo, "log", "--oneline", "main")
		return strings.Contains(out, "Merge branch 'feat' into main") && strings.Contains(out, "agent: Added"), out
	})
	a.stable("landed", full)
	a.xdo("key", "Escape") // keep the worktree
	a.stable("kept", full)
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("the worktree is gone though the teardown was declined: %v", err)
	}
}

// barY is the y of the Diff view's button bar in a window of the test's
// size (the popup's header row, then the bar).
const barY = 90

// sendButtonX and landButtonX are the x of the "Send to agent" and
// "Land…" buttons: right of the mode choices, as laid out at the test
// window's size and theme.
func sendButtonX(g geometry) int { return 345 }
func landButtonX(g geometry) int { return 800 }

// greenRows returns the y at the middle of each run of rows of r holding
// green text.
func greenRows(img image.Image, r image.Rectangle) []int {
	var out []int
	start := -1
	for y := r.Min.Y; y <= r.Max.Y; y++ {
		has := y < r.Max.Y && find(img, image.Rect(r.Min.X, y, r.Max.X, y+1), isGreen).N > 0
		switch {
		case has && start < 0:
			start = y
		case !has && start >= 0:
			out = append(out, (start+y)/2)
			start = -1
		}
	}
	return out
}
