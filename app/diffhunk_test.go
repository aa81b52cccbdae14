//go:build !windows

package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/paneflow-go/paneflow/internal/gittest"
)

// hunkRepo makes a repository whose a.txt has two unstaged hunks (line 2
// and line 18) and an untracked n.txt; it returns its directory.
func hunkRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.txt": gittest.NumberedLines(20)})
	writeFile(t, filepath.Join(dir, "a.txt"), gittest.NumberedLines(20, 2, 18))
	writeFile(t, filepath.Join(dir, "n.txt"), "new one\nnew two\n")
	return dir
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineOf is the index of the first parsed line of kind whose text
// contains s, failing the test when none.
func lineOf(t *testing.T, lines []diffLine, kind byte, s string) int {
	t.Helper()
	for i, l := range lines {
		if l.kind == kind && strings.Contains(l.text, s) {
			return i
		}
	}
	t.Fatalf("no %c line with %q", kind, s)
	return -1
}

func TestHunkPatch(t *testing.T) {
	text := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n" +
		"@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n" +
		"@@ -10,2 +10,3 @@\n ten\n+ten and a half\n eleven\n\\ No newline at end of file\n" +
		"diff --git a/b.bin b/b.bin\nBinary files a/b.bin and b/b.bin differ\n"
	lines := parseDiff(text)
	head := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n"
	second := "@@ -10,2 +10,3 @@\n ten\n+ten and a half\n eleven\n\\ No newline at end of file\n"
	for _, c := range []struct {
		at        int
		want      string
		wantHead  int
		wantFound bool
	}{
		{lineOf(t, lines, '+', "TWO"), head + "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n", 4, true},
		{lineOf(t, lines, '@', "-1,3"), head + "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n", 4, true},
		{lineOf(t, lines, ' ', "eleven"), head + second, 9, true},
		{lineOf(t, lines, '\\', "No newline"), head + second, 9, true},
		{0, "", -1, false}, // a file header
		{lineOf(t, lines, 'h', "Binary files"), "", -1, false}, // no hunk
		{-1, "", -1, false},
		{len(lines), "", -1, false},
	} {
		got, gotHead, ok := hunkPatch(lines, c.at)
		if got != c.want || gotHead != c.wantHead || ok != c.wantFound {
			t.Errorf("hunkPatch(%d) = %q, %d, %v; want %q, %d, %v", c.at, got, gotHead, ok, c.want, c.wantHead, c.wantFound)
		}
	}
}

