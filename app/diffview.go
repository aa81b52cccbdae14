package app

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"net/url"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/paneflow-go/paneflow/internal/gitdiff"
	"github.com/paneflow-go/paneflow/internal/treewatch"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// Limits of the diff view.
const (
	// remoteDiffEvery is how long the Diff view of a pane on another host
	// waits before it opens the host's review.watch again after it could
	// not (the host is not connected) or it ended, and how often it asks
	// a host whose server has no review.watch.
	remoteDiffEvery = 2 * time.Second
	// gitTimeout bounds one load.
	gitTimeout = 30 * time.Second
)

// emptyTree is git's empty tree, the base of a repository without commits.
const emptyTree = gitdiff.EmptyTree

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
	Truncated bool       // Text was cut at gitdiff.MaxBytes
}

// diffFile is one changed file: git's status letter (M, A, D, R, …; "?"
// untracked) and its path relative to Root.
type diffFile struct {
	Status string
	Path   string
}

// runGit runs git in dir and returns its output (see [gitdiff.Run]).
func runGit(ctx context.Context, dir string, args []string, okCodes ...int) (string, error) {
	return gitdiff.Run(ctx, dir, args, okCodes...)
}

// runGitIn is runGit with more environment variables and stdin as git's
// standard input (see [gitdiff.RunIn]).
func runGitIn(ctx context.Context, dir string, env []string, stdin string, args []string, okCodes ...int) (string, error) {
	return gitdiff.RunIn(ctx, dir, env, stdin, args, okCodes...)
}

// repoFilters turns off the content filters the repository at root
// configures itself (see [gitdiff.RepoFilters]).
func repoFilters(ctx context.Context, root string) []string { return gitdiff.RepoFilters(ctx, root) }

// loadGitDiff reads the changes of the repository holding dir with git,
// against its branch point ([scopeBranch]).
func loadGitDiff(ctx context.Context, dir string) (*gitDiff, error) {
	return loadScopedDiff(ctx, dir, scopeBranch)
}

// scopeWire is review.diff's name of each of the view's scopes.
var scopeWire = map[string]string{scopeBranch: proto.DiffScopeBranch, scopeUnstaged: proto.DiffScopeUnstaged, scopeStaged: proto.DiffScopeStaged}

// loadScopedDiff reads the changes of the repository holding dir that
// scope names: against the branch point, the work tree against the index
// (untracked files included), or the index against HEAD (package
// gitdiff, as a host's server does for review.diff).
func loadScopedDiff(ctx context.Context, dir, scope string) (*gitDiff, error) {
	r, err := gitdiff.Load(ctx, dir, scopeWire[scope])
	if err != nil {
		return nil, err
	}
	return viewDiff(r, scope), nil
}

