package app

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fsnotify/fsnotify"
	"github.com/paneflow-go/paneflow/proto"
)

// Limits of the diff view.
const (
	// maxDiffBytes caps the diff text read from git; the rest is cut with
	// a note.
	maxDiffBytes = 2 << 20
	// maxUntrackedDiffs caps the untracked files whose content is shown.
	maxUntrackedDiffs = 20
	// maxWatchedDirs caps the directories watched for changes.
	maxWatchedDirs = 2000
	// diffDebounce is how long file changes settle before git runs again.
	diffDebounce = 400 * time.Millisecond
	// gitTimeout bounds one load.
	gitTimeout = 30 * time.Second
)

// baseCandidates are the refs a branch is compared with, first that
// exists wins: its upstream, then the usual default branches.
var baseCandidates = []string{"@{upstream}", "origin/HEAD", "main", "master", "trunk", "develop"}

// emptyTree is git's empty tree, the base of a repository without commits.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// gitDiff is a repository's changes (committed, staged, unstaged and
// untracked) against the point where its branch left its base.
type gitDiff struct {
	Root      string     // the work tree's top directory
	Branch    string     // the checked-out branch ("" when detached)
	Scope     string     // what was compared: scopeBranch, scopeUnstaged or scopeStaged
	BaseRef   string     // the ref compared with ("main"), "" when none
	Base      string     // the commit compared with (the merge base; scopeBranch)
	Files     []diffFile // changed files, then untracked ones
	Text      string     // the unified diff, uncoloured
	Truncated bool       // Text was cut at maxDiffBytes
}

// diffFile is one changed file: git's status letter (M, A, D, R, …; "?"
// untracked) and its path relative to Root.
type diffFile struct {
	Status string
	Path   string
}

// runGit runs git in dir and returns its output; a failure carries git's
// own message. okCodes are exit codes that are not failures (git diff
// --no-index exits 1 when files differ). The directory may be one a
// program in a pane named (OSC 7), so its repository's configuration is
// not trusted to run programs: core.fsmonitor is off for every call, and
// the diffs are run with --no-textconv and --no-ext-diff and without the
// repository's own filters ([repoFilters]).
func runGit(ctx context.Context, dir string, args []string, okCodes ...int) (string, error) {
	return runGitEnv(ctx, dir, nil, args, okCodes...)
}

// runGitEnv is runGit with more environment variables.
func runGitEnv(ctx context.Context, dir string, env, args []string, okCodes ...int) (string, error) {
	return runGitIn(ctx, dir, env, "", args, okCodes...)
}

