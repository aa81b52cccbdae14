//go:build !windows

package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/proto"
)

// openDiffIn opens a workspace whose pane works in dir, then the Diff
// view on it, and waits for its first load and the comments' read.
func openDiffIn(h *harness, dir string) (*diffView, uint64) {
	h.t.Helper()
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	if _, err := h.c.Workspaces.CreateWorkspace("wt", dir, nil, true); err != nil {
		h.t.Fatal(err)
	}
	var pane uint64
	h.waitFor("the pane in the worktree", func() bool { pane = h.s.pos.focus; return h.s.focusedCwdLocked() == dir })
	dv := openDiffNow(h)
	h.waitFor("the diff and its comments", func() bool { return dv.loads > 0 && dv.sendBtn.Text != "Send to agent" })
	return dv, pane
}

// rowOf is the first grid row whose text ends with suffix, -1 if none.
func rowOf(dv *diffView, suffix string) int {
	for i := range dv.grid.Rows {
		if strings.HasSuffix(strings.TrimRight(dv.grid.RowText(i), " "), suffix) {
			return i
		}
	}
	return -1
}

// tapRow taps grid row row (with Shift when extend), as a click does.
func tapRow(h *harness, dv *diffView, row int, extend bool) {
	h.t.Helper()
	if row < 0 {
		h.t.Fatal("no such row")
	}
	var pos fyne.Position
	h.s.guard(func() {
		pos = dv.grid.PositionForCursorLocation(row, 2).AddXY(1, 1)
		if extend {
			dv.grid.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Modifier: fyne.KeyModifierShift})
		}
	})
	dv.grid.Tapped(&fyne.PointEvent{Position: pos}) // as test.TapAt, without walking the canvas (see press)
}

// tapButton taps b once it is enabled.
func tapButton(h *harness, what string, b *widget.Button) {
	h.t.Helper()
	h.waitFor(what+" enabled", func() bool { return !b.Disabled() })
	press(h.t, h, b)
}

