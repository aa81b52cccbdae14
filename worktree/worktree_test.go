package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/internal/gittest"
)

// newRepo makes a git repository with one commit in a directory whose
// path has a space, and returns its canonical root.
func newRepo(t *testing.T) string {
	t.Helper()
	root := gittest.Repo(t, filepath.Join(t.TempDir(), "my repo"), map[string]string{
		"README": "hi\n", "sub/dir/f": "x\n", ".gitignore": ".env\n.env.local\n", ".env.example": "TRACKED=1\n",
	})
	return canonical(root)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func branchExists(t *testing.T, root, b string) bool {
	t.Helper()
	return exec.Command("git", "-C", root, "rev-parse", "--verify", "--quiet", "refs/heads/"+b).Run() == nil
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"feat/x": "feat-x", "release/v1.2.3": "release-v1.2.3", ".": "", "..": "", "-a-": "a",
		"a b": "a-b", "é": "", "x.": "x", "ok_1": "ok_1",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckBranch(t *testing.T) {
	for in, want := range map[string]string{
		"":    "`worktree` must name a branch",
		"-x":  "branch '-x' must not start with '-'",
		"..":  "branch '..' has no filesystem-safe name (dot-only names are not allowed)",
		"f/x": "",
	} {
		err := CheckBranch(in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckBranch(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCreateNewBranchFromSubdirectory(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	p, err := PlanFor(ctx, filepath.Join(root, "sub", "dir"), "feat/x")
	if err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(filepath.Dir(root), "my repo.worktrees", "feat-x")
	if p.Path != wantPath || p.RepoRoot != root || p.Action != ActionCreate || !p.NewBranch {
		t.Fatalf("plan = %+v, want path %s, root %s, create with a new branch", p, wantPath, root)
	}
	if _, err := os.Stat(p.Path); err == nil {
		t.Fatal("planning created the worktree")
	}
	if err := Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.Path, "README")); err != nil {
		t.Fatalf("worktree not checked out: %v", err)
	}
	if got := strings.TrimSpace(gittest.Git(t, p.Path, "branch", "--show-current")); got != "feat/x" {
		t.Fatalf("worktree branch = %q", got)
	}
	// Planned again (from inside the new worktree): reuse.
	p2, err := PlanFor(ctx, p.Path, "feat/x")
	if err != nil {
		t.Fatal(err)
	}
	if p2.Action != ActionReuse || p2.Path != p.Path || p2.RepoRoot != root {
		t.Fatalf("second plan = %+v, want a reuse of %s", p2, p.Path)
	}
}

func TestCreateExistingBranch(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	gittest.Git(t, root, "branch", "old")
	p, err := PlanFor(ctx, root, "old")
	if err != nil {
		t.Fatal(err)
	}
	if p.NewBranch {
		t.Fatalf("plan %+v makes a branch that exists", p)
	}
	if err := Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gittest.Git(t, p.Path, "branch", "--show-current")); got != "old" {
		t.Fatalf("worktree branch = %q", got)
	}
}

func TestPlanConflicts(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	parent := filepath.Dir(root)
	// Branch "elsewhere" checked out at another path.
	other := filepath.Join(parent, "other place")
	gittest.Git(t, root, "worktree", "add", "-q", "-b", "elsewhere", other)
	// Our path for "taken" holds branch "x".
	taken := filepath.Join(parent, "my repo.worktrees", "taken")
	gittest.Git(t, root, "worktree", "add", "-q", "-b", "x", taken)
	// Our path for "plain" is an ordinary directory.
	if err := os.MkdirAll(filepath.Join(parent, "my repo.worktrees", "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ branch, cwd, want string }{
		{"elsewhere", root, "branch 'elsewhere' already checked out at " + canonical(other)},
		{"main", root, "branch 'main' already checked out at " + root},
		{"taken", root, taken + " exists but holds another branch (x); remove it or pick another worktree branch"},
		{"plain", root, filepath.Join(parent, "my repo.worktrees", "plain") + " exists but is not a registered worktree; remove it first"},
		{"ok", parent, "cwd '" + parent + "' is not inside a git repository (required by `worktree`)"},
		{"a..b", root, "branch 'a..b' is not a valid branch name"},
	} {
		_, err := PlanFor(ctx, c.cwd, c.branch)
		if err == nil || err.Error() != c.want {
			t.Errorf("PlanFor(%s) = %v, want %q", c.branch, err, c.want)
		}
	}
}

func TestCreateQuotesGit(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	p, err := PlanFor(ctx, root, "y")
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, root, "branch", "y") // appears between plan and create
	err = Create(ctx, p)
	var ge *GitError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "fatal: a branch named 'y' already exists") {
		t.Fatalf("Create = %v, want git's own message", err)
	}
}

func TestCopyEnv(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, filepath.Join(root, ".env"), "SECRET=1\n")
	writeFile(t, filepath.Join(root, ".env.local"), "LOCAL=1\n")
	writeFile(t, filepath.Join(root, ".envrc"), "not ignored\n")
	p, _ := PlanFor(ctx, root, "e")
	if err := Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(p.Path, ".env.local"), "MINE\n")
	writeFile(t, filepath.Join(p.Path, ".env.example"), "EDITED\n")
	got, err := CopyEnv(ctx, root, p.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != ".env" {
		t.Fatalf("copied %v, want [.env]", got)
	}
	for name, want := range map[string]string{".env": "SECRET=1\n", ".env.local": "MINE\n", ".env.example": "EDITED\n"} {
		b, _ := os.ReadFile(filepath.Join(p.Path, name))
		if string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(p.Path, ".envrc")); err == nil {
		t.Error(".envrc (not ignored) was copied")
	}
}

func TestTeardown(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	clean, _ := PlanFor(ctx, root, "clean")
	dirty, _ := PlanFor(ctx, root, "dirty")
	gone, _ := PlanFor(ctx, root, "gone")
	for _, p := range []Plan{clean, dirty, gone} {
		if err := Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dirty.Path, "new"), "x")
	if err := os.RemoveAll(gone.Path); err != nil {
		t.Fatal(err)
	}
	if out, err := Teardown(ctx, root, clean.Path); out != Removed || err != nil {
		t.Fatalf("clean: %v %v", out, err)
	}
	if _, err := os.Stat(clean.Path); err == nil {
		t.Fatal("clean worktree still there")
	}
	if !branchExists(t, root, "clean") {
		t.Fatal("teardown deleted the branch")
	}
	out, err := Teardown(ctx, root, dirty.Path)
	if out != Kept || err == nil || err.Error() != "worktree kept: uncommitted changes in "+dirty.Path {
		t.Fatalf("dirty: %v %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dirty.Path, "new")); err != nil {
		t.Fatal("dirty worktree touched")
	}
	if out, err := Teardown(ctx, root, gone.Path); out != Pruned || err != nil {
		t.Fatalf("gone: %v %v", out, err)
	}
	if strings.Contains(gittest.Git(t, root, "worktree", "list"), gone.Path) {
		t.Fatal("git still lists the vanished worktree")
	}
	// A stale entry for the branch does not block planning it again.
	p, err := PlanFor(ctx, root, "clean")
	if err != nil || p.Action != ActionCreate || p.NewBranch {
		t.Fatalf("re-plan after teardown: %+v %v", p, err)
	}
}

func TestRollback(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	gittest.Git(t, root, "branch", "kept")
	fresh, _ := PlanFor(ctx, root, "fresh")
	old, _ := PlanFor(ctx, root, "kept")
	for _, p := range []Plan{fresh, old} {
		if err := Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	reuse, _ := PlanFor(ctx, root, "kept")
	if err := Rollback(ctx, reuse); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old.Path); err != nil {
		t.Fatal("rollback of a reuse removed the worktree")
	}
	for _, p := range []Plan{fresh, old} {
		if err := Rollback(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p.Path); err == nil {
			t.Fatalf("%s still there", p.Path)
		}
	}
	if branchExists(t, root, "fresh") {
		t.Error("the branch made by Create survived its rollback")
	}
	if !branchExists(t, root, "kept") {
		t.Error("rollback deleted a branch it did not make")
	}
}

func TestSetup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh scripts")
	}
	ctx := context.Background()
	dir := t.TempDir()
	if err := RunSetup(ctx, dir, "echo hi > made", nil, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
		t.Fatal("setup did not run in dir")
	}
	err := RunSetup(ctx, dir, "echo broken >&2; exit 3", nil, 0)
	var se *SetupError
	if !errors.As(err, &se) || se.Code != 3 || err.Error() != "exit 3: broken" {
		t.Fatalf("failing setup = %v", err)
	}
}