// runGitIn is runGitEnv with stdin as git's standard input (a patch for
// git apply; "" for none).
func runGitIn(ctx context.Context, dir string, env []string, stdin string, args []string, okCodes ...int) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.fsmonitor=false"}, args...)...)
	// Never take an optional index lock: the agent in the pane may be
	// committing (git apply --cached takes the lock it needs).
	cmd.Env = append(append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		for _, c := range okCodes {
			if ee.ExitCode() == c {
				return out.String(), nil
			}
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return out.String(), nil
}

// repoFilters returns the environment that turns off the content filters
// (filter.<driver>.clean, .smudge and .process) that the repository at
// root configures itself (scope local or worktree, includes followed):
// git diff runs a clean filter on every changed file it compares, and a
// repository is not trusted to run programs. Filters of the user's own
// (global) or the system's configuration, such as Git LFS, are kept.
// The settings go in GIT_CONFIG_COUNT/KEY/VALUE, which the git
// subprocesses of a diff inherit too.
func repoFilters(ctx context.Context, root string) []string {
	out, _ := runGit(ctx, root, []string{"config", "--show-scope", "--name-only", "--get-regexp", `^filter\.`}, 1)
	var keys []string
	for _, l := range strings.Split(out, "\n") {
		scope, key, ok := strings.Cut(l, "\t")
		if !ok || scope == "global" || scope == "system" {
			continue
		}
		lk := strings.ToLower(key)
		if strings.HasSuffix(lk, ".clean") || strings.HasSuffix(lk, ".smudge") || strings.HasSuffix(lk, ".process") {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	env := []string{fmt.Sprintf("GIT_CONFIG_COUNT=%d", len(keys))}
	for i, k := range keys {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, k), fmt.Sprintf("GIT_CONFIG_VALUE_%d=", i))
	}
	return env
}

// diffOpts are the options of every git diff of the view: no program the
// repository configures (textconv, external diff) runs, a submodule's
// work tree is not inspected (git would run git status in it, with that
// repository's configuration), and the paths carry git's usual a/ and b/
// whatever diff.noprefix or diff.mnemonicPrefix say (the parser and git
// apply -p1 expect them).
var diffOpts = []string{"--no-textconv", "--no-ext-diff", "--ignore-submodules=dirty", "--src-prefix=a/", "--dst-prefix=b/"}

// loadGitDiff reads the changes of the repository holding dir with git,
// against its branch point ([scopeBranch]).
func loadGitDiff(ctx context.Context, dir string) (*gitDiff, error) {
	return loadScopedDiff(ctx, dir, scopeBranch)
}

// loadScopedDiff reads the changes of the repository holding dir that
// scope names: against the branch point, the work tree against the index
// (untracked files included), or the index against HEAD.
func loadScopedDiff(ctx context.Context, dir, scope string) (*gitDiff, error) {
	root, err := runGit(ctx, dir, []string{"rev-parse", "--show-toplevel"})
	if err != nil {
		return nil, err
	}
	d := &gitDiff{Root: strings.TrimSpace(root), Scope: scope}
	if b, err := runGit(ctx, d.Root, []string{"symbolic-ref", "--quiet", "--short", "HEAD"}, 1); err == nil {
		d.Branch = strings.TrimSpace(b)
	}
	d.Base = emptyTree
	if _, err := runGit(ctx, d.Root, []string{"rev-parse", "--verify", "--quiet", "HEAD^{commit}"}); err == nil {
		d.Base = "HEAD"
		for _, c := range baseCandidates {
			if _, err := runGit(ctx, d.Root, []string{"rev-parse", "--verify", "--quiet", c + "^{commit}"}); err != nil {
				continue
			}
			mb, err := runGit(ctx, d.Root, []string{"merge-base", "HEAD", c})
			if err != nil {
				continue
			}
			d.BaseRef, d.Base = c, strings.TrimSpace(mb)
			break
		}
	}
	filters := repoFilters(ctx, d.Root)
	diff := func(args ...string) []string { return append(append([]string{"diff"}, diffOpts...), args...) }
	// against is what the diff compares the work tree (or index) with.
	against := []string{d.Base, "--"}
	switch scope {
	case scopeUnstaged:
		against = []string{"--"}
	case scopeStaged:
		against = []string{"--cached", "--"}
	}
	// The file list, the diff and the untracked files are read at once:
	// three git processes that do not depend on each other.
	var names, text, untracked string
	var nameErr, textErr, lsErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		names, nameErr = runGitEnv(ctx, d.Root, filters, diff(append([]string{"--name-status"}, against...)...))
	}()
	go func() {
		defer wg.Done()
		if scope != scopeStaged { // the index holds no untracked file
			untracked, lsErr = runGit(ctx, d.Root, []string{"ls-files", "--others", "--exclude-standard"})
		}
	}()
	text, textErr = runGitEnv(ctx, d.Root, filters, diff(append([]string{"--no-color"}, against...)...))
	wg.Wait()
	if err := cmp.Or(nameErr, textErr, lsErr); err != nil {
		return nil, err
	}
	for _, l := range strings.Split(names, "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 2 || f[0] == "" {
			continue
		}
		d.Files = append(d.Files, diffFile{Status: f[0][:1], Path: f[len(f)-1]})
	}
	var sb strings.Builder
	sb.WriteString(text)
	shown := 0
	for _, p := range strings.Split(untracked, "\n") {
		if p == "" {
			continue
		}
		d.Files = append(d.Files, diffFile{Status: "?", Path: p})
		if shown < maxUntrackedDiffs && sb.Len() < maxDiffBytes {
			shown++
			t, err := runGitEnv(ctx, d.Root, filters, diff("--no-color", "--no-index", "--", os.DevNull, p), 1)
			if err == nil {
				sb.WriteString(t)
			}
		}
	}
	d.Text = sb.String()
	if len(d.Text) > maxDiffBytes {
		d.Text, d.Truncated = d.Text[:maxDiffBytes], true
	}
	return d, nil
}

