package worktree

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// landRepo makes a repository on main (a.txt, b.txt) and a worktree on
// branch feat with one commit changing b.txt; conflict also changes line
// 1 of a.txt on both sides. It returns the repository and the worktree.
func landRepo(t *testing.T, conflict bool) (repo, wt string) {
	t.Helper()
	for _, kv := range []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e"} {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	base := canonical(t.TempDir())
	repo = gittest.Repo(t, filepath.Join(base, "repo"), map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "b\n"})
	wt = filepath.Join(base, "repo.worktrees", "feat")
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "feat", wt)
	writeFile(t, filepath.Join(wt, "b.txt"), "b changed\n")
	gittest.Git(t, wt, "commit", "-qam", "change b")
	writeFile(t, filepath.Join(wt, "c.txt"), "new\n")
	gittest.Git(t, wt, "add", "c.txt")
	gittest.Git(t, wt, "commit", "-qm", "add c")
	// main moves on meanwhile.
	writeFile(t, filepath.Join(repo, "a.txt"), "one\ntwo\nthree\nfour\n")
	gittest.Git(t, repo, "commit", "-qam", "main: four")
	if conflict {
		writeFile(t, filepath.Join(repo, "a.txt"), "ONE on main\ntwo\nthree\nfour\n")
		gittest.Git(t, repo, "commit", "-qam", "main: ONE")
		writeFile(t, filepath.Join(wt, "a.txt"), "one on feat\ntwo\nthree\n")
		gittest.Git(t, wt, "commit", "-qam", "feat: one")
	}
	return repo, wt
}

func rev(t *testing.T, dir, ref string) string {
	t.Helper()
	return strings.TrimSpace(gittest.Git(t, dir, "rev-parse", ref))
}

// TestLandStrategies: each strategy lands feat into main, checked out in
// the main working tree, with the real git: main's new head holds both
// sides' changes, with two parents (merge), one (squash) or feat's own
// commits on top of main (rebase), and the main checkout shows them.
func TestLandStrategies(t *testing.T) {
	for _, strategy := range []string{LandMerge, LandSquash, LandRebase} {
		t.Run(strategy, func(t *testing.T) {
			repo, wt := landRepo(t, false)
			oldMain := rev(t, repo, "main")
			l, err := Land(context.Background(), filepath.Join(wt, "."), LandOptions{Strategy: strategy})
			if err != nil {
				t.Fatal(err)
			}
			if l.Branch != "feat" || l.Base != "main" || l.Commits != 2 || len(l.Conflicts) != 0 || l.Commit != rev(t, repo, "main") || l.RepoRoot != repo || l.Root != wt {
				t.Fatalf("landed %+v", l)
			}
			for f, want := range map[string]string{"a.txt": "one\ntwo\nthree\nfour\n", "b.txt": "b changed\n", "c.txt": "new\n"} {
				if b, err := os.ReadFile(filepath.Join(repo, f)); err != nil || string(b) != want {
					t.Errorf("main checkout's %s = %q, %v; want %q", f, b, err, want)
				}
			}
			if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("main checkout not clean: %q", st)
			}
			parents := strings.Fields(gittest.Git(t, repo, "log", "-1", "--format=%P", "main"))
			switch strategy {
			case LandMerge:
				if len(parents) != 2 || parents[0] != oldMain || parents[1] != rev(t, repo, "feat") {
					t.Errorf("merge parents %v", parents)
				}
			case LandSquash:
				msg := gittest.Git(t, repo, "log", "-1", "--format=%B", "main")
				if len(parents) != 1 || parents[0] != oldMain || !strings.Contains(msg, "feat (squashed)\n\n- change b\n- add c") {
					t.Errorf("squash parents %v, message %q", parents, msg)
				}
			case LandRebase:
				if rev(t, repo, "main") != rev(t, repo, "feat") || rev(t, repo, "main~2") != oldMain {
					t.Errorf("rebase: main %s, feat %s, main~2 %s, old main %s", rev(t, repo, "main"), rev(t, repo, "feat"), rev(t, repo, "main~2"), oldMain)
				}
			}
			if err := DeleteBranch(context.Background(), repo, "feat", strategy == LandSquash); err == nil {
				t.Error("deleted feat while its worktree holds it")
			}
			if _, err := Teardown(context.Background(), repo, wt); err != nil {
				t.Fatal(err)
			}
			if err := DeleteBranch(context.Background(), repo, "feat", strategy == LandSquash); err != nil {
				t.Errorf("delete after the land: %v", err)
			}
		})
	}
}

