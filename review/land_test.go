package review

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/exefile"
	"github.com/paneflow-go/paneflow/internal/gittest"
	"github.com/paneflow-go/paneflow/proto"
)

// landRepo makes a repository on main and a worktree on feat with one
// commit; the git identity is set for the server-side git calls.
func landRepo(t *testing.T) (repo, wt string) {
	t.Helper()
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"} {
		t.Setenv(k, v)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo = gittest.Repo(t, filepath.Join(base, "repo"), map[string]string{"a.txt": "a\n"})
	wt = filepath.Join(base, "repo.worktrees", "feat")
	gittest.Git(t, repo, "worktree", "add", "-q", "-b", "feat", wt)
	write(t, filepath.Join(wt, "a.txt"), "a by the agent\n")
	gittest.Git(t, wt, "commit", "-qam", "agent: change a")
	return repo, wt
}

// TestLandTeardown: land.run squashes feat into main, then closes the
// panes working in the worktree (and only those), removes the worktree
// and deletes the branch.
func TestLandTeardown(t *testing.T) {
	repo, wt := landRepo(t)
	sub := filepath.Join(wt, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fc := &fakeCaller{panes: []proto.SurfaceInfo{{ID: 1, Cwd: &repo}, {ID: 2, Cwd: &wt}, {ID: 3, Cwd: &sub}}}
	s := newTestService(t, fc)
	res := ok[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt, Strategy: proto.LandSquash, Teardown: ptr(true), DeleteBranch: ptr(true)})
	if !res.Landed || res.Base != "main" || res.Branch != "feat" || res.Teardown != "removed" || !res.BranchDeleted || res.TeardownError != "" {
		t.Fatalf("land: %+v", res)
	}
	if len(fc.closed) != 2 || fc.closed[0] != 2 || fc.closed[1] != 3 {
		t.Errorf("closed %v, want [2 3]", fc.closed)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "a by the agent\n" {
		t.Errorf("main's a.txt = %q", b)
	}
	if out := gittest.Git(t, repo, "branch", "--list", "feat"); out != "" {
		t.Errorf("feat still there: %q", out)
	}
}

// TestLandTeardownAfter: land.teardown tears a worktree down after a
// land.run without teardown (the window's offer): it refuses another
// branch than the one named, closes the worktree's panes, removes it and,
// after a squash, deletes the branch git does not see merged.
func TestLandTeardownAfter(t *testing.T) {
	repo, wt := landRepo(t)
	fc := &fakeCaller{panes: []proto.SurfaceInfo{{ID: 1, Cwd: &repo}, {ID: 2, Cwd: &wt}}}
	s := newTestService(t, fc)
	if res := ok[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt, Strategy: proto.LandSquash}); !res.Landed || res.Teardown != "" {
		t.Fatalf("land: %+v", res)
	}
	if _, err := call[proto.LandResult](t, s.landTeardown, proto.LandTeardownParams{Worktree: wt, Branch: "other"}); err == nil || !strings.Contains(err.Error(), "holds feat now, not other") {
		t.Errorf("another branch: %v", err)
	}
	if _, err := call[proto.LandResult](t, s.landTeardown, proto.LandTeardownParams{Worktree: wt, Strategy: "octopus"}); err == nil || !strings.Contains(err.Error(), "unknown land strategy") {
		t.Errorf("a bad strategy: %v", err)
	}
	if len(fc.closed) != 0 {
		t.Fatalf("a refused teardown closed %v", fc.closed)
	}
	res := ok[proto.LandResult](t, s.landTeardown, proto.LandTeardownParams{Worktree: wt, Branch: "feat", Strategy: proto.LandSquash, DeleteBranch: ptr(true)})
	if res.Teardown != "removed" || !res.BranchDeleted || res.TeardownError != "" || len(fc.closed) != 1 || fc.closed[0] != 2 {
		t.Fatalf("teardown: %+v, closed %v", res, fc.closed)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if out := gittest.Git(t, repo, "branch", "--list", "feat"); out != "" {
		t.Errorf("feat still there: %q", out)
	}
}

// TestLandConflictNoTeardown: a conflict answers landed false with the
// files; nothing is torn down.
func TestLandConflictNoTeardown(t *testing.T) {
	repo, wt := landRepo(t)
	write(t, filepath.Join(repo, "a.txt"), "a on main\n")
	gittest.Git(t, repo, "commit", "-qam", "main: change a")
	fc := &fakeCaller{panes: []proto.SurfaceInfo{{ID: 2, Cwd: &wt}}}
	s := newTestService(t, fc)
	res := ok[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt, Teardown: ptr(true)})
	if res.Landed || strings.Join(res.Conflicts, ",") != "a.txt" || res.Teardown != "" || len(fc.closed) != 0 {
		t.Fatalf("land: %+v, closed %v", res, fc.closed)
	}
	// send_conflicts: no agent there → the error says both.
	if _, err := call[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt, SendConflicts: ptr(true)}); err == nil ||
		!strings.Contains(err.Error(), "feat did not land (conflicts in a.txt; main is unchanged), and the conflicts were not sent to the agent: no pane running a known agent") {
		t.Errorf("send_conflicts without an agent: %v", err)
	}
	fc.tools = map[uint64]string{2: "claude"}
	res = ok[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt, Strategy: proto.LandRebase, SendConflicts: ptr(true)})
	want := "Landing your branch feat into main (rebase) stopped on conflicts; nothing was changed. Bring main into your branch (git rebase main), resolve the conflicts in these files, commit, and say when it is done:\n- a.txt\n"
	if res.Landed || res.Sent == nil || res.Sent.SurfaceID != 2 || len(fc.sent) != 1 || fc.sent[0].Text != want {
		t.Errorf("send_conflicts: %+v, sent %+v", res, fc.sent)
	}
	if _, err := call[proto.LandResult](t, s.land, proto.LandParams{Worktree: "rel"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative worktree: %v", err)
	}
}