// Diff colours (readable on the dark and the light theme).
var (
	diffAdd    = color.NRGBA{R: 0x3f, G: 0xb9, B: 0x50, A: 0xff}
	diffDel    = color.NRGBA{R: 0xf8, G: 0x51, B: 0x49, A: 0xff}
	diffHunk   = color.NRGBA{R: 0x58, G: 0xa6, B: 0xff, A: 0xff}
	diffHeader = color.NRGBA{R: 0xd2, G: 0x99, B: 0x22, A: 0xff}
)

// diffView is the open Diff view of one directory: the changed files and
// the review comments on the left, the diff on the right (unified or side
// by side, with line numbers, comments under their lines, failing checks
// fenced above), reloaded when files under the work tree change. A tap
// on a line selects it (Shift+tap: the range up to it) for a comment.
// The review buttons (send, checks, land, pull request) call the
// server's review.*, checks.* and land.* methods through the backend, so
// they work the same in an embedded and an attached window.
// Its fields are used on the UI goroutine; its loads, its watcher and its
// calls run on their own goroutines until cancel.
type diffView struct {
	dir     string
	header  *widget.Label
	files   *fyne.Container
	grid    *diffGrid
	openBtn *widget.Button
	diff    *gitDiff
	err     error
	loads   int    // loads shown so far
	file    string // the file shown alone, "" for all
	// fileRows are the file list's rows by the path each shows ("": All
	// files); the row of file is highlighted.
	fileRows map[string]*hoverRow
	// pathLine is the view's last line: the full path of the file row
	// under the pointer, else the work tree's root (the header and the
	// list shorten them).
	pathLine *widget.Label
	pop      *popup
	ctx      context.Context // ends when the view closes
	cancel   context.CancelFunc
	// reload asks the watcher for a load now (a land moved the base,
	// which no file of the work tree shows).
	reload chan struct{}

	lines []diffLine // the diff, parsed
	refs  []rowRef   // what each grid row shows
	mode  *widget.RadioGroup

	// scope chooses what is compared (scopeBranch, scopeUnstaged,
	// scopeStaged); scopeNow is its choice for the loading goroutine.
	scope    *widget.RadioGroup
	scopeNow atomic.Value
	// hunk is the index in lines of the chosen hunk's @@ line, -1 none;
	// busy the hunk action running ("" none); reverted the hunks
	// reverted while the view is open, the last one first to undo.
	hunk                         int
	busy                         string
	reverted                     []revertedHunk
	stageBtn, revertBtn, undoBtn *widget.Button

	// selFrom and selTo are the selected rows (the first tapped, the
	// last; -1: none), selPath and selStart..selEnd the file's lines
	// they hold (the comment's place).
	selFrom, selTo   int
	selPath          string
	selStart, selEnd int

	comments    []proto.ReviewComment // open comments, re-anchored (review.list)
	commentList *fyne.Container
	commentBox  *fyne.Container // the new comment's editor, shown with a selection
	commentWhat *widget.Label
	commentText *keyEntry
	commentAdd  *widget.Button

	checks    []proto.CheckResult // checks.status / checks.run
	checksCfg bool                // the repository configures checks

	status   *widget.Label // what the last review action did
	sendBtn  *widget.Button
	checkBtn *widget.Button
	failBtn  *widget.Button // sends the first failing check to the agent
	landBtn  *widget.Button
	prBtn    *widget.Button
	prWhy    *widget.Label // why prBtn is disabled

	// landWith is the land dialog's strategy choice, and answers the
	// buttons of the land dialogs last shown, by their text (tests tap
	// them).
	landWith *widget.RadioGroup
	answers  map[string]*widget.Button
}

// diffGrid is the Diff view's text grid, whose rows take taps: a tap
// selects a line, Shift+tap extends the selection to it.
type diffGrid struct {
	widget.TextGrid
	onTap func(row int, extend bool)
	shift bool // Shift was held at the last mouse press
}