// TestApplyHunk stages, unstages, reverts and puts back single hunks
// with the real git, and checks that a hunk whose file changed since
// the diff was read is refused with the files left alone.
func TestApplyHunk(t *testing.T) {
	dir := hunkRepo(t)
	ctx := context.Background()
	load := func(scope string) []diffLine {
		t.Helper()
		d, err := loadScopedDiff(ctx, dir, scope)
		if err != nil {
			t.Fatal(err)
		}
		if d.Scope != scope {
			t.Fatalf("scope %q, want %q", d.Scope, scope)
		}
		return parseDiff(d.Text)
	}
	patchAt := func(lines []diffLine, kind byte, s string) string {
		t.Helper()
		p, _, ok := hunkPatch(lines, lineOf(t, lines, kind, s))
		if !ok {
			t.Fatalf("no hunk at %q", s)
		}
		return p
	}
	git := func(args ...string) string { return gittest.Git(t, dir, args...) }

	// Stage the second hunk of a.txt: the index has it, the work tree
	// keeps both, and the first is still unstaged.
	lines := load(scopeUnstaged)
	if err := applyHunk(ctx, dir, hunkStage, patchAt(lines, '+', "line 18 changed")); err != nil {
		t.Fatal(err)
	}
	staged, unstaged := git("diff", "--cached"), git("diff")
	if !strings.Contains(staged, "+line 18 changed") || strings.Contains(staged, "line 2 changed") {
		t.Fatalf("staged:\n%s", staged)
	}
	if !strings.Contains(unstaged, "+line 2 changed") || strings.Contains(unstaged, "line 18 changed") {
		t.Fatalf("unstaged:\n%s", unstaged)
	}
	// The untracked file's one hunk stages the new file.
	if err := applyHunk(ctx, dir, hunkStage, patchAt(load(scopeUnstaged), '+', "new one")); err != nil {
		t.Fatal(err)
	}
	if got := git("diff", "--cached", "--name-status"); got != "M\ta.txt\nA\tn.txt\n" {
		t.Fatalf("staged files %q", got)
	}
	// Unstage the second hunk from the Staged scope.
	if err := applyHunk(ctx, dir, hunkUnstage, patchAt(load(scopeStaged), '+', "line 18 changed")); err != nil {
		t.Fatal(err)
	}
	if got := git("diff", "--cached", "--name-status"); got != "A\tn.txt\n" {
		t.Fatalf("staged files after unstaging %q", got)
	}
	// Revert the first hunk in the work tree, then put it back.
	p := patchAt(load(scopeUnstaged), '+', "line 2 changed")
	if err := applyHunk(ctx, dir, hunkRevert, p); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(dir, "a.txt")), gittest.NumberedLines(20, 18); got != want {
		t.Fatalf("after revert a.txt =\n%s\nwant\n%s", got, want)
	}
	if err := applyHunk(ctx, dir, hunkUndo, p); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(dir, "a.txt")), gittest.NumberedLines(20, 2, 18); got != want {
		t.Fatalf("after undo a.txt =\n%s\nwant\n%s", got, want)
	}
	// The file changes after the diff was read: the revert is refused
	// in words and the file is left as the user has it.
	p = patchAt(load(scopeUnstaged), '+', "line 2 changed")
	edited := strings.Replace(gittest.NumberedLines(20, 2, 18), "line 2 changed", "line 2 edited again", 1)
	writeFile(t, filepath.Join(dir, "a.txt"), edited)
	err := applyHunk(ctx, dir, hunkRevert, p)
	if err == nil || !strings.Contains(err.Error(), "the hunk no longer applies: the file changed since the diff was read") {
		t.Fatalf("revert of a stale hunk: %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != edited {
		t.Fatalf("a refused revert changed a.txt:\n%s", got)
	}
	// The same for the index.
	git("add", "a.txt")
	err = applyHunk(ctx, dir, hunkStage, p)
	if err == nil || !strings.Contains(err.Error(), "the hunk no longer applies: the index changed") {
		t.Fatalf("stage of a stale hunk: %v", err)
	}
	if err := applyHunk(ctx, dir, "bogus", p); err == nil || !strings.Contains(err.Error(), `unknown hunk action "bogus"`) {
		t.Fatalf("unknown action: %v", err)
	}
}