// viewDiff is a diff read for scope (here or by a host's server) as the
// view keeps it.
func viewDiff(r *proto.ReviewDiffResult, scope string) *gitDiff {
	d := &gitDiff{Root: r.Root, Branch: r.Branch, Scope: scope, BaseRef: r.BaseRef, Base: r.Base, Text: r.Text, Truncated: r.Truncated}
	for _, f := range r.Files {
		d.Files = append(d.Files, diffFile{Status: f.Status, Path: f.Path})
	}
	return d
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
// It is a panel over a diffHost (openDiffInLocked builds it): its fields
// are used on the UI goroutine holding the shell's lock (host.guard in
// its callbacks, host.do for its goroutines' outcomes); its loads, its
// watcher and its calls run on their own goroutines until cancel.
type diffView struct {
	widget.BaseWidget
	host diffHost
	// short shortens this machine's paths (the sidebar's shortPath).
	short func(string) string
	body  fyne.CanvasObject
	dir   string
	// slot is the host the directory is on (0: this machine); another
	// host's diff is read by that host's server (review.diff) every
	// remoteDiffEvery, and its review calls go to that server.
	slot int
	// where names that host ("ssh://build"), "" for this machine.
	where string
	// remote: the directory is another machine's (slot is not 0, or the
	// window's own server is another host's: --host --attach). git then
	// runs there (review.diff), and what would run here is off.
	remote  bool
	header  *widget.Label
	files   *fyne.Container
	grid    *diffGrid
	openBtn *passButton
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
	calls    // its git ends when the view closes
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
	stageBtn, revertBtn, undoBtn *passButton
	// hints names the view's keys (the keymap's DiffView actions).
	hints *widget.Label

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
	commentAdd  *passButton

	checks    []proto.CheckResult // checks.status / checks.run
	checksCfg bool                // the repository configures checks

	status   *widget.Label // what the last review action did
	sendBtn  *passButton
	checkBtn *passButton
	failBtn  *passButton // sends the first failing check to the agent
	landBtn  *passButton
	prBtn    *passButton
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
	// scroller is the grid's own scroller once its renderer exists (for
	// showRow); TextGrid keeps it private.
	scroller fyne.Scrollable
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

// CreateRenderer is TextGrid's, noting its scroller for showRow.
func (g *diffGrid) CreateRenderer() fyne.WidgetRenderer {
	r := g.TextGrid.CreateRenderer()
	if objs := r.Objects(); len(objs) > 0 {
		g.scroller, _ = objs[0].(fyne.Scrollable)
	}
	return r
}

// showRow scrolls the grid so that row is in view, with a few rows above
// it, when it is not in view already.
func (g *diffGrid) showRow(row int) {
	if g.scroller == nil || row < 0 || row >= len(g.Rows) {
		return
	}
	top := g.PositionForCursorLocation(row, 0).Y // from the visible top
	cell := g.PositionForCursorLocation(row+1, 0).Y - top
	if cell <= 0 || (top >= 0 && top+cell <= g.Size().Height) {
		return
	}
	// The scroller lays its content out again for the rows as they are
	// now (a refresh of the grid does not reach it), then Scrolled moves
	// the content by the delta, kept within the content.
	if o, ok := g.scroller.(fyne.CanvasObject); ok {
		o.Refresh()
	}
	g.scroller.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.NewDelta(0, -(top - 3*cell))})
}

var _ desktop.Mouseable = (*diffGrid)(nil)

// openDiffLocked opens the Diff view of the focused pane's directory, on
// whichever host the pane is (or closes the view when open).
func (s *shell) openDiffLocked() {
	if closeShownPanelLocked[*diffView](s) {
		return
	}
	slot, dir := s.focusedDirLocked()
	if dir == "" {
		s.chrome.banner.show("diff: the focused pane's directory is not known")
		return
	}
	s.openDiffInLocked(slot, dir)
}

// focusedDirLocked is the focused pane's working directory, else its
// workspace's, and the host it is on (0: this machine); "" when neither
// is known.
func (s *shell) focusedDirLocked() (slot int, dir string) {
	if s.pos.snap == nil {
		return 0, ""
	}
	for _, in := range s.pos.snap.Surfaces {
		if in.ID == s.pos.focus && in.Cwd != nil && *in.Cwd != "" {
			return hostSlot(in.ID), *in.Cwd
		}
	}
	if s.pos.snap.HasActive && s.pos.snap.Active.Cwd != "" {
		return hostSlot(s.pos.snap.Active.ID), s.pos.snap.Active.Cwd
	}
	return 0, ""
}

// openChecksLocked answers a tap on pane id's checks badge: the pane
// gets the focus and the Diff view opens on its work tree (in place of
// one open elsewhere), where the checks' output and actions are.
func (s *shell) openChecksLocked(id uint64) {
	root := ""
	if s.pos.snap != nil {
		root = s.pos.snap.Roots[id]
	}
	if root == "" {
		return
	}
	s.work.mutate("focus", func() error { return s.b.Focus(id) })
	closeShownPanelLocked[*diffView](s)
	s.openDiffInLocked(hostSlot(id), root)
}

// openDiffInLocked opens the Diff view on the work tree dir is in, on
// host slot (0: this machine).
func (s *shell) openDiffInLocked(slot int, dir string) {
	where := ""
	if slot != 0 && s.hosts() != nil {
		if r := s.hosts().hostAt(slot); r != nil {
			where = r.address
		}
	}
	dv := newDiffView(shellHost{s}, slot, dir, where, slot != 0 || s.primaryRemote(), s.chrome.side.shortPath)
	s.openPanelLocked(dv, s.w.Canvas().Size())
	dv.start()
}