func newDiffGrid(onTap func(row int, extend bool)) *diffGrid {
	g := &diffGrid{onTap: onTap}
	g.Scroll = fyne.ScrollBoth
	g.ExtendBaseWidget(g)
	return g
}

// MouseDown notes whether Shift is held for the tap that follows.
func (g *diffGrid) MouseDown(ev *desktop.MouseEvent) {
	g.shift = ev.Modifier&fyne.KeyModifierShift != 0
}

// MouseUp does nothing (desktop.Mouseable).
func (g *diffGrid) MouseUp(*desktop.MouseEvent) {}

// Tapped selects the row under the pointer.
func (g *diffGrid) Tapped(ev *fyne.PointEvent) {
	row, _ := g.CursorLocationForPosition(ev.Position)
	extend := g.shift
	g.shift = false
	if g.onTap != nil && row >= 0 && row < len(g.Rows) {
		g.onTap(row, extend)
	}
}

var _ desktop.Mouseable = (*diffGrid)(nil)

// openDiffLocked opens the Diff view of the focused pane's directory (or
// closes it when open).
func (s *shell) openDiffLocked() {
	if s.dv != nil {
		s.closeDiffLocked()
		return
	}
	dir := s.focusedCwdLocked()
	if dir == "" {
		s.banner.show("diff: the focused pane's directory is not known")
		return
	}
	s.openDiffInLocked(dir)
}

// openChecksLocked answers a tap on pane id's checks badge: the pane
// gets the focus and the Diff view opens on its work tree (in place of
// one open elsewhere), where the checks' output and actions are.
func (s *shell) openChecksLocked(id uint64) {
	root := ""
	if s.snap != nil {
		root = s.snap.Roots[id]
	}
	if root == "" {
		return
	}
	s.mutate("focus", func() error { return s.b.Focus(id) })
	if s.dv != nil {
		s.closeDiffLocked()
	}
	s.openDiffInLocked(root)
}

