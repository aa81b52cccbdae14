package review

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/proto"
)

// TestDiff: review.diff reads a real repository's changes on a branch
// (a commit, an unstaged edit, an untracked file) against the branch's
// merge base with main, from a directory inside the work tree, and runs
// no program the repository's configuration names; a bad worktree is
// an error naming it.
func TestDiff(t *testing.T) {
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"src/a.go": numbered(1, 5), "b.txt": "x\n"})
	gittest.Git(t, repo, "checkout", "-q", "-b", "feature")
	write(t, filepath.Join(repo, "c.txt"), "committed\n")
	gittest.Git(t, repo, "add", "c.txt")
	gittest.Git(t, repo, "commit", "-q", "-m", "c")
	base := strings.TrimSpace(gittest.Git(t, repo, "rev-parse", "main"))
	write(t, filepath.Join(repo, "src/a.go"), numbered(1, 5)+"line added\n")
	write(t, filepath.Join(repo, "new.txt"), "fresh\n")
	mark := filepath.Join(t.TempDir(), "fsmonitor-ran")
	gittest.Git(t, repo, "config", "core.fsmonitor", "touch "+mark+"; false")

	s := newTestService(t, &fakeCaller{})
	d := ok[proto.ReviewDiffResult](t, s.diff, proto.ReviewDiffParams{Worktree: filepath.Join(repo, "src")})
	if _, err := os.Stat(mark); err == nil {
		t.Error("review.diff ran the repository's core.fsmonitor")
	}
	if d.Root != repo || d.Scope != proto.DiffScopeBranch || d.Branch != "feature" || d.BaseRef != "main" || d.Base != base || d.Truncated {
		t.Errorf("root %q branch %q base_ref %q base %q truncated %v; want %q feature main %q false", d.Root, d.Branch, d.BaseRef, d.Base, d.Truncated, repo, base)
	}
	want := []proto.ReviewDiffFile{{Status: "A", Path: "c.txt"}, {Status: "M", Path: "src/a.go"}, {Status: "?", Path: "new.txt"}}
	if !slices.Equal(d.Files, want) {
		t.Errorf("files = %v, want %v", d.Files, want)
	}
	for _, line := range []string{"+committed", "+line added", "+fresh", "--- a/src/a.go"} {
		if !strings.Contains(d.Text, line+"\n") {
			t.Errorf("the diff lacks %q:\n%s", line, d.Text)
		}
	}

	// The scopes: the index against HEAD, the files against the index.
	gittest.Git(t, repo, "add", "src/a.go")
	staged := ok[proto.ReviewDiffResult](t, s.diff, proto.ReviewDiffParams{Worktree: repo, Scope: proto.DiffScopeStaged})
	if want := []proto.ReviewDiffFile{{Status: "M", Path: "src/a.go"}}; staged.Scope != proto.DiffScopeStaged || !slices.Equal(staged.Files, want) {
		t.Errorf("staged: scope %q files %v, want %v", staged.Scope, staged.Files, want)
	}
	unstaged := ok[proto.ReviewDiffResult](t, s.diff, proto.ReviewDiffParams{Worktree: repo, Scope: proto.DiffScopeUnstaged})
	if want := []proto.ReviewDiffFile{{Status: "?", Path: "new.txt"}}; !slices.Equal(unstaged.Files, want) || strings.Contains(unstaged.Text, "+line added") {
		t.Errorf("unstaged: files %v, want %v; text:\n%s", unstaged.Files, want, unstaged.Text)
	}
	if _, err := call[proto.ReviewDiffResult](t, s.diff, proto.ReviewDiffParams{Worktree: repo, Scope: "all"}); err == nil || !strings.Contains(err.Error(), "unknown diff scope 'all'") {
		t.Errorf("scope all: err = %v", err)
	}

	// A clean tree: no files, an empty list rather than null.
	clean := gittest.Repo(t, filepath.Join(t.TempDir(), "clean"), map[string]string{"a": "a\n"})
	if d := ok[proto.ReviewDiffResult](t, s.diff, proto.ReviewDiffParams{Worktree: clean}); d.Files == nil || len(d.Files) != 0 || d.Text != "" {
		t.Errorf("clean repository: %+v", d)
	}

	notRepo := t.TempDir()
	for _, c := range []struct {
		dir, want string
	}{
		{"", "Missing 'worktree'"},
		{"repo", "must be an absolute path"},
		{notRepo, notRepo + "': git rev-parse: fatal: not a git repository"},
	} {
		if _, err := call[proto.ReviewDiffResult](t, s.diff, proto.ReviewDiffParams{Worktree: c.dir}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("worktree %q: err = %v, want one containing %q", c.dir, err, c.want)
		}
	}
}
