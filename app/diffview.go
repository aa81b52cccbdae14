package app

import (
	"bytes"
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
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/fsnotify/fsnotify"
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
	BaseRef   string     // the ref compared with ("main"), "" when none
	Base      string     // the commit compared with (the merge base)
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
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.fsmonitor=false"}, args...)...)
	// Never take the index lock: the agent in the pane may be committing.
	cmd.Env = append(append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), env...)
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
// repository configures (textconv, external diff) runs, and a submodule's
// work tree is not inspected (git would run git status in it, with that
// repository's configuration).
var diffOpts = []string{"--no-textconv", "--no-ext-diff", "--ignore-submodules=dirty"}

// loadGitDiff reads the changes of the repository holding dir with git.
func loadGitDiff(ctx context.Context, dir string) (*gitDiff, error) {
	root, err := runGit(ctx, dir, []string{"rev-parse", "--show-toplevel"})
	if err != nil {
		return nil, err
	}
	d := &gitDiff{Root: strings.TrimSpace(root)}
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
	names, err := runGitEnv(ctx, d.Root, filters, diff("--name-status", d.Base, "--"))
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(names, "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 2 || f[0] == "" {
			continue
		}
		d.Files = append(d.Files, diffFile{Status: f[0][:1], Path: f[len(f)-1]})
	}
	text, err := runGitEnv(ctx, d.Root, filters, diff("--no-color", d.Base, "--"))
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	sb.WriteString(text)
	untracked, err := runGit(ctx, d.Root, []string{"ls-files", "--others", "--exclude-standard"})
	if err != nil {
		return nil, err
	}
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

// diffLineKind classifies a unified diff line for colouring.
func diffLineKind(l string) string {
	switch {
	case strings.HasPrefix(l, "diff --git"), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "),
		strings.HasPrefix(l, "index "), strings.HasPrefix(l, "new file"), strings.HasPrefix(l, "deleted file"),
		strings.HasPrefix(l, "similarity"), strings.HasPrefix(l, "rename "):
		return "header"
	case strings.HasPrefix(l, "@@"):
		return "hunk"
	case strings.HasPrefix(l, "+"):
		return "add"
	case strings.HasPrefix(l, "-"):
		return "del"
	}
	return ""
}

// Diff colours (readable on the dark and the light theme).
var (
	diffAdd    = color.NRGBA{R: 0x3f, G: 0xb9, B: 0x50, A: 0xff}
	diffDel    = color.NRGBA{R: 0xf8, G: 0x51, B: 0x49, A: 0xff}
	diffHunk   = color.NRGBA{R: 0x58, G: 0xa6, B: 0xff, A: 0xff}
	diffHeader = color.NRGBA{R: 0xd2, G: 0x99, B: 0x22, A: 0xff}
)

// diffRows turns diff text into coloured text grid rows.
func diffRows(text string) []widget.TextGridRow {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	rows := make([]widget.TextGridRow, 0, len(lines))
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ")
		var st widget.TextGridStyle
		switch diffLineKind(l) {
		case "header":
			st = &widget.CustomTextGridStyle{FGColor: diffHeader, TextStyle: fyne.TextStyle{Bold: true, Monospace: true}}
		case "hunk":
			st = &widget.CustomTextGridStyle{FGColor: diffHunk}
		case "add":
			st = &widget.CustomTextGridStyle{FGColor: diffAdd}
		case "del":
			st = &widget.CustomTextGridStyle{FGColor: diffDel}
		}
		cells := make([]widget.TextGridCell, 0, len(l))
		for _, r := range l {
			cells = append(cells, widget.TextGridCell{Rune: r})
		}
		rows = append(rows, widget.TextGridRow{Cells: cells, Style: st})
	}
	return rows
}

// fileDiff is the part of diff text about path ("" for all of it).
func fileDiff(text, path string) string {
	if path == "" {
		return text
	}
	var out []string
	in := false
	for _, l := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(l, "diff --git ") {
			in = strings.HasSuffix(strings.TrimRight(l, "\n"), " b/"+path)
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// diffView is the open Diff view of one directory: the changed files on
// the left, the coloured diff on the right, reloaded when files under
// the work tree change. Its fields are used on the UI goroutine; its
// loads and its watcher run on their own goroutines until cancel.
type diffView struct {
	dir     string
	header  *widget.Label
	files   *fyne.Container
	grid    *widget.TextGrid
	openBtn *widget.Button
	diff    *gitDiff
	err     error
	loads   int    // loads shown so far
	file    string // the file shown alone, "" for all
	pop     *popup
	cancel  context.CancelFunc
}

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
	s.closeOverlaysLocked()
	ctx, cancel := context.WithCancel(context.Background())
	dv := &diffView{dir: dir, cancel: cancel,
		header: widget.NewLabelWithStyle("Diff — "+dir+" (loading…)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		files:  container.NewVBox(), grid: widget.NewTextGrid()}
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
	top := container.NewBorder(nil, nil, nil, container.NewHBox(dv.openBtn, closeBtn), dv.header)
	left := container.NewVScroll(dv.files)
	split := container.NewHSplit(left, dv.grid)
	split.Offset = 0.25
	s.dv = dv
	csize := s.w.Canvas().Size()
	dv.pop = s.showPopupLocked(container.NewBorder(top, nil, nil, nil, split), fyne.NewSize(csize.Width-40, csize.Height-40), nil)
	s.w.Canvas().Unfocus()
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
		d, err := loadGitDiff(lctx, dv.dir)
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
			if ev.Op&fsnotify.Create != 0 {
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
		}
	}
}

// showDiffLocked shows a load's result.
func (s *shell) showDiffLocked(dv *diffView, d *gitDiff, err error) {
	dv.loads++
	dv.diff, dv.err = d, err
	if err != nil {
		dv.header.SetText("Diff — " + dv.dir + ": " + err.Error())
		dv.grid.Rows = nil
		dv.grid.Refresh()
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
	if d.Truncated {
		title += " (cut at 2 MiB)"
	}
	dv.header.SetText(title)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	objs := []fyne.CanvasObject{s.diffFileRow(dv, diffFile{}, "All files", muted)}
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
		objs = append(objs, s.diffFileRow(dv, f, f.Status+"  "+f.Path, c))
	}
	dv.files.Objects = objs
	dv.files.Refresh()
	dv.grid.Rows = diffRows(fileDiff(d.Text, dv.file))
	if len(d.Files) == 0 {
		dv.grid.Rows = diffRows("No changes against " + base + ".")
	}
	dv.grid.Refresh()
}

// diffFileRow is a tappable row of the file list: it shows that file's
// diff alone (or, for the first row, all of them).
func (s *shell) diffFileRow(dv *diffView, f diffFile, label string, c color.Color) fyne.CanvasObject {
	t := canvas.NewText(label, c)
	t.TextStyle.Monospace = true
	t.TextSize = nameSize
	return newTapBox(container.NewPadded(t), func() {
		s.guard(func() {
			if s.dv != dv || dv.diff == nil {
				return
			}
			dv.file = f.Path
			dv.grid.Rows = diffRows(fileDiff(dv.diff.Text, dv.file))
			dv.grid.Refresh()
		})
	})
}

// shortHash is a commit id's first 8 characters.
func shortHash(h string) string {
	if len(h) > 8 {
		return h[:8]
	}
	return h
}