// openDiffInLocked opens the Diff view on the work tree dir is in.
func (s *shell) openDiffInLocked(dir string) {
	s.closeOverlaysLocked()
	ctx, cancel := context.WithCancel(context.Background())
	dv := &diffView{dir: dir, ctx: ctx, cancel: cancel, selFrom: -1, selTo: -1, hunk: -1, reload: make(chan struct{}, 1),
		header: widget.NewLabelWithStyle("Diff — "+dir+" (loading…)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		files:  container.NewVBox(), commentList: container.NewVBox(), status: widget.NewLabel(""), answers: map[string]*widget.Button{}}
	dv.status.Wrapping = fyne.TextWrapWord
	dv.pathLine = widget.NewLabel(dir)
	dv.pathLine.Truncation = fyne.TextTruncateEllipsis
	dv.pathLine.Importance = widget.LowImportance
	dv.grid = newDiffGrid(func(row int, extend bool) {
		s.guard(func() {
			s.chooseHunkLocked(dv, row)
			s.selectDiffRowLocked(dv, row, extend)
		})
	})
	dv.openBtn = widget.NewButtonWithIcon("Open folder", theme.FolderOpenIcon(), func() {
		s.guard(func() {
			root := dv.dir
			if dv.diff != nil {
				root = dv.diff.Root
			}
			if err := s.a.OpenURL(&url.URL{Scheme: "file", Path: root}); err != nil {
				s.banner.show("open folder: " + err.Error())
			}
		})
	})
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { s.guard(s.closeDiffLocked) })
	closeBtn.Importance = widget.LowImportance
	dv.mode = widget.NewRadioGroup([]string{diffUnified, diffSplit}, func(string) { s.guard(func() { s.renderDiffLocked(dv) }) })
	dv.mode.Horizontal, dv.mode.Required = true, true
	dv.mode.Selected = diffUnified
	dv.scopeNow.Store(scopeBranch)
	dv.scope = widget.NewRadioGroup([]string{scopeBranch, scopeUnstaged, scopeStaged}, func(sc string) {
		s.guard(func() {
			dv.scopeNow.Store(sc)
			s.markHunkLocked(dv)
			select {
			case dv.reload <- struct{}{}:
			default:
			}
		})
	})
	dv.scope.Horizontal, dv.scope.Required = true, true
	dv.scope.Selected = scopeBranch
	hunkBtns := s.hunkButtons(dv)
	dv.sendBtn = widget.NewButtonWithIcon("Send to agent", theme.MailSendIcon(), func() { s.guard(func() { s.sendReviewLocked(dv) }) })
	dv.checkBtn = widget.NewButtonWithIcon("Run checks", theme.MediaPlayIcon(), func() { s.guard(func() { s.runChecksLocked(dv) }) })
	dv.failBtn = widget.NewButtonWithIcon("Send failure to agent", theme.MailForwardIcon(), func() { s.guard(func() { s.sendFailureLocked(dv) }) })
	dv.landBtn = widget.NewButtonWithIcon("Land…", theme.ConfirmIcon(), func() { s.guard(func() { s.openLandLocked(dv) }) })
	dv.prBtn = widget.NewButtonWithIcon("Open pull request", theme.UploadIcon(), func() { s.guard(func() { s.openPRLocked(dv) }) })
	for _, b := range []*widget.Button{dv.sendBtn, dv.checkBtn, dv.failBtn, dv.landBtn, dv.prBtn} {
		b.Disable() // until the first load names the worktree
	}
	dv.commentWhat = widget.NewLabel("")
	dv.commentText = newKeyEntry(true)
	dv.commentText.SetPlaceHolder("Your comment for the agent (Ctrl+Enter adds it)")
	dv.commentText.SetMinRowsVisible(3)
	dv.commentText.onShortcut = func(sc fyne.Shortcut) bool {
		if k, ok := sc.(*desktop.CustomShortcut); ok && k.KeyName == fyne.KeyReturn && k.Modifier == fyne.KeyModifierControl {
			s.guard(func() { s.addCommentLocked(dv) })
			return true
		}
		return false
	}
	dv.commentAdd = widget.NewButtonWithIcon("Add comment", theme.ContentAddIcon(), func() { s.guard(func() { s.addCommentLocked(dv) }) })
	dv.commentAdd.Importance = widget.HighImportance
	cancelSel := widget.NewButton("Cancel", func() { s.guard(func() { s.selectDiffRowLocked(dv, -1, false) }) })
	dv.commentBox = container.NewBorder(dv.commentWhat, nil, nil, container.NewVBox(dv.commentAdd, cancelSel), dv.commentText)
	dv.commentBox.Hide()
	top := container.NewBorder(nil, nil, nil, container.NewHBox(dv.openBtn, closeBtn), dv.header)
	dv.prWhy = widget.NewLabel("")
	dv.prWhy.Truncation = fyne.TextTruncateEllipsis
	dv.prWhy.Importance = widget.LowImportance
	bar := container.NewBorder(nil, nil, container.NewHBox(dv.mode, widget.NewSeparator(), dv.sendBtn, dv.checkBtn, dv.failBtn, widget.NewSeparator(), dv.landBtn, dv.prBtn), nil, dv.prWhy)
	hunkBar := container.NewHBox(widget.NewLabel("Compare:"), dv.scope, widget.NewSeparator(), hunkBtns[0], hunkBtns[1], hunkBtns[2])
	commentsHead := widget.NewLabelWithStyle("Comments", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	left := container.NewVSplit(container.NewVScroll(dv.files), container.NewBorder(commentsHead, nil, nil, nil, container.NewVScroll(dv.commentList)))
	left.Offset = 0.6
	right := container.NewBorder(nil, dv.commentBox, nil, nil, dv.grid)
	split := container.NewHSplit(left, right)
	split.Offset = 0.25
	s.dv = dv
	csize := s.w.Canvas().Size()
	dv.pop = s.showPopupLocked(container.NewBorder(container.NewVBox(top, bar, hunkBar, dv.status), dv.pathLine, nil, nil, split), fyne.NewSize(csize.Width-40, csize.Height-40), nil)
	s.w.Canvas().Unfocus()
	s.markHunkLocked(dv)
	go s.runDiff(ctx, dv)
}

// focusedCwdLocked is the focused pane's working directory, else its
// workspace's; "" when neither is known, or when they are another host's
// (the diff view and the launch pad read this machine's files).
func (s *shell) focusedCwdLocked() string {
	if s.snap == nil || hostSlot(s.focus) != 0 || hostSlot(s.snap.Active.ID) != 0 {
		return ""
	}
	for _, in := range s.snap.Surfaces {
		if in.ID == s.focus && in.Cwd != nil && *in.Cwd != "" {
			return *in.Cwd
		}
	}
	if s.snap.HasActive {
		return s.snap.Active.Cwd
	}
	return ""
}

// closeDiffLocked closes the Diff view and stops its watcher.
func (s *shell) closeDiffLocked() {
	if s.dv == nil {
		return
	}
	s.dv.cancel()
	s.dv.pop.close()
	s.dv = nil
	s.focusViewLocked(s.focus)
}

// runDiff loads dv's diff, then watches the work tree and loads it again
// (debounced) whenever a file in it changes, until ctx ends.
func (s *shell) runDiff(ctx context.Context, dv *diffView) {
	load := func() {
		lctx, cancel := context.WithTimeout(ctx, gitTimeout)
		d, err := loadScopedDiff(lctx, dv.dir, dv.scopeNow.Load().(string))
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.do(func() {
			if s.dv == dv {
				s.showDiffLocked(dv, d, err)
			}
		})
	}
	// The watch starts before the first load, so no change falls between.
	root, err := runGit(ctx, dv.dir, []string{"rev-parse", "--show-toplevel"})
	if err != nil {
		load() // shows git's error
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.do(func() { s.banner.show("diff: watching for changes: " + err.Error()) })
		load()
		return
	}
	defer w.Close()
	// The index and HEAD change without a file of the work tree changing
	// (git add, a commit): the git directory's own entries are watched
	// too, for the Unstaged and Staged scopes.
	gitDir, _ := runGit(ctx, dv.dir, []string{"rev-parse", "--absolute-git-dir"})
	if gitDir = strings.TrimSpace(gitDir); gitDir != "" {
		_ = w.Add(gitDir)
	}
	n := 0
	_ = filepath.WalkDir(strings.TrimSpace(root), func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return nil
		}
		if name := e.Name(); name == ".git" || name == "node_modules" {
			return filepath.SkipDir
		}
		if n++; n > maxWatchedDirs {
			return filepath.SkipAll
		}
		_ = w.Add(p)
		return nil
	})
	load()
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-w.Events:
			if gitDir != "" && filepath.Dir(ev.Name) == gitDir {
				if b := filepath.Base(ev.Name); b != "index" && b != "HEAD" {
					continue
				}
			} else if ev.Op&fsnotify.Create != 0 {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && filepath.Base(ev.Name) != ".git" {
					_ = w.Add(ev.Name)
				}
			}
			if timer == nil {
				timer = time.After(diffDebounce)
			}
		case <-w.Errors:
		case <-timer:
			timer = nil
			load()
		case <-dv.reload:
			load()
		}
	}
}

