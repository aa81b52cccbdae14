package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Action is what a [Plan] does about its worktree.
type Action string

const (
	// ActionCreate adds a worktree with `git worktree add` (for an
	// existing branch, or a new one off the main checkout's HEAD).
	ActionCreate Action = "create"
	// ActionReuse uses a worktree that already holds the branch at the
	// planned path: nothing is added, copied or set up.
	ActionReuse Action = "reuse"
)

// Teardown policies (the spec's worktree_teardown).
const (
	// TeardownAuto removes the worktree when its panes are gone, if it is
	// clean and Paneflow created it.
	TeardownAuto = "auto"
	// TeardownKeep leaves the worktree in place.
	TeardownKeep = "keep"
)

// Plan is a worktree to give a pane: where it is, in which repository,
// for which branch, and what to do to have it. The zero value plans
// nothing.
type Plan struct {
	// Path is the worktree's directory, <repo>.worktrees/<slug>.
	Path string
	// RepoRoot is the main working tree of the repository.
	RepoRoot string
	// Branch is the branch the worktree holds.
	Branch string
	// Action says whether the worktree is created or reused.
	Action Action
	// NewBranch is set when creating makes the branch too (it did not
	// exist), off the main checkout's HEAD.
	NewBranch bool
	// Stale is set when git still lists a worktree at Path whose
	// directory is gone: Create runs `git worktree prune` first.
	Stale bool
}

// Slug turns a branch name into a directory name: every character outside
// [A-Za-z0-9._-] becomes '-', then leading and trailing '-' and '.' go
// ("feat/x" → "feat-x"). It is "" for names like "." or "..".
func Slug(branch string) string {
	out := make([]byte, 0, len(branch))
	for _, r := range branch {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			out = append(out, byte(r))
		default:
			out = append(out, '-')
		}
	}
	return strings.Trim(string(out), "-.")
}

// CheckBranch reports what is wrong with a branch name before any git
// runs: empty, starting with '-', or with no filesystem-safe name. The
// messages are the spec's, without the "pane i: " prefix.
func CheckBranch(branch string) error {
	switch {
	case branch == "":
		return errors.New("`worktree` must name a branch")
	case strings.HasPrefix(branch, "-"):
		return fmt.Errorf("branch '%s' must not start with '-'", branch)
	case Slug(branch) == "":
		return fmt.Errorf("branch '%s' has no filesystem-safe name (dot-only names are not allowed)", branch)
	}
	return nil
}

// listed is one entry of `git worktree list --porcelain -z`.
type listed struct {
	path     string
	branch   string // short name, "" when detached or bare
	bare     bool
	prunable bool
}

// list returns the worktrees git knows for the repository around dir; the
// first is the main working tree.
func list(ctx context.Context, dir string) ([]listed, error) {
	out, err := git(ctx, queryTimeout, "-C", dir, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var all []listed
	var cur *listed
	for _, f := range strings.Split(out, "\x00") {
		switch {
		case f == "":
			cur = nil
		case strings.HasPrefix(f, "worktree "):
			all = append(all, listed{path: strings.TrimPrefix(f, "worktree ")})
			cur = &all[len(all)-1]
		case cur == nil:
		case strings.HasPrefix(f, "branch "):
			cur.branch = strings.TrimPrefix(strings.TrimPrefix(f, "branch "), "refs/heads/")
		case f == "bare":
			cur.bare = true
		case f == "prunable" || strings.HasPrefix(f, "prunable "):
			cur.prunable = true
		}
	}
	return all, nil
}

// canonical returns p absolute, cleaned, with symbolic links resolved
// where it exists.
func canonical(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p)
}

// samePath reports whether a and b name the same directory.
func samePath(a, b string) bool {
	return canonical(a) == canonical(b)
}