// newDiffView builds the Diff view over h of directory dir on host slot
// (0: this machine; where names it, "" for this machine); remote says
// the directory is another machine's; short shortens this machine's
// paths. start begins its loads once it is shown.
func newDiffView(h diffHost, slot int, dir, where string, remote bool, short func(string) string) *diffView {
	dv := &diffView{host: h, short: short, dir: dir, slot: slot, where: where, remote: remote, calls: newCalls(), selFrom: -1, selTo: -1, hunk: -1, reload: make(chan struct{}, 1),
		header: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		files:  container.NewVBox(), commentList: container.NewVBox(), status: widget.NewLabel(""), answers: map[string]*widget.Button{}}
	dv.ExtendBaseWidget(dv)
	dv.header.SetText("Diff — " + dv.place(dir) + " (loading…)")
	dv.status.Wrapping = fyne.TextWrapWord
	dv.pathLine = widget.NewLabel(dir)
	dv.pathLine.Truncation = fyne.TextTruncateEllipsis
	dv.pathLine.Importance = widget.LowImportance
	dv.grid = newDiffGrid(func(row int, extend bool) {
		h.guard(func() {
			dv.chooseHunk(row)
			dv.selectRow(row, extend)
		})
	})
	keys := h.canvasKeys() // the view's buttons pass on the keys they do not use
	dv.openBtn = newPassButton("Open folder", theme.FolderOpenIcon(), func() {
		h.guard(func() {
			root := dv.dir
			if dv.diff != nil {
				root = dv.diff.Root
			}
			if err := h.openURL(&url.URL{Scheme: "file", Path: root}); err != nil {
				h.notice("open folder: " + err.Error())
			}
		})
	}, keys)
	closeBtn := newPassButton("", theme.CancelIcon(), func() { h.closePanel(dv) }, keys)
	closeBtn.Importance = widget.LowImportance
	dv.mode = widget.NewRadioGroup([]string{diffUnified, diffSplit}, func(string) { h.guard(func() { dv.render() }) })
	dv.mode.Horizontal, dv.mode.Required = true, true
	dv.mode.Selected = diffUnified
	dv.scopeNow.Store(scopeBranch)
	dv.scope = widget.NewRadioGroup([]string{scopeBranch, scopeUnstaged, scopeStaged}, func(sc string) {
		h.guard(func() { dv.scopeChanged(sc) })
	})
	dv.scope.Horizontal, dv.scope.Required = true, true
	dv.scope.Selected = scopeBranch
	hunkBtns := dv.hunkButtons(keys)
	dv.sendBtn = newPassButton("Send to agent", theme.MailSendIcon(), func() { h.guard(func() { dv.sendReview() }) }, keys)
	dv.checkBtn = newPassButton("Run checks", theme.MediaPlayIcon(), func() { h.guard(func() { dv.runChecks() }) }, keys)
	dv.failBtn = newPassButton("Send failure to agent", theme.MailForwardIcon(), func() { h.guard(func() { dv.sendFailure() }) }, keys)
	dv.landBtn = newPassButton("Land…", theme.ConfirmIcon(), func() { h.guard(func() { dv.openLand() }) }, keys)
	dv.prBtn = newPassButton("Open pull request", theme.UploadIcon(), func() { h.guard(func() { dv.openPR() }) }, keys)
	for _, b := range []*passButton{dv.sendBtn, dv.checkBtn, dv.failBtn, dv.landBtn, dv.prBtn} {
		b.Disable() // until the first load names the worktree
	}
	if dv.remote {
		// The folder is on the host, where this machine's file manager
		// cannot open it.
		dv.openBtn.Disable()
	}
	dv.commentWhat = widget.NewLabel("")
	dv.commentText = newKeyEntry(true)
	dv.commentText.SetPlaceHolder("Your comment for the agent (Ctrl+Enter adds it)")
	dv.commentText.SetMinRowsVisible(3)
	dv.commentText.onShortcut = func(sc fyne.Shortcut) bool {
		if k, ok := sc.(*desktop.CustomShortcut); ok && k.KeyName == fyne.KeyReturn && k.Modifier == fyne.KeyModifierControl {
			h.guard(func() { dv.addComment() })
			return true
		}
		return false
	}
	dv.commentAdd = newPassButton("Add comment", theme.ContentAddIcon(), func() { h.guard(func() { dv.addComment() }) }, keys)
	dv.commentAdd.Importance = widget.HighImportance
	cancelSel := newPassButton("Cancel", nil, func() { h.guard(func() { dv.selectRow(-1, false) }) }, keys)
	dv.commentBox = container.NewBorder(dv.commentWhat, nil, nil, container.NewVBox(dv.commentAdd, cancelSel), dv.commentText)
	dv.commentBox.Hide()
	top := container.NewBorder(nil, nil, nil, container.NewHBox(dv.openBtn, closeBtn), dv.header)
	dv.prWhy = widget.NewLabel("")
	dv.prWhy.Truncation = fyne.TextTruncateEllipsis
	dv.prWhy.Importance = widget.LowImportance
	bar := container.NewBorder(nil, nil, container.NewHBox(dv.mode, widget.NewSeparator(), dv.sendBtn, dv.checkBtn, dv.failBtn, widget.NewSeparator(), dv.landBtn, dv.prBtn), nil, dv.prWhy)
	dv.hints = widget.NewLabel(dv.keysLine())
	dv.hints.Truncation = fyne.TextTruncateEllipsis
	dv.hints.Importance = widget.LowImportance
	hunkBar := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Compare:"), dv.scope, widget.NewSeparator(), hunkBtns[0], hunkBtns[1], hunkBtns[2]), nil, dv.hints)
	commentsHead := widget.NewLabelWithStyle("Comments", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	left := container.NewVSplit(container.NewVScroll(dv.files), container.NewBorder(commentsHead, nil, nil, nil, container.NewVScroll(dv.commentList)))
	left.Offset = 0.6
	right := container.NewBorder(nil, dv.commentBox, nil, nil, dv.grid)
	split := container.NewHSplit(left, right)
	split.Offset = 0.25
	dv.body = container.NewBorder(container.NewVBox(top, bar, hunkBar, dv.status), dv.pathLine, nil, nil, split)
	return dv
}

// CreateRenderer draws the view.
func (dv *diffView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(dv.body) }

// focusTarget is none: the view's keys reach the window's canvas (its
// diffKeyLocked) while no field of it has the keyboard.
func (dv *diffView) focusTarget() fyne.Focusable { return nil }

// start takes the keyboard from the panes and begins the loads: this
// machine's git with a watcher, or another host's server. The caller
// holds the shell's lock, and has shown the view.
func (dv *diffView) start() {
	dv.host.focus(nil)
	dv.markHunk()
	if dv.remote {
		go dv.runRemoteDiff(dv.ctx)
		return
	}
	go dv.runDiff(dv.ctx)
}

// scopeChanged loads the diff again for scope sc, chosen by the
// Compare buttons or the keys.
func (dv *diffView) scopeChanged(sc string) {
	dv.scopeNow.Store(sc)
	dv.markHunk()
	select {
	case dv.reload <- struct{}{}:
	default:
	}
}

// place names dir for the view's header: on another host, prefixed with
// the host's address.
func (dv *diffView) place(dir string) string {
	where := dv.where
	if where == "" && dv.slot != 0 {
		where = fmt.Sprintf("host %d", dv.slot)
	}
	if where == "" {
		return dir
	}
	return where + " " + dir
}

// primaryRemote reports whether the window's own server is another
// machine's (a window attached over ssh, --host --attach): its panes'
// directories are paths there.
func (s *shell) primaryRemote() bool {
	b := s.b
	if s.hosts() != nil {
		b = s.hosts().primary
	}
	a, ok := b.(*attached)
	return ok && a.o.Dial != nil
}

// focusedCwdLocked is the focused pane's working directory, else its
// workspace's; "" when neither is known, or when they are another host's
// (the diff view and the launch pad read this machine's files).
func (s *shell) focusedCwdLocked() string {
	if s.pos.snap == nil || hostSlot(s.pos.focus) != 0 || hostSlot(s.pos.snap.Active.ID) != 0 {
		return ""
	}
	for _, in := range s.pos.snap.Surfaces {
		if in.ID == s.pos.focus && in.Cwd != nil && *in.Cwd != "" {
			return *in.Cwd
		}
	}
	if s.pos.snap.HasActive {
		return s.pos.snap.Active.Cwd
	}
	return ""
}

// runDiff loads the diff, then watches the work tree and loads it again
// (debounced) whenever a file in it changes, until ctx ends.
func (dv *diffView) runDiff(ctx context.Context) {
	load := func() {
		lctx, cancel := context.WithTimeout(ctx, gitTimeout)
		d, err := loadScopedDiff(lctx, dv.dir, dv.scopeNow.Load().(string))
		cancel()
		if ctx.Err() != nil {
			return
		}
		dv.host.do(func() {
			if dv.host.shown(dv) {
				dv.showDiff(d, err)
			}
		})
	}
	// The watch starts before the first load, so no change falls between.
	w, err := treewatch.Start(ctx, dv.dir)
	if err != nil {
		if errors.Is(err, treewatch.ErrWatcher) {
			dv.host.do(func() { dv.host.notice("diff: " + err.Error()) })
		}
		load() // shows git's error, or the diff unwatched
		return
	}
	defer w.Close()
	load()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.C:
			load()
		case <-dv.reload:
			load()
		}
	}
}

