package app

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/review"
	"github.com/paneflow-go/paneflow/worktree"
)

// This file holds the Diff view's review actions (issue 32): comments on
// lines, "Send to agent" with the turn start confirmed as `paneflow send
// --submit` confirms it, the checks, land and the pull request. Each
// calls the server's review.*, checks.* or land.* method through the
// backend's Caller on a goroutine of its own and shows the answer on the
// UI goroutine.

// Timeouts of the review calls.
const (
	// reviewInputWait is review.send's input_wait_ms: as send --submit's.
	reviewInputWait = 30 * time.Second
	// reviewCallMargin is added to a call's own wait for its timeout.
	reviewCallMargin = 10 * time.Second
	// checksCallWait bounds checks.run (a check's default time limit is
	// 10 minutes; several run one after the other).
	checksCallWait = time.Hour
	// landCallWait bounds land.run and land.pr (git, a push, gh).
	landCallWait = 10 * time.Minute
)

// goReview runs f on a goroutine of its own, with a context that ends
// when the shell stops (and, when view is not nil, when it is done); the
// shell's stop waits for it.
func (s *shell) goReview(view context.Context, f func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	if view != nil {
		stop := context.AfterFunc(view, cancel)
		f0 := f
		f = func(ctx context.Context) { defer stop(); f0(ctx) }
	}
	s.life.wg.Add(1)
	go func() {
		defer s.life.wg.Done()
		defer cancel()
		go func() {
			select {
			case <-s.life.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		f(ctx)
	}()
}

// reviewClient is a client of the methods of host slot's server (0: the
// window's own) whose calls may take up to timeout (0: the default).
func (s *shell) reviewClient(slot int, timeout time.Duration) proto.Client {
	if slot != 0 && s.hosts() != nil {
		return proto.Client{Caller: s.hosts().callerAt(slot, timeout)}
	}
	return proto.Client{Caller: s.b.Caller(timeout)}
}

// reviewStream opens a stream of host slot's server, or of the window's
// own (slot 0) when that is attached (a window attached over ssh).
func (s *shell) reviewStream(ctx context.Context, slot int, method string, params any) (*ipc.Stream, error) {
	if slot != 0 && s.hosts() != nil {
		return s.hosts().subscribeAt(ctx, slot, method, params)
	}
	b := s.b
	if s.hosts() != nil {
		b = s.hosts().primary
	}
	a, ok := b.(*attached)
	if !ok {
		return nil, errors.New("app: the window's server is in this process")
	}
	return a.cl.Subscribe(ctx, method, params)
}

// reviewError words a failed review call for the Diff view: a closed
// scripting gate says how to open it.
func reviewError(what string, err error) string {
	var e *ipc.Error
	if errors.As(err, &e) && e.Code == ipc.CodeMethodNotFound {
		return what + ": writing into panes is disabled on this Paneflow server (" + e.Message + "); start it with PANEFLOW_IPC_SCRIPTING=1 to allow it"
	}
	if msg := err.Error(); strings.HasPrefix(msg, what+": ") {
		return msg // the server named it already ("land: …")
	}
	return what + ": " + err.Error()
}

// setStatus shows what the last review action did; bad marks a failure.
// The caller holds the shell's lock, as for every method of the view
// that touches its widgets.
func (dv *diffView) setStatus(text string, bad bool) {
	dv.status.SetText(text)
	dv.status.Importance = widget.MediumImportance
	if bad {
		dv.status.Importance = widget.DangerImportance
	}
	dv.status.Refresh()
}

// root is the worktree the view shows, "" before a load succeeded.
func (dv *diffView) root() string {
	if dv.diff == nil {
		return ""
	}
	return dv.diff.Root
}

// selectRow selects grid row row (extend: from the selection's
// first row to it) for a comment; row -1 drops the selection. Only lines
// of the new file (added or unchanged) of one file take a comment.
func (dv *diffView) selectRow(row int, extend bool) {
	for i := range dv.grid.Rows {
		if st, ok := dv.grid.Rows[i].Style.(*selectedStyle); ok {
			dv.grid.Rows[i].Style = st.was
		}
	}
	defer dv.grid.Refresh()
	if row < 0 || row >= len(dv.refs) {
		dv.selFrom, dv.selTo = -1, -1
		if dv.commentBox.Visible() {
			dv.commentBox.Hide()
			dv.host.focus(nil)        // the keys go to the view's dialogs again
			dv.host.forgetModifiers() // modifiers released in the editor never reached the canvas
		}
		return
	}
	from := row
	if extend && dv.selFrom >= 0 {
		from = dv.selFrom
	}
	lo, hi := min(from, row), max(from, row)
	path, start, end := "", 0, 0
	for i := lo; i <= hi; i++ {
		ref := dv.refs[i]
		if ref.line < 0 || ref.line >= len(dv.lines) || dv.lines[ref.line].new == 0 {
			continue
		}
		l := dv.lines[ref.line]
		if path != "" && l.file != path {
			dv.setStatus("A comment is on lines of one file: select lines of "+path+" only.", true)
			dv.selectRow(-1, false)
			return
		}
		if path == "" {
			path, start = l.file, l.new
		}
		end = l.new
	}
	if path == "" {
		if dv.hunk < 0 { // a hunk chosen for its buttons needs no word
			dv.setStatus("Select an added or unchanged line (one with a number in the new file) to comment on it.", true)
		}
		dv.selectRow(-1, false)
		return
	}
	dv.selFrom, dv.selTo = from, row
	dv.selPath, dv.selStart, dv.selEnd = path, start, end
	for i := lo; i <= hi; i++ {
		dv.grid.Rows[i].Style = &selectedStyle{was: dv.grid.Rows[i].Style}
	}
	what := fmt.Sprintf("Comment on %s line %d", path, start)
	if end != start {
		what = fmt.Sprintf("Comment on %s lines %d–%d", path, start, end)
	}
	dv.commentWhat.SetText(what + " (Shift+click another line for a range)")
	dv.commentBox.Show()
	dv.host.focus(dv.commentText)
	// The Shift of a Shift+click is released in the editor, where the
	// canvas does not see it: forget the modifiers it holds.
	dv.host.forgetModifiers()
}

// selectedStyle is a selected row's style: its own, on the selection's
// background.
type selectedStyle struct{ was widget.TextGridStyle }

func (st *selectedStyle) TextColor() color.Color {
	if st.was == nil {
		return nil
	}
	return st.was.TextColor()
}

func (st *selectedStyle) BackgroundColor() color.Color { return selectBG }

func (st *selectedStyle) Style() fyne.TextStyle {
	if st.was == nil {
		return fyne.TextStyle{Monospace: true}
	}
	return st.was.Style()
}

// reselect finds the selection's lines again after the rows were
// rendered anew (a reload, another mode), or drops it.
func (dv *diffView) reselect() {
	if dv.selFrom < 0 {
		return
	}
	from, to := -1, -1
	for i, ref := range dv.refs {
		if ref.line < 0 || ref.line >= len(dv.lines) {
			continue
		}
		l := dv.lines[ref.line]
		if l.file == dv.selPath && l.new >= dv.selStart && l.new <= dv.selEnd {
			if from < 0 {
				from = i
			}
			to = i
		}
	}
	dv.selFrom = -1
	if from < 0 {
		dv.selectRow(-1, false)
		return
	}
	dv.selectRow(from, false)
	if to != from {
		dv.selectRow(to, true)
	}
}

// addComment makes the selected lines' comment (review.comment).
func (dv *diffView) addComment() {
	body := strings.TrimSpace(dv.commentText.Text)
	root := dv.root()
	switch {
	case dv.selFrom < 0 || root == "":
		dv.setStatus("Select the lines to comment on first.", true)
		return
	case body == "":
		dv.setStatus("Type the comment first.", true)
		return
	}
	end := dv.selEnd
	p := proto.ReviewCommentParams{Worktree: root, Path: dv.selPath, StartLine: dv.selStart, EndLine: &end, Body: body}
	dv.commentAdd.Disable()
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		res, err := dv.host.reviewClient(dv.slot, 0).ReviewComment(ctx, p)
		dv.host.do(func() {
			dv.commentAdd.Enable()
			if !dv.host.shown(dv) {
				return
			}
			if err != nil {
				dv.setStatus(reviewError("comment", err), true)
				return
			}
			dv.commentText.SetText("")
			dv.selectRow(-1, false)
			dv.setStatus("Comment added: "+commentTitle(res.Comment)+".", false)
			dv.refreshReview()
		})
	})
}