func TestRegistryPrune(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	reg := OpenRegistry(filepath.Join(t.TempDir(), "state", "worktrees.json"))
	var plans []Plan
	for _, b := range []string{"orphan", "dirty", "vanished", "keep", "live"} {
		p, _ := PlanFor(ctx, root, b)
		if err := Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		td := TeardownAuto
		if b == "keep" {
			td = TeardownKeep
		}
		if err := reg.Add(Record{Path: p.Path, RepoRoot: p.RepoRoot, Branch: b, Teardown: td}); err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	// A worktree we did not create is never considered.
	foreign := filepath.Join(filepath.Dir(root), "foreign")
	gittest.Git(t, root, "worktree", "add", "-q", "-b", "foreign", foreign)
	writeFile(t, filepath.Join(plans[1].Path, "wip"), "x")
	os.RemoveAll(plans[2].Path)
	res, err := reg.Prune(ctx, func(p string) bool { return p == plans[4].Path })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Outcome{}
	for _, r := range res {
		got[r.Record.Branch] = r.Outcome
	}
	want := map[string]Outcome{"orphan": Removed, "dirty": Kept, "vanished": Pruned}
	if len(got) != len(want) {
		t.Fatalf("prune results %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	for _, p := range []string{plans[1].Path, plans[3].Path, plans[4].Path, foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	recs, _ := reg.Records()
	var left []string
	for _, r := range recs {
		left = append(left, r.Branch)
	}
	if strings.Join(left, ",") != "dirty,live" {
		t.Errorf("records left: %v, want dirty,live", left)
	}
	if _, ok := reg.Owns(foreign); ok {
		t.Error("registry owns a foreign worktree")
	}
}

func TestRegistryRefusesCorruptFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "worktrees.json")
	writeFile(t, p, "{not json")
	reg := OpenRegistry(p)
	if err := reg.Add(Record{Path: "/x"}); err == nil {
		t.Fatal("Add over a corrupt registry succeeded")
	}
	b, _ := os.ReadFile(p)
	if string(b) != "{not json" {
		t.Fatal("corrupt registry was rewritten")
	}
}

// TestGitErrorCause: a git error names the line that says what went
// wrong, not the advice git prints after it.
func TestGitErrorCause(t *testing.T) {
	for stderr, want := range map[string]string{
		"Preparing worktree (new branch 'x')\nfatal: cannot lock ref 'refs/heads/x': Unable to create 'l.lock': File exists.\n\nAnother git process seems to be running in this repository, e.g.\nremove the file manually to continue.\n": "fatal: cannot lock ref 'refs/heads/x': Unable to create 'l.lock': File exists.",
		"error: pathspec 'y' did not match\nfatal: later\n": "error: pathspec 'y' did not match",
		"hint: something\nonly a last line\n\n":             "only a last line",
		"":                                                  "exit status 128",
	} {
		e := &GitError{Args: []string{"-C", "/r", "worktree", "add"}, Stderr: stderr, Err: errors.New("exit status 128")}
		if got := e.Error(); got != "git -C /r worktree add: "+want {
			t.Errorf("GitError with stderr %q = %q, want the cause %q", stderr, got, want)
		}
	}
}

// TestFsmonitorOff (issue 25): a repository whose configuration names a
// core.fsmonitor program gets its worktrees planned, created and torn
// down (git status included) without that program ever running.
func TestFsmonitorOff(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	gittest.Git(t, root, "config", "core.fsmonitor", "touch '"+marker+"'; false")
	p, err := PlanFor(ctx, root, "fsm")
	if err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if out, err := Teardown(ctx, root, p.Path); out != Removed || err != nil {
		t.Fatalf("teardown: %v %v", out, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran the repository's core.fsmonitor program")
	}
}