// TestLandConflictLeavesBaseUntouched: a conflict with each strategy
// lists the file and aborts: main (and, for a rebase, feat) point where
// they did, both checkouts are clean, no merge or rebase is in progress.
func TestLandConflictLeavesBaseUntouched(t *testing.T) {
	for _, strategy := range []string{LandMerge, LandSquash, LandRebase} {
		t.Run(strategy, func(t *testing.T) {
			repo, wt := landRepo(t, true)
			oldMain, oldFeat := rev(t, repo, "main"), rev(t, repo, "feat")
			l, err := Land(context.Background(), wt, LandOptions{Strategy: strategy})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.Conflicts, []string{"a.txt"}) || l.Commit != "" {
				t.Fatalf("landed %+v, want a conflict on a.txt", l)
			}
			if rev(t, repo, "main") != oldMain || rev(t, repo, "feat") != oldFeat {
				t.Errorf("refs moved: main %s (was %s), feat %s (was %s)", rev(t, repo, "main"), oldMain, rev(t, repo, "feat"), oldFeat)
			}
			for _, dir := range []string{repo, wt} {
				if st := gittest.Git(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
					t.Errorf("%s not clean: %q", dir, st)
				}
			}
			gitDir := strings.TrimSpace(gittest.Git(t, repo, "rev-parse", "--git-dir"))
			for _, f := range []string{"MERGE_HEAD", "rebase-merge", "rebase-apply"} {
				if _, err := os.Stat(filepath.Join(repo, gitDir, f)); err == nil {
					t.Errorf("%s left behind", f)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "ONE on main\ntwo\nthree\nfour\n" {
				t.Errorf("main checkout's a.txt = %q", b)
			}
		})
	}
}

// TestLandBaseCheckedOutNowhere: a base branch no worktree holds is
// landed into through a temporary worktree; the main checkout (on main)
// is not touched and the temporary worktree is gone.
func TestLandBaseCheckedOutNowhere(t *testing.T) {
	repo, wt := landRepo(t, false)
	gittest.Git(t, repo, "branch", "release", "main~1")
	oldMain := rev(t, repo, "main")
	l, err := Land(context.Background(), wt, LandOptions{Strategy: LandMerge, Base: "release"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Commit != rev(t, repo, "release") || rev(t, repo, "release^2") != rev(t, repo, "feat") || rev(t, repo, "main") != oldMain {
		t.Errorf("landed %+v; release %s, main %s (was %s)", l, rev(t, repo, "release"), rev(t, repo, "main"), oldMain)
	}
	if got := gittest.Git(t, repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 2 {
		t.Errorf("worktrees after the land:\n%s", got)
	}
}

// TestLandRefused: what stands in the way is said, and nothing moves.
func TestLandRefused(t *testing.T) {
	repo, wt := landRepo(t, false)
	ctx := context.Background()
	oldMain := rev(t, repo, "main")
	writeFile(t, filepath.Join(wt, "b.txt"), "dirty\n")
	if _, err := Land(ctx, wt, LandOptions{}); err == nil || !strings.Contains(err.Error(), wt+" has uncommitted changes") {
		t.Errorf("dirty worktree: %v", err)
	}
	gittest.Git(t, wt, "checkout", "b.txt")
	writeFile(t, filepath.Join(repo, "a.txt"), "dirty\n")
	if _, err := Land(ctx, wt, LandOptions{}); err == nil || !strings.Contains(err.Error(), "the base branch main is checked out at "+repo) {
		t.Errorf("dirty base checkout: %v", err)
	}
	gittest.Git(t, repo, "checkout", "a.txt")
	if _, err := Land(ctx, wt, LandOptions{Strategy: "octopus"}); err == nil || !strings.Contains(err.Error(), "unknown land strategy") {
		t.Errorf("bad strategy: %v", err)
	}
	if _, err := Land(ctx, wt, LandOptions{Base: "nope"}); err == nil || !strings.Contains(err.Error(), "no branch 'nope'") {
		t.Errorf("missing base: %v", err)
	}
	gittest.Git(t, repo, "branch", "same", "main")
	if _, err := Land(ctx, repo, LandOptions{Base: "same"}); err == nil || !strings.Contains(err.Error(), "nothing to land: main has no commits that same lacks") {
		t.Errorf("main into a branch at main: %v", err)
	}
	if _, err := Land(ctx, repo, LandOptions{}); err == nil || !strings.Contains(err.Error(), "no base branch") {
		t.Errorf("the main checkout itself: %v", err)
	}
	if rev(t, repo, "main") != oldMain {
		t.Error("main moved")
	}
}

// TestOnGitHub: the remote URL forms whose host is GitHub's, and ones
// that only mention it.
func TestOnGitHub(t *testing.T) {
	for url, want := range map[string]bool{
		"https://github.com/o/r.git":        true,
		"git@github.com:o/r.git":            true,
		"ssh://git@github.com/o/r":          true,
		"https://user@GitHub.com/o/r":       true,
		"https://gitlab.com/o/r.git":        false,
		"/srv/github.com/o/r.git":           false,
		"https://example.com/github.com/o/": false,
		"git@github.com.evil.example:o/r":   false,
	} {
		if got := onGitHub(url); got != want {
			t.Errorf("onGitHub(%q) = %v, want %v", url, got, want)
		}
	}
}