// refreshReview reads the worktree's open comments (re-anchored by
// the server) and its checks, then shows them.
func (dv *diffView) refreshReview() {
	root := dv.root()
	if root == "" {
		return
	}
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		cl := dv.host.reviewClient(dv.slot, 0)
		list, lerr := cl.ReviewList(ctx, proto.ReviewListParams{Worktree: root})
		checks, cerr := cl.ChecksStatus(ctx, proto.ChecksParams{Worktree: root})
		dv.host.do(func() {
			if !dv.host.shown(dv) { // closed meanwhile (ctx has ended by now: this runs after the goroutine returned)
				return
			}
			if lerr != nil {
				dv.setStatus(reviewError("comments", lerr), true)
			} else {
				dv.comments = list.Comments
			}
			if cerr == nil {
				dv.checks, dv.checksCfg = checks.Checks, checks.Config != ""
			} else {
				dv.checks, dv.checksCfg = nil, false
			}
			dv.showReview()
		})
	})
}

// showReview shows the comments and checks: the list, the rows
// under their lines, the buttons' states.
func (dv *diffView) showReview() {
	var objs []fyne.CanvasObject
	keys := dv.host.canvasKeys()
	for _, c := range dv.comments {
		title := widget.NewLabelWithStyle(commentTitle(c), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		title.Truncation = fyne.TextTruncateEllipsis
		if c.Outdated {
			title.Importance = widget.WarningImportance
		}
		body := widget.NewLabel(c.Body)
		body.Wrapping = fyne.TextWrapWord
		id := c.ID
		resolve := newPassButton("Resolve", theme.ConfirmIcon(), func() { dv.host.guard(func() { dv.resolveComment(id) }) }, keys)
		resolve.Importance = widget.LowImportance
		objs = append(objs, container.NewBorder(title, nil, nil, resolve, body), widget.NewSeparator())
	}
	if len(objs) == 0 {
		objs = append(objs, widget.NewLabel("No open comments. Click a line of the diff to comment on it."))
	}
	dv.commentList.Objects = objs
	dv.commentList.Refresh()
	dv.sendBtn.SetText(fmt.Sprintf("Send to agent (%d)", len(dv.comments)))
	if len(dv.comments) == 0 {
		dv.sendBtn.Disable()
	} else {
		dv.sendBtn.Enable()
	}
	dv.checkBtn.SetText("Run checks")
	for _, c := range dv.checks {
		if c.Status == proto.CheckRunning {
			dv.checkBtn.SetText("Checks running…")
		}
	}
	if failingCheck(dv.checks) != "" {
		dv.failBtn.Enable()
	} else {
		dv.failBtn.Disable()
	}
	dv.render()
}

// failingCheck is the first failed check's name, "" when none failed.
func failingCheck(checks []proto.CheckResult) string {
	for _, c := range checks {
		if c.Status == proto.CheckFail {
			return c.Name
		}
	}
	return ""
}

// resolveComment resolves comment id (review.resolve).
func (dv *diffView) resolveComment(id string) {
	root := dv.root()
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		_, err := dv.host.reviewClient(dv.slot, 0).ReviewResolve(ctx, proto.ReviewResolveParams{Worktree: root, IDs: []string{id}})
		dv.host.do(func() {
			if !dv.host.shown(dv) {
				return
			}
			if err != nil {
				dv.setStatus(reviewError("resolve", err), true)
				return
			}
			dv.setStatus("Comment "+id+" resolved.", false)
			dv.refreshReview()
		})
	})
}