// TestDiffViewCommentAndSend (issue 32): in the Diff view a click and a
// Shift+click select lines 2–3 of a.txt, the comment made on them shows
// under line 3 and in the list; "Send to agent" types them into the
// agent working in the worktree as one prompt and confirms its turn
// start by its hook; a comment whose code is gone is marked outdated;
// Resolve removes it; side by side shows both sides with their numbers.
// Both backends: the window embedding the core and one attached to it.
func TestDiffViewCommentAndSend(t *testing.T) {
	for _, attach := range []bool{false, true} {
		name := "embedded"
		if attach {
			name = "attached"
		}
		t.Run(name, func(t *testing.T) {
			h := startHarness(t, nil, attach)
			wt := gitRepo(t)
			dv, pane := openDiffIn(h, wt)
			// Select "+two" (line 2), extend to "+three uncommitted" (line 3).
			var two, three int
			h.s.guard(func() { two, three = rowOf(dv, "+two"), rowOf(dv, "+three uncommitted") })
			tapRow(h, dv, two, false)
			tapRow(h, dv, three, true)
			h.s.guard(func() {
				if dv.selPath != "a.txt" || dv.selStart != 2 || dv.selEnd != 3 || !dv.commentBox.Visible() {
					t.Fatalf("selection = %s %d–%d, editor shown %v", dv.selPath, dv.selStart, dv.selEnd, dv.commentBox.Visible())
				}
				if st, ok := dv.grid.Rows[two].Style.(*selectedStyle); !ok || st.BackgroundColor() != selectBG || st.TextColor() != diffAdd {
					t.Fatalf("the selected line's style = %#v", dv.grid.Rows[two].Style)
				}
			})
			typeInto(h, dv.commentText, "Spell three as a digit")
			press(t, h, &dv.commentAdd.Button)
			h.waitFor("the comment under line 3", func() bool {
				r := rowOf(dv, "+three uncommitted")
				return len(dv.comments) == 1 && r >= 0 && r+1 < len(dv.grid.Rows) &&
					strings.Contains(dv.grid.RowText(r+1), "» c1 a.txt:2–3: Spell three as a digit") && !dv.commentBox.Visible()
			})
			var list proto.ReviewListResult
			h.call(proto.MethodReviewList, proto.ReviewListParams{Worktree: wt}, &list)
			if len(list.Comments) != 1 || list.Comments[0].StartLine != 2 || list.Comments[0].EndLine != 3 || list.Comments[0].Body != "Spell three as a digit" {
				t.Fatalf("the server keeps %+v", list.Comments)
			}
			// The agent: a hooked claude in the worktree's pane, reading
			// its input with bracketed paste on. Its pid is the pane's
			// shell's: the conductor forgets a session whose process is gone.
			h.call("surface.send_text", map[string]any{"surface_id": pane, "text": `printf '\033[?2004h'; cat` + "\n"}, nil)
			sf, _ := h.c.Workspaces.Surface(pane)
			pid := sf.Terminal().Pid()
			if pid == 0 {
				t.Fatal("the pane's process is not known")
			}
			h.call(proto.MethodAISessionStart, map[string]any{"surface_id": pane, "tool": "claude", "pid": pid}, nil)
			tapButton(h, "Send to agent", &dv.sendBtn.Button)
			h.waitFor("the prompt in the agent's pane", func() bool {
				return strings.Contains(h.screen(pane), "Spell three as a digit") && strings.Contains(h.screen(pane), "a.txt")
			})
			h.call(proto.MethodAIPromptSubmit, map[string]any{"surface_id": pane, "tool": "claude", "pid": pid}, nil)
			h.waitFor("the turn start confirmed", func() bool {
				return strings.Contains(dv.status.Text, "Sent comments to pane") && strings.Contains(dv.status.Text, "the agent started its turn (hook_turn_started)")
			})
			h.waitFor("the comment counted as sent", func() bool { return len(dv.comments) == 1 && dv.comments[0].Sent == 1 })
			// A comment whose code goes away is outdated, listed at the top.
			h.call(proto.MethodReviewComment, proto.ReviewCommentParams{Worktree: wt, Path: "b.txt", StartLine: 1, Body: "Why new?"}, nil)
			if err := os.WriteFile(filepath.Join(wt, "b.txt"), []byte("rewritten\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			h.waitFor("the outdated comment", func() bool {
				return len(dv.comments) == 2 && dv.comments[1].Outdated && strings.Contains(dv.grid.RowText(0), "» c2 b.txt:1 (outdated: the code is gone): Why new?")
			})
			// Resolve c1 from the list.
			var resolve *widget.Button
			h.s.guard(func() {
				resolve = &dv.commentList.Objects[0].(*fyne.Container).Objects[2].(*passButton).Button
			})
			press(t, h, resolve)
			h.waitFor("c1 resolved", func() bool {
				return len(dv.comments) == 1 && dv.comments[0].ID == "c2" && rowOf(dv, "Spell three as a digit") < 0
			})
			// Side by side: the unchanged line 1 on both sides.
			dv.mode.SetSelected(diffSplit) // as a click: without the lock
			h.s.guard(func() {
				r := rowOf(dv, "1 one")
				if r < 0 || !strings.Contains(dv.grid.RowText(r), "│") || strings.Count(dv.grid.RowText(r), "one") != 2 {
					t.Fatalf("side by side lacks line 1 on both sides:\n%s", dv.grid.Text())
				}
			})
		})
	}
}

// landWorktree makes a repository on main and a worktree on feat with
// one commit changing a.txt (and, when conflict, main changing it too).
func landWorktree(t *testing.T, conflict bool) (repo, wt string) {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"} {
		t.Setenv(k, v)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo = gittest.Repo(t, filepath.Join(base, "repo"), map[string]string{"a.txt": "a\n"})
	wt = filepath.Join(base, "feat")
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "feat", wt)
	if err := os.WriteFile(filepath.Join(wt, "a.txt"), []byte("a by the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, wt, "commit", "-qam", "agent: change a")
	if conflict {
		if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a on main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, repo, "commit", "-qam", "main: change a")
	}
	return repo, wt
}