// gitOnly returns a directory holding only git, for a PATH without gh.
func gitOnly(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(g, filepath.Join(dir, "git")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPullRequest: land.pr says why it cannot (no gh, no remote, a remote
// not on GitHub); with a GitHub remote (rewritten by insteadOf to a local
// bare repository) and a gh on PATH it pushes the branch and runs
// `gh pr create` with the base, the branch, the first commit's subject
// and the commits as the body (no agent pane), and answers gh's URL.
func TestPullRequest(t *testing.T) {
	repo, wt := landRepo(t)
	s := newTestService(t, &fakeCaller{})
	bin := gitOnly(t)
	t.Setenv("PATH", bin)
	want := func(msg string) {
		t.Helper()
		if _, err := call[proto.LandPRResult](t, s.pr, proto.LandPRParams{Worktree: wt}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("pr: %v, want %q", err, msg)
		}
	}
	want("gh, GitHub's CLI, is not installed")
	log := filepath.Join(t.TempDir(), "gh.log")
	gh := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + log + "\necho 'Creating pull request…'\necho https://github.com/o/r/pull/7\n"
	if err := exefile.Write(filepath.Join(bin, "gh"), []byte(gh), 0o755); err != nil {
		t.Fatal(err)
	}
	want("the repository has no remote 'origin'")
	gittest.Git(t, repo, "remote", "add", "origin", "https://gitlab.com/o/r.git")
	want("the remote 'origin' (https://gitlab.com/o/r.git) is not on GitHub")

	bare := filepath.Join(t.TempDir(), "r.git")
	gittest.Git(t, repo, "init", "-q", "--bare", bare)
	gittest.Git(t, repo, "remote", "set-url", "origin", "git@github.com:o/r.git")
	gittest.Git(t, repo, "config", "url."+bare+".insteadOf", "git@github.com:o/r.git")
	res := ok[proto.LandPRResult](t, s.pr, proto.LandPRParams{Worktree: wt})
	if res.URL != "https://github.com/o/r/pull/7" || res.Branch != "feat" || res.Base != "main" || res.Remote != "origin" {
		t.Errorf("pr: %+v", res)
	}
	args, _ := os.ReadFile(log)
	if string(args) != "pr\ncreate\n--base\nmain\n--head\nfeat\n--title\nagent: change a\n--body\n- agent: change a\n" {
		t.Errorf("gh got:\n%s", args)
	}
	if got := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "feat")); got != strings.TrimSpace(gittest.Git(t, wt, "rev-parse", "HEAD")) {
		t.Errorf("pushed feat = %s", got)
	}
}

// TestLandDefaultStrategy: without a strategy, land.run takes the [land]
// strategy of the worktree's .paneflow.toml (no trust needed: it only
// picks git's strategy); a bad one is refused before any git runs.
func TestLandDefaultStrategy(t *testing.T) {
	repo, wt := landRepo(t)
	s := newTestService(t, &fakeCaller{})
	write(t, filepath.Join(wt, ConfigFile), "[land]\nstrategy = \"octopus\"\n")
	if _, err := call[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt}); err == nil || !strings.Contains(err.Error(), "land.strategy must be merge, squash or rebase, got 'octopus'") {
		t.Errorf("bad default: %v", err)
	}
	write(t, filepath.Join(wt, ConfigFile), "[land]\nstrategy = \"squash\"\n")
	res := ok[proto.LandResult](t, s.land, proto.LandParams{Worktree: wt})
	if !res.Landed || res.Strategy != "squash" {
		t.Fatalf("land: %+v", res)
	}
	if parents := strings.Fields(gittest.Git(t, repo, "log", "-1", "--format=%P", "main")); len(parents) != 1 {
		t.Errorf("a squash has one parent, got %v", parents)
	}
}