// sendReview sends the open comments to the agent working in the
// worktree as one prompt (review.send), then confirms its turn started.
func (dv *diffView) sendReview() {
	root := dv.root()
	if root == "" || len(dv.comments) == 0 {
		return
	}
	dv.sendBtn.Disable()
	dv.setStatus(fmt.Sprintf("Sending %d comments to the agent…", len(dv.comments)), false)
	dv.deliver("comments", func(ctx context.Context, p proto.ReviewSendParams) (proto.ReviewSendResult, error) {
		return dv.host.reviewClient(dv.slot, reviewInputWait+reviewCallMargin).ReviewSend(ctx, p)
	})
}

// sendFailure sends the first failing check's output to the agent
// (checks.send), then confirms its turn started.
func (dv *diffView) sendFailure() {
	name := failingCheck(dv.checks)
	if dv.root() == "" || name == "" {
		return
	}
	dv.failBtn.Disable()
	dv.setStatus("Sending check "+name+"'s failure to the agent…", false)
	dv.deliver("check "+name, func(ctx context.Context, p proto.ReviewSendParams) (proto.ReviewSendResult, error) {
		p.Check = name
		return dv.host.reviewClient(dv.slot, reviewInputWait+reviewCallMargin).ChecksSend(ctx, p)
	})
}