// TestDiffViewLand (issue 32): "Land…" offers merge, squash and rebase
// with the repository's configured default chosen; a clean squash lands
// and offers the teardown, which closes the worktree's pane, removes it
// and deletes the branch. A conflict lists the files, leaves main as it
// was; "Hand to agent" types the files into the worktree's agent and
// confirms its turn; "Open pane" goes to the worktree's pane. Without gh the pull
// request button is disabled and says why.
func TestDiffViewLand(t *testing.T) {
	t.Run("clean", func(t *testing.T) {
		h := newHarness(t, nil)
		t.Setenv("PATH", gitOnlyPath(t))
		repo, wt := landWorktree(t, false)
		if err := os.WriteFile(filepath.Join(wt, ".paneflow.toml"), []byte("[land]\nstrategy = \"squash\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dv, pane := openDiffIn(h, wt)
		h.waitFor("the pull request's reason", func() bool {
			return dv.prBtn.Disabled() && strings.Contains(dv.prWhy.Text, "gh, GitHub's CLI, is not installed")
		})
		tapButton(h, "Land", &dv.landBtn.Button)
		h.waitFor("the configured default chosen", func() bool { return dv.landWith != nil && dv.landWith.Selected == proto.LandSquash })
		// .paneflow.toml is untracked: the squash lands the commit only.
		var loads int
		h.s.guard(func() { loads = dv.loads })
		press(t, h, dv.answers["Land"])
		h.waitFor("the teardown offer", func() bool {
			return strings.Contains(dv.status.Text, "Landed feat into main with squash") && dv.answers["Tear down, delete the branch"] != nil
		})
		if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "a by the agent\n" {
			t.Fatalf("main's a.txt = %q", b)
		}
		// The view reads the diff again (against main as it is now).
		h.waitFor("the diff read again", func() bool { return dv.loads > loads })
		// The worktree holds an untracked file: the teardown keeps it and
		// says why; once gone, the worktree and the branch go.
		if err := os.Remove(filepath.Join(wt, ".paneflow.toml")); err != nil {
			t.Fatal(err)
		}
		press(t, h, dv.answers["Tear down, delete the branch"])
		h.waitFor("the teardown", func() bool {
			_, open := h.s.pos.snap.Open[pane]
			return !open && strings.Contains(dv.status.Text+h.s.chrome.banner.text.Text, "removed; 1 panes closed; branch feat deleted.")
		})
		if _, err := os.Stat(wt); !os.IsNotExist(err) {
			t.Errorf("the worktree is still there: %v", err)
		}
		if out := gittest.Git(t, repo, "branch", "--list", "feat"); out != "" {
			t.Errorf("feat is still there: %q", out)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		h := newAttachedHarness(t, nil)
		repo, wt := landWorktree(t, true)
		head := gittest.Git(t, repo, "rev-parse", "HEAD")
		dv, pane := openDiffIn(h, wt)
		tapButton(h, "Land", &dv.landBtn.Button)
		h.s.guard(func() { dv.landWith.SetSelected(proto.LandMerge) })
		press(t, h, dv.answers["Land"])
		h.waitFor("the conflict", func() bool {
			return strings.Contains(dv.status.Text, "feat did not land: conflicts in a.txt; main is unchanged.") && dv.answers["Open pane"] != nil
		})
		if got := gittest.Git(t, repo, "rev-parse", "HEAD"); got != head {
			t.Fatalf("main moved from %s to %s", head, got)
		}
		// "Hand to agent" types the conflicting files into the agent
		// working in the worktree (a hooked one reading with bracketed
		// paste on, its pid the pane's shell's) and confirms its turn.
		h.call("surface.send_text", map[string]any{"surface_id": pane, "text": `printf '\033[?2004h'; cat` + "\n"}, nil)
		sf, _ := h.c.Workspaces.Surface(pane)
		pid := sf.Terminal().Pid()
		h.call(proto.MethodAISessionStart, map[string]any{"surface_id": pane, "tool": "claude", "pid": pid}, nil)
		press(t, h, dv.answers["Hand to agent"])
		h.waitFor("the conflict in the agent's pane", func() bool {
			return strings.Contains(h.screen(pane), "stopped on conflicts") && strings.Contains(h.screen(pane), "- a.txt")
		})
		h.call(proto.MethodAIPromptSubmit, map[string]any{"surface_id": pane, "tool": "claude", "pid": pid}, nil)
		h.waitFor("the hand-over confirmed", func() bool {
			return strings.Contains(dv.status.Text, "Handed the conflicts in a.txt to the agent in pane") && strings.Contains(dv.status.Text, "started its turn")
		})
		if got := gittest.Git(t, repo, "rev-parse", "HEAD"); got != head {
			t.Fatalf("main moved from %s to %s", head, got)
		}
		// Elsewhere first, then "Open pane" goes back to the worktree's.
		h.s.guard(func() { closeShownPanelLocked[*diffView](h.s) })
		if _, err := h.c.Workspaces.CreateWorkspace("other", t.TempDir(), nil, true); err != nil {
			t.Fatal(err)
		}
		h.waitFor("another pane focused", func() bool { return h.s.pos.focus != pane && h.s.pos.focus != 0 })
		press(t, h, dv.answers["Open pane"])
		h.waitFor("the worktree's pane focused", func() bool { return h.s.pos.focus == pane && shownPanelAs[*diffView](h.s) == nil })
	})
}

// gitOnlyPath is a PATH holding git and sh only (no gh).
func gitOnlyPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"git", "sh"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