// runRemoteDiff asks the view's host's server for the diff of the chosen scope
// (review.diff) now, then each time that server says the worktree
// changed (followRemoteTree) and on a reload, until ctx ends; a result
// equal to the last one shown is not shown again. An idle view makes no
// call. While the host is not connected the header says so, and the ask
// after its return shows the diff.
func (dv *diffView) runRemoteDiff(ctx context.Context) {
	changed := make(chan struct{}, 1)
	go dv.followRemoteTree(ctx, changed)
	var last *gitDiff
	var lastErr string
	for first := true; ; first = false {
		scope := dv.scopeNow.Load().(string)
		lctx, cancel := context.WithTimeout(ctx, gitTimeout)
		res, err := dv.host.reviewClient(dv.slot, gitTimeout+reviewCallMargin).ReviewDiff(lctx, proto.ReviewDiffParams{Worktree: dv.dir, Scope: scopeWire[scope]})
		cancel()
		if ctx.Err() != nil {
			return
		}
		var d *gitDiff
		errText := ""
		if err != nil {
			err = remoteDiffError(err)
			errText = err.Error()
		} else {
			d = viewDiff(&res, scope)
		}
		if first || errText != lastErr || !sameDiff(d, last) {
			last, lastErr = d, errText
			dv.host.do(func() {
				if dv.host.shown(dv) {
					dv.showDiff(d, err)
				}
			})
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-dv.reload:
		}
	}
}