// deliver runs a send (review.send or checks.send) on the view's
// worktree, confirms the agent's turn start and shows the outcome. The
// send is not cancelled when the view closes (the prompt may be typed
// already); its outcome then goes to the banner.
func (dv *diffView) deliver(what string, send func(context.Context, proto.ReviewSendParams) (proto.ReviewSendResult, error)) {
	wait := reviewInputWait.Milliseconds()
	p := proto.ReviewSendParams{Worktree: dv.root(), InputWaitMS: &wait}
	dv.host.goReview(nil, func(ctx context.Context) {
		res, err := send(ctx, p)
		msg, bad := "", false
		if err != nil {
			msg, bad = reviewError("send "+what, err), true
		} else {
			msg = fmt.Sprintf("Sent %s to pane %d", what, res.SurfaceID)
			if !res.Send.InputReady {
				msg += fmt.Sprintf(" (the agent had not read its input after %v; the text was typed anyway)", reviewInputWait)
			}
			reason, cerr := dv.host.reviewClient(dv.slot, 0).ConfirmTurnStart(ctx, res.SurfaceID, res.StatusBefore)
			if cerr != nil {
				msg, bad = msg+": "+cerr.Error(), true
			} else {
				msg += "; the agent started its turn (" + reason + ")."
			}
		}
		dv.host.do(func() {
			if !dv.host.shown(dv) {
				dv.host.notice(msg)
				return
			}
			dv.setStatus(msg, bad)
			dv.refreshReview()
		})
	})
}

// runChecks runs the worktree's checks (checks.run) and shows them.
func (dv *diffView) runChecks() {
	root := dv.root()
	if root == "" {
		return
	}
	dv.checkBtn.Disable()
	dv.checkBtn.SetText("Checks running…")
	dv.setStatus("Running the checks…", false)
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		res, err := dv.host.reviewClient(dv.slot, checksCallWait).ChecksRun(ctx, proto.ChecksParams{Worktree: root})
		dv.host.do(func() {
			if !dv.host.shown(dv) {
				return
			}
			dv.checkBtn.Enable()
			if err != nil {
				dv.checkBtn.SetText("Run checks")
				dv.setStatus(reviewError("checks", err), true)
				return
			}
			var parts []string
			for _, c := range res.Checks {
				parts = append(parts, c.Name+" "+checkSummary(c))
			}
			dv.setStatus("Checks: "+strings.Join(parts, " · "), failingCheck(res.Checks) != "")
			dv.refreshReview()
		})
	})
}