// PlanFor decides, without changing anything, where branch's worktree for
// a pane whose directory is cwd goes and whether it is created or reused
// (spec specs.md §3). cwd may be anywhere inside the repository, or inside
// one of its linked worktrees; it must be absolute (callers expand "~" and
// relative paths). Errors carry the spec's messages without the "pane i: "
// prefix, or git's own message.
func PlanFor(ctx context.Context, cwd, branch string) (Plan, error) {
	if err := CheckBranch(branch); err != nil {
		return Plan{}, err
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return Plan{}, fmt.Errorf("cwd '%s' does not exist or is not a directory", cwd)
	}
	if _, err := git(ctx, queryTimeout, "-C", cwd, "rev-parse", "--show-toplevel"); err != nil {
		return Plan{}, fmt.Errorf("cwd '%s' is not inside a git repository (required by `worktree`)", cwd)
	}
	if _, err := git(ctx, queryTimeout, "check-ref-format", "--branch", branch); err != nil {
		return Plan{}, fmt.Errorf("branch '%s' is not a valid branch name", branch)
	}
	wts, err := list(ctx, cwd)
	if err != nil || len(wts) == 0 || wts[0].bare {
		return Plan{}, fmt.Errorf("cannot resolve the repository root from '%s'", cwd)
	}
	root := canonical(wts[0].path)
	p := Plan{
		RepoRoot: root,
		Branch:   branch,
		Path:     filepath.Join(filepath.Dir(root), filepath.Base(root)+".worktrees", Slug(branch)),
		Action:   ActionCreate,
	}
	for _, w := range wts {
		here := samePath(w.path, p.Path)
		switch {
		case w.branch == branch && here && w.prunable:
			p.Stale = true
		case w.branch == branch && here:
			p.Action = ActionReuse
			return p, nil
		case w.branch == branch && w.prunable:
			p.Stale = true // git prune frees the branch
		case w.branch == branch:
			return Plan{}, fmt.Errorf("branch '%s' already checked out at %s", branch, w.path)
		case here && w.prunable:
			p.Stale = true
		case here:
			held := w.branch
			if held == "" {
				held = "detached"
			}
			return Plan{}, fmt.Errorf("%s exists but holds another branch (%s); remove it or pick another worktree branch", p.Path, held)
		}
	}
	if _, err := os.Lstat(p.Path); err == nil {
		return Plan{}, fmt.Errorf("%s exists but is not a registered worktree; remove it first", p.Path)
	}
	if _, err := git(ctx, queryTimeout, "-C", root, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		p.NewBranch = true
	}
	return p, nil
}

// Create makes the worktree p plans (nothing for a reuse): the
// <repo>.worktrees directory, then `git worktree add`. The error quotes
// git's message.
func Create(ctx context.Context, p Plan) error {
	if p.Action != ActionCreate {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	if p.Stale {
		if _, err := git(ctx, queryTimeout, "-C", p.RepoRoot, "worktree", "prune"); err != nil {
			return err
		}
	}
	args := []string{"-C", p.RepoRoot, "worktree", "add"}
	if p.NewBranch {
		args = append(args, "-b", p.Branch, p.Path)
	} else {
		args = append(args, p.Path, p.Branch)
	}
	_, err := git(ctx, addTimeout, args...)
	return err
}

// Rollback undoes a Create whose `up` failed afterwards: the worktree is
// removed (with --force: it is moments old and nobody worked in it) and a
// branch that Create made is deleted with `git branch -d`, which refuses a
// branch that gained commits. A reuse is never touched.
func Rollback(ctx context.Context, p Plan) error {
	if p.Action != ActionCreate {
		return nil
	}
	var errs []error
	if _, err := git(ctx, queryTimeout, "-C", p.RepoRoot, "worktree", "remove", "--force", p.Path); err != nil {
		errs = append(errs, err)
	}
	if p.NewBranch && len(errs) == 0 {
		if _, err := git(ctx, queryTimeout, "-C", p.RepoRoot, "branch", "-d", p.Branch); err != nil {
			errs = append(errs, err)
		}
	}
	os.Remove(filepath.Dir(p.Path)) // the .worktrees directory, when empty
	return errors.Join(errs...)
}

// CopyEnv copies the repository root's top-level .env* files that git
// ignores (secrets that a checkout does not bring) into the worktree,
// never overwriting a file that is there already. It returns the names
// copied, sorted; errors on single files are collected, the others are
// still copied.
func CopyEnv(ctx context.Context, repoRoot, path string) ([]string, error) {
	ents, err := os.ReadDir(repoRoot)
	if err != nil {
		return nil, fmt.Errorf("worktree: copy_env: %w", err)
	}
	var cands []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".env") && e.Type().IsRegular() {
			cands = append(cands, e.Name())
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// check-ignore prints the ignored ones and exits 1 when none is.
	out, err := git(ctx, queryTimeout, append([]string{"-C", repoRoot, "check-ignore", "--"}, cands...)...)
	var ge *GitError
	if err != nil && !(errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "") {
		return nil, err
	}
	var copied []string
	var errs []error
	for _, name := range strings.Split(strings.TrimSpace(out), "\n") {
		if name == "" || strings.ContainsRune(name, '/') {
			continue
		}
		ok, err := copyNew(filepath.Join(repoRoot, name), filepath.Join(path, name))
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			copied = append(copied, name)
		}
	}
	sort.Strings(copied)
	return copied, errors.Join(errs...)
}