// showDiffLocked shows a load's result, then asks the server for the
// worktree's comments and checks.
func (s *shell) showDiffLocked(dv *diffView, d *gitDiff, err error) {
	if d != nil && d.Scope != dv.scope.Selected {
		return // read before the scope changed; the new scope's load follows
	}
	dv.loads++
	dv.diff, dv.err = d, err
	if err != nil {
		dv.header.SetText("Diff — " + dv.dir + ": " + err.Error())
		dv.lines, dv.hunk = nil, -1
		dv.grid.Rows, dv.refs = nil, nil
		s.markHunkLocked(dv)
		return
	}
	what := d.Branch
	if what == "" {
		what = "detached HEAD"
	}
	base := d.BaseRef
	switch {
	case d.Base == emptyTree:
		base = "an empty repository"
	case base == "":
		base = "HEAD"
	default:
		base += " (" + shortHash(d.Base) + ")"
	}
	title := fmt.Sprintf("Diff — %s · %s against %s · %d files", s.side.shortPath(d.Root), what, base, len(d.Files))
	none := "No changes against " + base + "."
	switch d.Scope {
	case scopeUnstaged:
		title = fmt.Sprintf("Diff — %s · %s: unstaged changes (the files against the index) · %d files", s.side.shortPath(d.Root), what, len(d.Files))
		none = "No unstaged changes: the files match the index."
	case scopeStaged:
		title = fmt.Sprintf("Diff — %s · %s: staged changes (the index against HEAD) · %d files", s.side.shortPath(d.Root), what, len(d.Files))
		none = "Nothing staged: the index matches HEAD."
	}
	if d.Truncated {
		title += " (cut at 2 MiB)"
	}
	dv.header.SetText(title)
	dv.pathLine.SetText(d.Root)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	dv.fileRows = map[string]*hoverRow{}
	objs := []fyne.CanvasObject{s.diffFileRow(dv, diffFile{}, "", "All files", muted)}
	for _, f := range d.Files {
		c := theme.Color(theme.ColorNameForeground)
		switch f.Status {
		case "A", "?":
			c = diffAdd
		case "D":
			c = diffDel
		case "M", "R":
			c = diffHeader
		}
		objs = append(objs, s.diffFileRow(dv, f, f.Status+"  ", f.Path, c))
	}
	dv.files.Objects = objs
	dv.files.Refresh()
	if _, ok := dv.fileRows[dv.file]; !ok {
		dv.file = "" // the file shown alone has no changes left: all of them
	}
	// The chosen hunk is found again by its file and @@ line.
	var chosen diffLine
	if dv.hunk >= 0 && dv.hunk < len(dv.lines) {
		chosen = dv.lines[dv.hunk]
	}
	dv.lines = parseDiff(d.Text)
	if len(d.Files) == 0 {
		dv.lines = []diffLine{{kind: 'h', text: none}}
	}
	dv.hunk = -1
	for i, l := range dv.lines {
		if chosen.kind == '@' && l.kind == '@' && l.file == chosen.file && l.text == chosen.text {
			dv.hunk = i
			break
		}
	}
	s.renderDiffLocked(dv)
	dv.checkBtn.Enable()
	if d.Branch != "" {
		dv.landBtn.Enable()
	}
	if dv.loads == 1 {
		s.checkPRLocked(dv)
	}
	s.refreshReviewLocked(dv)
}