// openLand asks how to land the worktree's branch: the strategy
// (the repository's configured default chosen), then lands it.
func (dv *diffView) openLand() {
	root := dv.root()
	if root == "" {
		return
	}
	branch := dv.diff.Branch
	strategy := widget.NewRadioGroup([]string{proto.LandMerge, proto.LandSquash, proto.LandRebase}, nil)
	strategy.Required, strategy.Selected = true, proto.LandMerge
	note := widget.NewLabel("")
	msg := widget.NewLabel(fmt.Sprintf("Land %s into its base branch (the branch of the repository's main working tree) with git:", branch))
	msg.Wrapping = fyne.TextWrapWord
	var d dialog.Dialog
	land := widget.NewButtonWithIcon("Land", theme.ConfirmIcon(), nil)
	land.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() { d.Hide() })
	land.OnTapped = func() {
		dv.host.guard(func() {
			d.Hide()
			dv.land(proto.LandParams{Worktree: root, Strategy: strategy.Selected})
		})
	}
	content := container.NewVBox(msg, strategy, note, container.NewHBox(layout.NewSpacer(), cancel, land))
	d = dialog.NewCustomWithoutButtons("Land "+branch, content, dv.host.window())
	d.Resize(fyne.NewSize(520, 220))
	dv.landWith = strategy
	dv.host.focus(nil) // Enter lands, Escape cancels
	dv.host.forgetModifiers()
	dv.answers[land.Text] = land
	dv.host.showDialog(d, land.OnTapped, d.Hide)
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		st, err := review.LandDefault(ctx, root)
		dv.host.do(func() {
			switch {
			case err != nil:
				note.SetText("The configured default is unreadable: " + err.Error())
			case st != "":
				strategy.SetSelected(st)
				note.SetText("The repository's " + review.ConfigFile + " chooses " + st + ".")
			}
		})
	})
}

// land lands (land.run) and shows the outcome: after a conflict the
// files, with "Hand to agent" and "Open pane"; after a clean land, the
// offer to tear the worktree down.
func (dv *diffView) land(p proto.LandParams) {
	dv.landBtn.Disable()
	dv.setStatus("Landing with "+p.Strategy+"…", false)
	dv.host.goReview(nil, func(ctx context.Context) {
		res, err := dv.host.reviewClient(dv.slot, landCallWait).LandRun(ctx, p)
		dv.host.do(func() {
			if dv.host.shown(dv) {
				dv.landBtn.Enable()
			}
			if err != nil {
				dv.landStatus(reviewError("land", err), true)
				return
			}
			if !res.Landed {
				dv.landStatus(fmt.Sprintf("%s did not land: conflicts in %s; %s is unchanged.", res.Branch, strings.Join(res.Conflicts, ", "), res.Base), true)
				dv.showConflict(p, res)
				return
			}
			dv.landStatus(fmt.Sprintf("Landed %s into %s with %s (%d commits, now %s).", res.Branch, res.Base, res.Strategy, res.Commits, shortHash(res.Commit)), false)
			select {
			case dv.reload <- struct{}{}: // the diff against the moved base
			default:
			}
			dv.offerTeardown(res)
		})
	})
}

// landStatus shows a land's outcome in the view, or the banner
// when the view closed meanwhile.
func (dv *diffView) landStatus(msg string, bad bool) {
	if dv.host.shown(dv) {
		dv.setStatus(msg, bad)
		return
	}
	dv.host.notice(msg)
}

// showConflict lists a land's conflicting files and offers to hand
// them to the agent (land.run again with send_conflicts: it types the
// files into the agent) or to open the agent's pane.
func (dv *diffView) showConflict(p proto.LandParams, res proto.LandResult) {
	files := widget.NewLabel(strings.Join(res.Conflicts, "\n"))
	head := widget.NewLabel(fmt.Sprintf("%s did not land into %s: these files conflict. The merge was aborted and %s is as it was.", res.Branch, res.Base, res.Base))
	head.Wrapping = fyne.TextWrapWord
	var d dialog.Dialog
	hand := widget.NewButtonWithIcon("Hand to agent", theme.MailSendIcon(), func() {
		dv.host.guard(func() {
			d.Hide()
			send := true
			p.SendConflicts = &send
			wait := reviewInputWait.Milliseconds()
			p.InputWaitMS = &wait
			dv.landConflictToAgent(p)
		})
	})
	hand.Importance = widget.HighImportance
	open := widget.NewButtonWithIcon("Open pane", theme.ComputerIcon(), func() {
		dv.host.guard(func() {
			d.Hide()
			dv.host.openWorktreePane(res.Worktree)
		})
	})
	closeBtn := widget.NewButton("Close", func() { d.Hide() })
	content := container.NewBorder(head, container.NewHBox(layout.NewSpacer(), closeBtn, open, hand), nil, nil, container.NewVScroll(files))
	d = dialog.NewCustomWithoutButtons("Conflicts", content, dv.host.window())
	d.Resize(fyne.NewSize(560, 320))
	for _, b := range []*widget.Button{hand, open, closeBtn} {
		dv.answers[b.Text] = b
	}
	dv.host.showDialog(d, nil, d.Hide)
}

