//go:build !windows

package app

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// TestDiffViewHunkKeys (issue 29): the Diff view's hunks are chosen,
// staged, unstaged, reverted and put back with its keys alone, in real
// git; a key that cannot act says why; the keys are named in the view's
// hint line and act only while the view is open.
func TestDiffViewHunkKeys(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	h := newHarness(t, nil)
	dir := hunkRepo(t) // a.txt: lines 2 and 18 changed (two hunks); n.txt untracked
	dv, _ := openDiffIn(h, dir)
	h.describe = func() string { return describeDiff(dv) }
	git := func(args ...string) string { return gittest.Git(t, dir, args...) }
	status := func(want string) {
		t.Helper()
		h.waitFor("status "+want, func() bool { return strings.Contains(dv.status.Text, want) })
	}
	h.s.guard(func() {
		if got, want := dv.hints.Text, "Keys: N/P hunk · S stage · R revert · U undo revert · C compare · Esc close"; got != want {
			t.Errorf("hint line %q, want %q", got, want)
		}
		if f := h.s.w.Canvas().Focused(); f != nil {
			t.Fatalf("%T has the keyboard in the Diff view; its keys need the canvas", f)
		}
	})

	pressKey(h, fyne.KeyS) // Branch: no staging there
	status("Stage works when comparing Unstaged or Staged: press C to compare another way.")
	pressKey(h, fyne.KeyC)
	h.waitFor("the unstaged diff", func() bool {
		return dv.diff != nil && dv.diff.Scope == scopeUnstaged && rowOf(dv, "+line 18 changed") >= 0 && rowOf(dv, "+new one") >= 0
	})
	pressKey(h, fyne.KeyS)
	status("Choose a hunk first: N or P, or click a line of one.")

	pressKey(h, fyne.KeyN)
	pressKey(h, fyne.KeyJ)
	h.s.guard(func() {
		if !strings.HasPrefix(dv.status.Text, "Hunk 2 of 3: a.txt @@ -15,") {
			t.Errorf("after N, J: status %q, want the second hunk of three, a.txt's at line 15", dv.status.Text)
		}
		head := dv.hunk
		for i, ref := range dv.refs {
			if _, marked := dv.grid.Rows[i].Style.(*hunkStyle); marked != (ref.line == head) {
				t.Errorf("row %d %q: marked %v, want only the chosen hunk's @@ row marked", i, dv.grid.RowText(i), marked)
			}
		}
		if dv.stageBtn.Disabled() || dv.revertBtn.Disabled() {
			t.Error("a hunk chosen by key leaves the hunk buttons disabled")
		}
		if dv.commentBox.Visible() {
			t.Error("choosing a hunk by key opened the comment editor (it would take the keys)")
		}
	})
	pressKey(h, fyne.KeyS)
	status("Staged a hunk of a.txt.")
	if got := git("diff", "--cached"); !strings.Contains(got, "+line 18 changed") || strings.Contains(got, "line 2 changed") {
		t.Fatalf("S staged:\n%s", got)
	}
	h.waitFor("the staged hunk gone from Unstaged", func() bool { return rowOf(dv, "+line 18 changed") < 0 && rowOf(dv, "+line 2 changed") >= 0 })

	// None chosen after the reload: P starts from the last (n.txt's).
	pressKey(h, fyne.KeyP)
	status("Hunk 2 of 2: n.txt")
	pressKey(h, fyne.KeyK)
	status("Hunk 1 of 2: a.txt")
	pressKey(h, fyne.KeyK) // stays on the first
	status("Hunk 1 of 2: a.txt")
	pressKey(h, fyne.KeyR)
	status("Reverted a hunk of a.txt")
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != gittest.NumberedLines(20, 18) {
		t.Fatalf("after R a.txt =\n%s", got)
	}
	pressKey(h, fyne.KeyU)
	status("Put the reverted hunk of a.txt back.")
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != gittest.NumberedLines(20, 2, 18) {
		t.Fatalf("after U a.txt =\n%s", got)
	}
	pressKey(h, fyne.KeyU)
	status("No reverted hunk to put back.")

	pressKey(h, fyne.KeyC)
	h.waitFor("the staged diff", func() bool { return dv.diff.Scope == scopeStaged && rowOf(dv, "+line 18 changed") >= 0 })
	pressKey(h, fyne.KeyR)
	status("Revert works when comparing Unstaged: press C to compare another way.")
	pressKey(h, fyne.KeyN)
	status("Hunk 1 of 1: a.txt")
	pressKey(h, fyne.KeyS)
	status("Unstaged a hunk of a.txt.")
	if got := git("diff", "--cached"); got != "" {
		t.Fatalf("S in Staged left staged:\n%s", got)
	}

	pressKey(h, fyne.KeyEscape)
	h.waitFor("the Diff view closed", func() bool { return shownPanelAs[*diffView](h.s) == nil })
	h.s.guard(func() {
		if h.s.diffKeyLocked(fyne.KeyN, 0) {
			t.Error("N acted with the Diff view closed")
		}
	})
}