// copyNew copies src to dst unless dst exists; ok reports a copy.
func copyNew(src, dst string) (ok bool, err error) {
	in, err := os.Open(src)
	if err != nil {
		return false, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return false, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return false, err
	}
	if err := out.Close(); err != nil {
		os.Remove(dst)
		return false, err
	}
	return true, nil
}

// leftovers returns the files of `git status --porcelain -z` output st
// (in the worktree at root) when every entry is an untracked file that
// ours recognizes; ok is false otherwise.
func leftovers(root, st string, ours Leftovers) (files []string, ok bool) {
	if ours == nil {
		return nil, false
	}
	for e := range strings.SplitSeq(strings.TrimSuffix(st, "\x00"), "\x00") {
		rel, untracked := strings.CutPrefix(e, "?? ")
		if !untracked || rel == "" {
			return nil, false
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		if !ours(p) {
			return nil, false
		}
		files = append(files, p)
	}
	return files, true
}

// removeLeftovers deletes files and then the directories below root they
// leave empty.
func removeLeftovers(root string, files []string) error {
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for dir := filepath.Dir(f); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil {
				break // not empty (or not ours to judge): stop here
			}
		}
	}
	return nil
}

// Outcome is what a [Teardown] did.
type Outcome string

const (
	// Removed: the worktree was clean and `git worktree remove` removed it.
	Removed Outcome = "removed"
	// Kept: it has uncommitted changes or untracked files (or its state
	// could not be read); nothing was touched.
	Kept Outcome = "kept"
	// Pruned: its directory was already gone; `git worktree prune` dropped
	// git's record of it.
	Pruned Outcome = "pruned"
)

// Leftovers reports whether the file at path, untracked in a worktree,
// is one Paneflow itself left there and holds nothing of the user's (a
// launch shim's hook file whose shim did not get to remove it):
// [TeardownWith] deletes such files instead of keeping the worktree for
// them. It is called from the tearing-down goroutine.
type Leftovers func(path string) bool

// Teardown removes the worktree at path of the repository at repoRoot if
// it is clean; a dirty one is kept (the error says why), one whose
// directory is gone is pruned from git's list. The branch is never deleted.
func Teardown(ctx context.Context, repoRoot, path string) (Outcome, error) {
	return TeardownWith(ctx, repoRoot, path, nil)
}

// TeardownWith is [Teardown] for a worktree that may hold files of
// Paneflow's own: when its only changes are untracked files that ours
// recognizes, those are deleted (with the directories they leave empty)
// and the worktree, clean now, is removed. Any other change keeps it, and
// then nothing is deleted.
func TeardownWith(ctx context.Context, repoRoot, path string, ours Leftovers) (Outcome, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if _, err := git(ctx, queryTimeout, "-C", repoRoot, "worktree", "prune"); err != nil {
			return Pruned, err
		}
		return Pruned, nil
	}
	st, err := git(ctx, queryTimeout, "-C", path, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return Kept, fmt.Errorf("worktree kept: cannot verify %s: %w", path, err)
	}
	if st != "" {
		left, ok := leftovers(path, st, ours)
		if !ok {
			return Kept, fmt.Errorf("worktree kept: uncommitted changes in %s", path)
		}
		if err := removeLeftovers(path, left); err != nil {
			return Kept, fmt.Errorf("worktree kept: %v", err)
		}
		// Looked at again: nothing else may have appeared meanwhile.
		if st, err := git(ctx, queryTimeout, "-C", path, "status", "--porcelain", "--untracked-files=all"); err != nil || strings.TrimSpace(st) != "" {
			return Kept, fmt.Errorf("worktree kept: uncommitted changes in %s", path)
		}
	}
	if _, err := git(ctx, queryTimeout, "-C", repoRoot, "worktree", "remove", path); err != nil {
		return Kept, fmt.Errorf("worktree kept: %w", err)
	}
	os.Remove(filepath.Dir(path)) // the .worktrees directory, when empty
	return Removed, nil
}