// landConflictToAgent lands again with send_conflicts: the land
// stops on the same conflict and the server types the files into the
// agent working in the worktree; the turn start is confirmed.
func (dv *diffView) landConflictToAgent(p proto.LandParams) {
	dv.host.goReview(nil, func(ctx context.Context) {
		res, err := dv.host.reviewClient(dv.slot, landCallWait+reviewInputWait).LandRun(ctx, p)
		msg, bad := "", false
		switch {
		case err != nil:
			msg, bad = reviewError("hand the conflict to the agent", err), true
		case res.Landed:
			msg = fmt.Sprintf("Landed %s into %s (the conflict was gone).", res.Branch, res.Base)
		case res.Sent == nil:
			msg, bad = "The conflict was not sent to the agent.", true
		default:
			msg = fmt.Sprintf("Handed the conflicts in %s to the agent in pane %d", strings.Join(res.Conflicts, ", "), res.Sent.SurfaceID)
			if reason, cerr := dv.host.reviewClient(dv.slot, 0).ConfirmTurnStart(ctx, res.Sent.SurfaceID, res.Sent.StatusBefore); cerr != nil {
				msg, bad = msg+": "+cerr.Error(), true
			} else {
				msg += "; the agent started its turn (" + reason + ")."
			}
		}
		dv.host.do(func() { dv.landStatus(msg, bad) })
	})
}

// openWorktreePaneLocked focuses the pane working in the worktree at
// root (its agent's when there is one), else opens a shell there beside
// the focused pane; the Diff view closes to show it.
func (s *shell) openWorktreePaneLocked(root string) {
	var id uint64
	if s.pos.snap != nil {
		for _, in := range s.pos.snap.Surfaces {
			if in.Cwd != nil && pathInside(root, *in.Cwd) && (id == 0 || s.hasAgentLocked(in.ID)) {
				id = in.ID
			}
		}
	}
	closeShownPanelLocked[*diffView](s)
	if id != 0 {
		s.work.mutate("open pane", func() error { return s.b.Focus(id) })
		return
	}
	req := quickSplit{SurfaceID: s.pos.focus, Direction: "vertical", Cwd: root}
	s.goReview(nil, func(ctx context.Context) {
		if err := s.caller(0).Call(ctx, "surface.split", req, nil); err != nil {
			s.do(func() { s.chrome.banner.show("open pane: " + err.Error()) })
		}
	})
}

// hasAgentLocked reports whether an agent is known in pane id.
func (s *shell) hasAgentLocked(id uint64) bool {
	_, ok := s.agents.status(id)
	return ok
}