// TestApplyHunkNoRepoFilter: a clean or smudge filter the repository configures
// for itself does not run when a hunk is staged (a repository is not
// trusted to run programs), unstaged, reverted or put back, as it does
// not for the diff.
func TestApplyHunkNoRepoFilter(t *testing.T) {
	dir := hunkRepo(t)
	ran := filepath.Join(t.TempDir(), "ran")
	gittest.Git(t, dir, "config", "filter.evil.clean", "touch "+ran+"; cat")
	gittest.Git(t, dir, "config", "filter.evil.smudge", "touch "+ran+"; cat")
	writeFile(t, filepath.Join(dir, ".git", "info", "attributes"), "*.txt filter=evil\n")
	d, err := loadScopedDiff(context.Background(), dir, scopeUnstaged)
	if err != nil {
		t.Fatal(err)
	}
	lines := parseDiff(d.Text)
	p, _, _ := hunkPatch(lines, lineOf(t, lines, '+', "line 2 changed"))
	for _, action := range []string{hunkStage, hunkUnstage, hunkRevert, hunkUndo} {
		if err := applyHunk(context.Background(), dir, action, p); err != nil {
			t.Fatal(action, err)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the repository's clean filter ran")
	}
}

func TestKeepRevert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reverted")
	var first string
	for i := range maxKeptReverts + 3 {
		p, err := keepRevert(dir, "/r", "sub/a.txt", "PATCH\n", timeAt(i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = p
		}
		if got := readFile(t, p); got != "Reverted in the Diff view of /r; put back with: git -C '/r' apply '"+p+"'\nPATCH\n" {
			t.Fatalf("kept %q", got)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != maxKeptReverts {
		t.Fatalf("%d kept, want %d", len(ents), maxKeptReverts)
	}
	if _, err := os.Stat(first); err == nil {
		t.Fatal("the oldest was not removed")
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v", fi.Mode())
	}
}

// timeAt is a fixed time i seconds into 2026.
func timeAt(i int) time.Time { return time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC) }

// TestDiffViewHunks drives the Diff view's hunk buttons as a user does:
// Unstaged, a click on a line of a.txt's second hunk, Stage hunk (the
// index has that hunk alone); Staged, Unstage hunk; Unstaged again, a
// click on the first hunk's @@ line, Revert hunk (the line is back as
// committed, the hunk kept in a file), Undo revert (a.txt as the user
// had it, byte for byte); then a revert of a hunk whose file changed
// since the diff was read is refused in words, the file untouched.
// describeDiff is what a Diff view test's timed-out wait saw: the
// status line, the hunk buttons and the busy action (call it holding the
// UI lock).
func describeDiff(dv *diffView) string {
	btn := func(b *passButton) string {
		return fmt.Sprintf("%q visible=%v disabled=%v", b.Text, b.Visible(), b.Disabled())
	}
	return fmt.Sprintf("status %q; busy %q; reverted %d; buttons: %s, %s, %s", dv.status.Text, dv.busy, len(dv.reverted), btn(dv.stageBtn), btn(dv.revertBtn), btn(dv.undoBtn))
}

func TestDiffViewHunks(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	h := newHarness(t, nil)
	dir := hunkRepo(t)
	dv, _ := openDiffIn(h, dir)
	h.describe = func() string { return describeDiff(dv) }
	git := func(args ...string) string { return gittest.Git(t, dir, args...) }
	h.s.guard(func() {
		if dv.stageBtn.Visible() || dv.revertBtn.Visible() || dv.undoBtn.Visible() {
			t.Fatal("hunk buttons shown in the Branch scope")
		}
	})
	scope := func(sc string) {
		t.Helper()
		dv.scope.SetSelected(sc) // as a click: without the lock
		h.waitFor(sc+" loaded", func() bool { return dv.diff != nil && dv.diff.Scope == sc })
	}
	scope(scopeUnstaged)
	h.waitFor("the unstaged diff", func() bool {
		return strings.Contains(dv.header.Text, "unstaged changes") && rowOf(dv, "+line 18 changed") >= 0 && rowOf(dv, "+new one") >= 0
	})
	h.s.guard(func() {
		if !dv.stageBtn.Visible() || !dv.stageBtn.Disabled() || !dv.revertBtn.Visible() {
			t.Fatal("Unstaged: the hunk buttons are not shown, disabled until a hunk is chosen")
		}
	})
	tapRow(h, dv, rowOf(dv, "+line 18 changed"), false)
	tapButton(h, "Stage hunk", &dv.stageBtn.Button)
	h.waitFor("staged", func() bool { return strings.Contains(dv.status.Text, "Staged a hunk of a.txt.") })
	if got := git("diff", "--cached"); !strings.Contains(got, "+line 18 changed") || strings.Contains(got, "line 2 changed") {
		t.Fatalf("staged:\n%s", got)
	}
	h.waitFor("the staged hunk gone from Unstaged", func() bool { return rowOf(dv, "+line 18 changed") < 0 && rowOf(dv, "+line 2 changed") >= 0 })

	scope(scopeStaged)
	h.waitFor("the staged diff", func() bool {
		return rowOf(dv, "+line 18 changed") >= 0 && dv.stageBtn.Text == "Unstage hunk" && !dv.revertBtn.Visible()
	})
	tapRow(h, dv, rowOf(dv, "+line 18 changed"), false)
	tapButton(h, "Unstage hunk", &dv.stageBtn.Button)
	h.waitFor("unstaged", func() bool { return strings.Contains(dv.status.Text, "Unstaged a hunk of a.txt.") })
	if got := git("diff", "--cached"); got != "" {
		t.Fatalf("still staged:\n%s", got)
	}
	h.waitFor("nothing staged", func() bool { return strings.Contains(dv.grid.Text(), "Nothing staged") })

	scope(scopeUnstaged)
	h.waitFor("both hunks", func() bool { return rowOf(dv, "+line 18 changed") >= 0 && rowOf(dv, "+line 2 changed") >= 0 })
	head := -1
	h.s.guard(func() {
		for i := range dv.grid.Rows {
			if strings.HasPrefix(dv.grid.RowText(i), "@@ -1,") {
				head = i
			}
		}
	})
	tapRow(h, dv, head, false)
	h.s.guard(func() {
		if _, ok := dv.grid.Rows[head].Style.(*hunkStyle); !ok {
			t.Fatal("the chosen hunk's @@ row is not marked")
		}
		if dv.status.Importance == widget.DangerImportance {
			t.Fatalf("a click on a hunk's @@ line shows a complaint: %q", dv.status.Text)
		}
	})
	tapButton(h, "Revert hunk", &dv.revertBtn.Button)
	h.waitFor("reverted", func() bool {
		return strings.Contains(dv.status.Text, "Reverted a hunk of a.txt") && dv.undoBtn.Visible()
	})
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != gittest.NumberedLines(20, 18) {
		t.Fatalf("after revert a.txt =\n%s", got)
	}
	kept, _ := filepath.Glob(filepath.Join(state, "paneflow", "reverted", "*-a.txt.patch"))
	if len(kept) != 1 || !strings.Contains(readFile(t, kept[0]), "+line 2 changed") || !strings.Contains(dv.status.Text, kept[0]) {
		t.Fatalf("kept %v; status %q", kept, dv.status.Text)
	}
	tapButton(h, "Undo revert", &dv.undoBtn.Button)
	h.waitFor("put back", func() bool {
		return strings.Contains(dv.status.Text, "Put the reverted hunk of a.txt back.") && !dv.undoBtn.Visible()
	})
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != gittest.NumberedLines(20, 2, 18) {
		t.Fatalf("after undo a.txt =\n%s", got)
	}
	if _, err := os.Stat(kept[0]); err == nil {
		t.Fatal("the kept hunk stayed after it was put back")
	}

	// The file changes between the click and the revert (an agent at
	// work): refused, the file as it is now.
	h.waitFor("line 2's hunk", func() bool { return rowOf(dv, "+line 2 changed") >= 0 })
	tapRow(h, dv, rowOf(dv, "+line 2 changed"), false)
	edited := strings.Replace(gittest.NumberedLines(20, 2, 18), "line 3\n", "line 3 edited by the agent\n", 1)
	h.waitFor("Revert hunk enabled", func() bool { return !dv.revertBtn.Disabled() })
	h.s.guard(func() {
		// Under the lock, as the button's handler runs, so the watcher's
		// reload cannot land between the write and the revert.
		writeFile(t, filepath.Join(dir, "a.txt"), edited)
		dv.hunkAction(hunkRevert)
	})
	h.waitFor("refused", func() bool {
		return strings.Contains(dv.status.Text, "Revert hunk of a.txt: the hunk no longer applies: the file changed since the diff was read") &&
			dv.status.Importance == widget.DangerImportance
	})
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != edited {
		t.Fatalf("a refused revert changed a.txt:\n%s", got)
	}
}
