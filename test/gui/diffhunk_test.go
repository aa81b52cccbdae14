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

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// TestDiffHunks stages and reverts single hunks in the Diff view with
// the mouse, in the window binary under Xvfb, against the real git:
// "Unstaged", a click on the second hunk's added line, "Stage hunk" (the
// index holds that hunk alone); a click on the first hunk, "Revert
// hunk" (the file is as committed there), "Undo revert" (the file as
// the user had it, byte for byte).
func TestDiffHunks(t *testing.T) {
	a, repo, git := hunkRepoApp(t)
	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	shown := a.openDiff(100)
	// The pointer over the long path's row (the third: All files, a.txt,
	// it) writes its full path into the view's last line.
	pathLine := image.Rect(30, g.H-60, g.W-30, g.H-25)
	a.xdo("mousemove", "--sync", "100", strconv.Itoa(fileRowY(2)))
	a.waitChange("the full path in the path line", "hover", shown, pathLine, 300)
	a.stable("hover", full)
	a.xdo("mousemove", "--sync", strconv.Itoa(g.W/2), strconv.Itoa(g.H/2))
	a.eventually("the root in the path line again", func() (bool, string) {
		n := changed(shown, a.screenshot("unhover"), pathLine, 0)
		return n == 0, fmt.Sprintf("%d pixels of the path line differ from before", n)
	})
	a.click(unstagedX, scopeY)
	a.stable("unstaged", full)
	rows := greenRows(a.screenshot("unstaged-rows"), image.Rect(g.W/3, 150, g.W, g.H))
	t.Logf("green rows %v", rows)
	if len(rows) != 2 {
		t.Fatalf("want 2 green rows (the two added lines), got %v", rows)
	}
	a.click(g.W/2, rows[1])
	a.stable("chosen", full)
	a.click(stageX, scopeY)
	a.eventually("the second hunk staged alone", func() (bool, string) {
		staged := git("diff", "--cached")
		return strings.Contains(staged, "+line 18 changed") && !strings.Contains(staged, "line 2 changed"), staged
	})
	if got := git("diff"); !strings.Contains(got, "+line 2 changed") || strings.Contains(got, "line 18 changed") {
		t.Fatalf("unstaged after staging a hunk:\n%s", got)
	}
	// The staged hunk leaves the Unstaged diff: one green row left.
	var left []int
	a.eventually("one added line left", func() (bool, string) {
		left = greenRows(a.screenshot("staged"), image.Rect(g.W/3, 150, g.W, g.H))
		return len(left) == 1, fmt.Sprint(left)
	})
	a.click(g.W/2, left[0])
	a.stable("chosen-first", full)
	a.click(revertX, scopeY)
	a.eventually("the first hunk reverted", func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(repo, "a.txt"))
		return string(b) == gittest.NumberedLines(20, 18), string(b)
	})
	a.eventually("no added line left", func() (bool, string) {
		n := len(greenRows(a.screenshot("reverted"), image.Rect(g.W/3, 150, g.W, g.H)))
		return n == 0, fmt.Sprint(n, " green rows")
	})
	a.stable("reverted", full)
	a.click(undoX, scopeY)
	a.eventually("the reverted hunk back", func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(repo, "a.txt"))
		return string(b) == gittest.NumberedLines(20, 2, 18), string(b)
	})
	a.stable("undone", full)
}