// pathInside reports whether p is root or inside it.
func pathInside(root, p string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// offerTeardown offers, after a clean land, to tear the worktree
// down (land.teardown: its panes closed, the worktree removed), keeping
// or deleting the branch.
func (dv *diffView) offerTeardown(res proto.LandResult) {
	if res.Worktree == res.RepoRoot {
		return // the main working tree is never torn down
	}
	msg := widget.NewLabel(fmt.Sprintf("%s landed into %s. Tear the worktree %s down? Its panes close and the worktree is removed (only when it is clean).", res.Branch, res.Base, res.Worktree))
	msg.Wrapping = fyne.TextWrapWord
	var d dialog.Dialog
	teardown := func(deleteBranch bool) func() {
		return func() {
			dv.host.guard(func() {
				d.Hide()
				dv.teardown(res, deleteBranch)
			})
		}
	}
	keep := widget.NewButton("Keep the worktree", func() { d.Hide() })
	tdKeep := widget.NewButton("Tear down, keep the branch", teardown(false))
	tdKeep.Importance = widget.HighImportance
	tdDel := widget.NewButton("Tear down, delete the branch", teardown(true))
	tdDel.Importance = widget.DangerImportance
	content := container.NewVBox(msg, container.NewHBox(layout.NewSpacer(), keep, tdDel, tdKeep))
	d = dialog.NewCustomWithoutButtons("Landed", content, dv.host.window())
	d.Resize(fyne.NewSize(640, 180))
	for _, b := range []*widget.Button{keep, tdKeep, tdDel} {
		dv.answers[b.Text] = b
	}
	dv.host.showDialog(d, nil, d.Hide)
}

// teardown tears a landed worktree down (land.teardown).
func (dv *diffView) teardown(res proto.LandResult, deleteBranch bool) {
	p := proto.LandTeardownParams{Worktree: res.Worktree, Branch: res.Branch, Strategy: res.Strategy, DeleteBranch: &deleteBranch}
	dv.host.goReview(nil, func(ctx context.Context) {
		out, err := dv.host.reviewClient(dv.slot, landCallWait).LandTeardown(ctx, p)
		msg, bad := "", false
		switch {
		case err != nil:
			msg, bad = reviewError("teardown", err), true
		case out.TeardownError != "":
			msg, bad = fmt.Sprintf("Worktree %s: %s (%s).", out.Worktree, out.Teardown, out.TeardownError), true
		default:
			msg = fmt.Sprintf("Worktree %s %s; %d panes closed", out.Worktree, out.Teardown, len(out.ClosedPanes))
			if out.BranchDeleted {
				msg += "; branch " + out.Branch + " deleted."
			} else {
				msg += "; branch " + out.Branch + " kept."
			}
		}
		dv.host.do(func() { dv.landStatus(msg, bad) })
	})
}

// prReason says why no pull request can be opened from root's branch
// ("" when one can): gh missing, or no GitHub remote.
func prReason(ctx context.Context, root, branch string) string {
	if _, err := exec.LookPath("gh"); err != nil {
		return "gh, GitHub's CLI, is not installed"
	}
	if branch == "" {
		return "the worktree is on a detached HEAD"
	}
	if _, _, err := worktree.GitHubRemote(ctx, root, branch); err != nil {
		return err.Error()
	}
	return ""
}

// checkPR enables "Open pull request" where gh and a GitHub remote
// exist; otherwise the button stays disabled and says why.
func (dv *diffView) checkPR() {
	root, branch := dv.root(), dv.diff.Branch
	dv.host.goReview(dv.ctx, func(ctx context.Context) {
		why := prReason(ctx, root, branch)
		dv.host.do(func() {
			if !dv.host.shown(dv) {
				return
			}
			if why != "" {
				why = "(no pull request: " + why + ")"
			}
			dv.prWhy.SetText(why)
			if why != "" {
				dv.prBtn.Disable()
				return
			}
			dv.prBtn.Enable()
		})
	})
}

// openPR opens the branch's pull request (land.pr: pushed, then
// `gh pr create` with the agent's last result as its body).
func (dv *diffView) openPR() {
	root := dv.root()
	if root == "" {
		return
	}
	dv.prBtn.Disable()
	dv.setStatus("Pushing and opening the pull request…", false)
	dv.host.goReview(nil, func(ctx context.Context) {
		res, err := dv.host.reviewClient(dv.slot, landCallWait).LandPR(ctx, proto.LandPRParams{Worktree: root})
		dv.host.do(func() {
			if dv.host.shown(dv) {
				dv.prBtn.Enable()
			}
			if err != nil {
				dv.landStatus(reviewError("pull request", err), true)
				return
			}
			dv.landStatus(fmt.Sprintf("Opened the pull request of %s into %s: %s", res.Branch, res.Base, res.URL), false)
		})
	})
}