// followRemoteTree signals changed each time the view's host's server says the
// worktree changed (review.watch), and once each time its watch is in
// place (a change may have fallen before it), until ctx ends. A stream
// that could not open or ended (the host dropped) is opened again after
// remoteDiffEvery, signalling the ask that shows the host's state; a
// server without review.watch is asked every remoteDiffEvery instead.
func (dv *diffView) followRemoteTree(ctx context.Context, changed chan<- struct{}) {
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	for {
		st, err := dv.host.reviewStream(ctx, dv.slot, proto.MethodReviewWatch, proto.ReviewWatchParams{Worktree: dv.dir})
		if err == nil {
			stop := context.AfterFunc(ctx, func() { st.Close() })
			for {
				if _, err := st.Next(); err != nil {
					break
				}
				signal()
			}
			stop()
			st.Close()
		}
		if ctx.Err() != nil {
			return
		}
		// The ask shows the host's state (not connected, say), or polls
		// a server without review.watch.
		signal()
		select {
		case <-ctx.Done():
			return
		case <-time.After(remoteDiffEvery):
		}
	}
}

// remoteDiffError words a failed review.diff: a host whose server has no
// such method needs a newer paneflow.
func remoteDiffError(err error) error {
	var e *ipc.Error
	if errors.As(err, &e) && e.Code == ipc.CodeMethodNotFound {
		return fmt.Errorf("the host's paneflow cannot read diffs (%s); update it with `paneflow host install HOST`", e.Message)
	}
	return err
}