// TestDiffViewHunkKeysScroll: the hunk a key chooses is scrolled into
// view when it is below or above what the grid shows.
func TestDiffViewHunkKeysScroll(t *testing.T) {
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	h := newHarness(t, nil)
	dir := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.txt": gittest.NumberedLines(600)})
	var changed []int
	for i := 5; i < 600; i += 10 {
		changed = append(changed, i)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), gittest.NumberedLines(600, changed...))
	dv, _ := openDiffIn(h, dir)
	h.waitFor("the diff", func() bool { return rowOf(dv, "+line 595 changed") >= 0 })
	inView := func(what string) {
		t.Helper()
		h.s.guard(func() {
			row := -1
			for i, ref := range dv.refs {
				if ref.line == dv.hunk {
					row = i
					break
				}
			}
			y := dv.grid.PositionForCursorLocation(row, 0).Y
			if row < 0 || y < 0 || y >= dv.grid.Size().Height {
				t.Errorf("%s: the chosen hunk's row %d is at y %v, outside the grid's %v", what, row, y, dv.grid.Size().Height)
			}
		})
	}
	h.s.guard(func() {
		if n := len(dv.grid.Rows); float32(n)*(dv.grid.PositionForCursorLocation(1, 0).Y-dv.grid.PositionForCursorLocation(0, 0).Y) <= 2*dv.grid.Size().Height {
			t.Fatalf("%d rows fit the grid (%v high): nothing to scroll", n, dv.grid.Size())
		}
	})
	status := func() (st string) {
		h.s.guard(func() { st = dv.status.Text })
		return st
	}
	pressKey(h, fyne.KeyP) // the last hunk, at the bottom
	if st := status(); !strings.HasPrefix(st, "Hunk 60 of 60: a.txt @@ -592,") {
		t.Fatalf("P: status %q, want the last of 60 hunks", st)
	}
	inView("the last hunk")
	for range 59 {
		pressKey(h, fyne.KeyP)
	}
	if st := status(); !strings.HasPrefix(st, "Hunk 1 of 60: a.txt @@ -2,") {
		t.Fatalf("59 more P: status %q, want the first hunk", st)
	}
	inView("back to the first hunk")
}

// TestDiffViewKeysButtonFocused (issue 29): after Tab gives a button of
// the Diff view the keyboard, the view's keys still act (a focused
// widget.Button took every key and dropped all but Space) and Space
// still presses the button.
func TestDiffViewKeysButtonFocused(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	h := newHarness(t, nil)
	dir := hunkRepo(t)
	dv, _ := openDiffIn(h, dir)
	pressKey(h, fyne.KeyC)
	h.waitFor("the unstaged diff", func() bool {
		return dv.diff != nil && dv.diff.Scope == scopeUnstaged && rowOf(dv, "+line 18 changed") >= 0
	})
	h.s.guard(func() {
		c := h.s.w.Canvas()
		c.FocusNext() // Tab
		if _, ok := c.Focused().(*passButton); !ok {
			t.Fatalf("after Tab %T has the keyboard, want one of the view's buttons", c.Focused())
		}
	})
	pressKey(h, fyne.KeyN)
	h.waitFor("the first hunk chosen", func() bool { return strings.HasPrefix(dv.status.Text, "Hunk 1 of") })
	pressKey(h, fyne.KeyN)
	pressKey(h, fyne.KeyS)
	h.waitFor("the second hunk staged", func() bool { return strings.Contains(dv.status.Text, "Staged a hunk of a.txt.") })
	if got := gittest.Git(t, dir, "diff", "--cached"); !strings.Contains(got, "+line 18 changed") || strings.Contains(got, "line 2 changed") {
		t.Fatalf("S with a button focused staged:\n%s", got)
	}
	// Space is still the focused button's.
	pressKey(h, fyne.KeyN)
	h.waitFor("a hunk chosen", func() bool { return strings.HasPrefix(dv.status.Text, "Hunk 1 of") && !dv.stageBtn.Disabled() })
	h.s.guard(func() {
		c := h.s.w.Canvas()
		c.Focus(dv.stageBtn)
		if c.Focused() != dv.stageBtn {
			t.Fatalf("%T has the keyboard, want Stage hunk", c.Focused())
		}
	})
	pressKey(h, fyne.KeySpace)
	h.waitFor("Space pressed Stage hunk", func() bool {
		return strings.Contains(dv.status.Text, "Staged a hunk of a.txt.") && !strings.Contains(gittest.Git(t, dir, "diff"), "line 2 changed")
	})
	pressKey(h, fyne.KeyEscape)
	h.waitFor("Escape closed the view", func() bool { return shownPanelAs[*diffView](h.s) == nil })
}