// renderDiffLocked renders dv's diff, comments and checks into its grid
// in the chosen mode; the selection is dropped when the rows move.
func (s *shell) renderDiffLocked(dv *diffView) {
	r := diffRender{lines: dv.lines, mode: dv.mode.Selected, file: dv.file, comments: dv.comments, checks: dv.checks}
	dv.grid.Rows, dv.refs = r.rows()
	for path, row := range dv.fileRows {
		row.setHighlight(path == dv.file)
	}
	s.reselectLocked(dv)
	s.markHunkLocked(dv)
}

// diffFileRow is a tappable row of the file list: it shows that file's
// diff alone (or, for the first row, all of them). Its path is cut from
// the left to the list's width; under the pointer, the view's path line
// shows it whole.
func (s *shell) diffFileRow(dv *diffView, f diffFile, prefix, label string, c color.Color) fyne.CanvasObject {
	row := newHoverRow(container.NewPadded(newPathText(prefix, label, c)), func() {
		s.guard(func() {
			if s.dv != dv || dv.diff == nil {
				return
			}
			dv.file = f.Path
			s.renderDiffLocked(dv)
		})
	}, func(in bool) {
		s.guard(func() {
			if s.dv != dv || dv.diff == nil {
				return
			}
			if in && f.Path != "" {
				dv.pathLine.SetText(filepath.Join(dv.diff.Root, filepath.FromSlash(f.Path)) + " (" + statusWord(f.Status) + ")")
			} else {
				dv.pathLine.SetText(dv.diff.Root)
			}
		})
	})
	dv.fileRows[f.Path] = row
	return row
}

// statusWord names git's status letter of a file.
func statusWord(st string) string {
	switch st {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "M":
		return "modified"
	case "R":
		return "renamed"
	case "C":
		return "copied"
	case "T":
		return "type changed"
	case "?":
		return "untracked"
	}
	return "changed"
}

// shortHash is a commit id's first 8 characters.
func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}