// sameDiff reports whether two loads read the same (nil: a failed load).
func sameDiff(a, b *gitDiff) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Root == b.Root && a.Branch == b.Branch && a.Scope == b.Scope && a.BaseRef == b.BaseRef && a.Base == b.Base &&
		a.Text == b.Text && a.Truncated == b.Truncated && slices.Equal(a.Files, b.Files)
}

// showDiff shows a load's result, then asks the server for the
// worktree's comments and checks. Like every method of the view that
// touches its widgets, it runs holding the shell's lock.
func (dv *diffView) showDiff(d *gitDiff, err error) {
	if d != nil && d.Scope != dv.scope.Selected {
		return // read before the scope changed; the new scope's load follows
	}
	dv.loads++
	dv.diff, dv.err = d, err
	if err != nil {
		dv.header.SetText("Diff — " + dv.place(dv.dir) + ": " + err.Error())
		dv.lines, dv.hunk = nil, -1
		dv.grid.Rows, dv.refs = nil, nil
		dv.markHunk()
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
	root := dv.short(d.Root)
	if dv.remote {
		root = dv.place(d.Root) // this machine's home says nothing of the host's
	}
	title := fmt.Sprintf("Diff — %s · %s against %s · %d files", root, what, base, len(d.Files))
	none := "No changes against " + base + "."
	switch d.Scope {
	case scopeUnstaged:
		title = fmt.Sprintf("Diff — %s · %s: unstaged changes (the files against the index) · %d files", root, what, len(d.Files))
		none = "No unstaged changes: the files match the index."
	case scopeStaged:
		title = fmt.Sprintf("Diff — %s · %s: staged changes (the index against HEAD) · %d files", root, what, len(d.Files))
		none = "Nothing staged: the index matches HEAD."
	}
	if d.Truncated {
		title += " (cut at 2 MiB)"
	}
	dv.header.SetText(title)
	dv.pathLine.SetText(d.Root)
	muted := theme.Color(theme.ColorNamePlaceHolder)
	dv.fileRows = map[string]*hoverRow{}
	objs := []fyne.CanvasObject{dv.fileRow(diffFile{}, "", "All files", muted)}
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
		objs = append(objs, dv.fileRow(f, f.Status+"  ", f.Path, c))
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
	dv.render()
	dv.checkBtn.Enable()
	if dv.remote {
		// Landing and pull requests read and change this machine's
		// panes and run its gh: not for another host's worktree yet.
		dv.prWhy.SetText("(land and pull requests: this machine's worktrees only)")
	} else {
		if d.Branch != "" {
			dv.landBtn.Enable()
		}
		if dv.loads == 1 {
			dv.checkPR()
		}
	}
	dv.refreshReview()
}

// render renders the diff, comments and checks into its grid
// in the chosen mode; the selection is dropped when the rows move.
func (dv *diffView) render() {
	r := diffRender{lines: dv.lines, mode: dv.mode.Selected, file: dv.file, comments: dv.comments, checks: dv.checks}
	dv.grid.Rows, dv.refs = r.rows()
	for path, row := range dv.fileRows {
		row.setHighlight(path == dv.file)
	}
	dv.reselect()
	dv.markHunk()
}

// fileRow is a tappable row of the file list: it shows that file's
// diff alone (or, for the first row, all of them). Its path is cut from
// the left to the list's width; under the pointer, the view's path line
// shows it whole.
func (dv *diffView) fileRow(f diffFile, prefix, label string, c color.Color) fyne.CanvasObject {
	row := newHoverRow(container.NewPadded(newPathText(prefix, label, c)), func() {
		dv.host.guard(func() {
			if !dv.host.shown(dv) || dv.diff == nil {
				return
			}
			dv.file = f.Path
			dv.render()
		})
	}, func(in bool) {
		dv.host.guard(func() {
			if !dv.host.shown(dv) || dv.diff == nil {
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