// hunkRepoApp starts the window binary with a second workspace, focused,
// on a repository whose a.txt has lines 2 and 18 changed since its commit
// (two hunks) and a long path deleted; it returns the app, the
// repository and a git run in it.
func hunkRepoApp(t *testing.T) (a *app, repo string, git func(args ...string) string) {
	x := display(t)
	a = startApp(t, x)
	first := a.ls().Surfaces[0].ID
	a.waitOutput(strconv.FormatUint(first, 10), promptRe)
	root := tempDir(t)
	repo = filepath.Join(root, "repo")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
	git = func(args ...string) string { return mustTool(t, env, "git", append([]string{"-C", repo}, args...)...) }
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	write(gittest.NumberedLines(20))
	// A long path, deleted in the work tree (red rows only): the file
	// list cuts it from the left, the path line shows it whole.
	long := filepath.Join(repo, "deep", "nested", "directory", "with", "many", "levels", "below", "the", "root", "a_long_file_name.go")
	if err := os.MkdirAll(filepath.Dir(long), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, []byte("package deep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "first")
	write(gittest.NumberedLines(20, 2, 18))
	if err := os.Remove(long); err != nil {
		t.Fatal(err)
	}

	a.rpc(nil, "workspace.create", map[string]any{"name": "hunks", "cwd": repo})
	var pane uint64
	for _, s := range a.ls().Surfaces {
		if s.ID != first {
			pane = s.ID
		}
	}
	a.waitOutput(strconv.FormatUint(pane, 10), promptRe)
	a.rpc(nil, "workspace.select", map[string]any{"index": 1})
	a.eventually("the repository's pane focused", func() (bool, string) {
		c := a.current()
		return c.Index == 1 && c.focused() == pane, fmt.Sprintf("workspace %d, pane %d", c.Index, c.focused())
	})
	return a, repo, git
}

// fileRowY is the y of the Diff view's file list row i (0: All files)
// at the test window's size.
func fileRowY(i int) int { return 203 + 28*i }

// The Compare row of the Diff view at the test window's size: its y,
// the x of its "Unstaged" choice, and of the hunk buttons right of it.
const (
	scopeY    = 131
	unstagedX = 236
	stageX    = 484
	revertX   = 586
	undoX     = 690
)

// TestDiffHunkKeys stages, reverts and puts back single hunks in the
// Diff view with its keys alone, in the window binary under Xvfb,
// against the real git, while Tab has given one of the view's buttons
// the keyboard (a focused button once dropped every key): C compares
// Unstaged, N N S stages the second hunk alone (git apply --cached), N R
// reverts the first (the file as committed there), U puts it back (the
// file as the user had it), Escape closes the view.
func TestDiffHunkKeys(t *testing.T) {
	a, repo, git := hunkRepoApp(t)
	g := a.geometry()
	full := image.Rect(0, 0, g.W, g.H)
	grid := image.Rect(g.W/3, 150, g.W, g.H)
	shown := a.openDiff(100)
	a.xdo("key", "Tab")
	a.waitChange("a button's focus ring", "tab", shown, full, 50)
	a.stable("tabbed", full)
	a.xdo("key", "c")
	a.eventually("the Unstaged diff: two added lines", func() (bool, string) {
		rows := greenRows(a.screenshot("unstaged"), grid)
		return len(rows) == 2, fmt.Sprint(rows)
	})
	a.stable("unstaged", full)
	a.xdo("key", "--delay", "150", "n", "n", "s")
	a.eventually("the second hunk staged alone", func() (bool, string) {
		staged := git("diff", "--cached")
		return strings.Contains(staged, "+line 18 changed") && !strings.Contains(staged, "line 2 changed"), staged
	})
	if got := git("diff"); !strings.Contains(got, "+line 2 changed") || strings.Contains(got, "line 18 changed") {
		t.Fatalf("unstaged after staging a hunk:\n%s", got)
	}
	a.eventually("one added line left", func() (bool, string) {
		rows := greenRows(a.screenshot("staged"), grid)
		return len(rows) == 1, fmt.Sprint(rows)
	})
	a.stable("staged", full)
	a.xdo("key", "--delay", "150", "n", "r")
	a.eventually("the first hunk reverted", func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(repo, "a.txt"))
		return string(b) == gittest.NumberedLines(20, 18), string(b)
	})
	a.stable("reverted", full)
	a.xdo("key", "u")
	a.eventually("the reverted hunk back", func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(repo, "a.txt"))
		return string(b) == gittest.NumberedLines(20, 2, 18), string(b)
	})
	a.stable("undone", full)
	a.xdo("key", "Escape")
	a.eventually("the Diff view closed", func() (bool, string) {
		n := changed(shown, a.screenshot("closed"), grid, 0)
		return n > 1000, fmt.Sprintf("%d pixels of the diff's place differ from the open view", n)
	})
}
