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

// reviewClient is a client of the methods of dv's server (its host's for
// another host's worktree) whose calls may take up to timeout (0: the
// default).
func (s *shell) reviewClient(dv *diffView, timeout time.Duration) proto.Client {
	if dv != nil && dv.slot != 0 && s.hosts() != nil {
		return proto.Client{Caller: s.hosts().callerAt(dv.slot, timeout)}
	}
	return proto.Client{Caller: s.b.Caller(timeout)}
}

// reviewStream opens a stream of dv's server: its host's, or the window's
// own when that is attached (a window attached over ssh).
func (s *shell) reviewStream(ctx context.Context, dv *diffView, method string, params any) (*ipc.Stream, error) {
	if dv != nil && dv.slot != 0 && s.hosts() != nil {
		return s.hosts().subscribeAt(ctx, dv.slot, method, params)
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

// setStatusLocked shows what the last review action did; bad marks a
// failure.
func (dv *diffView) setStatusLocked(text string, bad bool) {
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

// selectDiffRowLocked selects grid row row (extend: from the selection's
// first row to it) for a comment; row -1 drops the selection. Only lines
// of the new file (added or unchanged) of one file take a comment.
func (s *shell) selectDiffRowLocked(dv *diffView, row int, extend bool) {
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
			s.w.Canvas().Unfocus() // the keys go to the view's dialogs again
			s.kb.forget()          // modifiers released in the editor never reached the canvas
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
			dv.setStatusLocked("A comment is on lines of one file: select lines of "+path+" only.", true)
			s.selectDiffRowLocked(dv, -1, false)
			return
		}
		if path == "" {
			path, start = l.file, l.new
		}
		end = l.new
	}
	if path == "" {
		if dv.hunk < 0 { // a hunk chosen for its buttons needs no word
			dv.setStatusLocked("Select an added or unchanged line (one with a number in the new file) to comment on it.", true)
		}
		s.selectDiffRowLocked(dv, -1, false)
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
	s.w.Canvas().Focus(dv.commentText)
	// The Shift of a Shift+click is released in the editor, where the
	// canvas does not see it: forget the modifiers it holds.
	s.kb.forget()
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

// reselectLocked finds the selection's lines again after the rows were
// rendered anew (a reload, another mode), or drops it.
func (s *shell) reselectLocked(dv *diffView) {
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
		s.selectDiffRowLocked(dv, -1, false)
		return
	}
	s.selectDiffRowLocked(dv, from, false)
	if to != from {
		s.selectDiffRowLocked(dv, to, true)
	}
}

// addCommentLocked makes the selected lines' comment (review.comment).
func (s *shell) addCommentLocked(dv *diffView) {
	body := strings.TrimSpace(dv.commentText.Text)
	root := dv.root()
	switch {
	case dv.selFrom < 0 || root == "":
		dv.setStatusLocked("Select the lines to comment on first.", true)
		return
	case body == "":
		dv.setStatusLocked("Type the comment first.", true)
		return
	}
	end := dv.selEnd
	p := proto.ReviewCommentParams{Worktree: root, Path: dv.selPath, StartLine: dv.selStart, EndLine: &end, Body: body}
	dv.commentAdd.Disable()
	s.goReview(dv.ctx, func(ctx context.Context) {
		res, err := s.reviewClient(dv, 0).ReviewComment(ctx, p)
		s.do(func() {
			dv.commentAdd.Enable()
			if s.views.top != dv {
				return
			}
			if err != nil {
				dv.setStatusLocked(reviewError("comment", err), true)
				return
			}
			dv.commentText.SetText("")
			s.selectDiffRowLocked(dv, -1, false)
			dv.setStatusLocked("Comment added: "+commentTitle(res.Comment)+".", false)
			s.refreshReviewLocked(dv)
		})
	})
}

// refreshReviewLocked reads the worktree's open comments (re-anchored by
// the server) and its checks, then shows them.
func (s *shell) refreshReviewLocked(dv *diffView) {
	root := dv.root()
	if root == "" {
		return
	}
	s.goReview(dv.ctx, func(ctx context.Context) {
		cl := s.reviewClient(dv, 0)
		list, lerr := cl.ReviewList(ctx, proto.ReviewListParams{Worktree: root})
		checks, cerr := cl.ChecksStatus(ctx, proto.ChecksParams{Worktree: root})
		s.do(func() {
			if s.views.top != dv { // closed meanwhile (ctx has ended by now: this runs after the goroutine returned)
				return
			}
			if lerr != nil {
				dv.setStatusLocked(reviewError("comments", lerr), true)
			} else {
				dv.comments = list.Comments
			}
			if cerr == nil {
				dv.checks, dv.checksCfg = checks.Checks, checks.Config != ""
			} else {
				dv.checks, dv.checksCfg = nil, false
			}
			s.showReviewLocked(dv)
		})
	})
}

// showReviewLocked shows dv's comments and checks: the list, the rows
// under their lines, the buttons' states.
func (s *shell) showReviewLocked(dv *diffView) {
	var objs []fyne.CanvasObject
	keys := s.canvasKeys()
	for _, c := range dv.comments {
		title := widget.NewLabelWithStyle(commentTitle(c), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		title.Truncation = fyne.TextTruncateEllipsis
		if c.Outdated {
			title.Importance = widget.WarningImportance
		}
		body := widget.NewLabel(c.Body)
		body.Wrapping = fyne.TextWrapWord
		id := c.ID
		resolve := newPassButton("Resolve", theme.ConfirmIcon(), func() { s.guard(func() { s.resolveCommentLocked(dv, id) }) }, keys)
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
	s.renderDiffLocked(dv)
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

// resolveCommentLocked resolves comment id (review.resolve).
func (s *shell) resolveCommentLocked(dv *diffView, id string) {
	root := dv.root()
	s.goReview(dv.ctx, func(ctx context.Context) {
		_, err := s.reviewClient(dv, 0).ReviewResolve(ctx, proto.ReviewResolveParams{Worktree: root, IDs: []string{id}})
		s.do(func() {
			if s.views.top != dv {
				return
			}
			if err != nil {
				dv.setStatusLocked(reviewError("resolve", err), true)
				return
			}
			dv.setStatusLocked("Comment "+id+" resolved.", false)
			s.refreshReviewLocked(dv)
		})
	})
}

// sendReviewLocked sends the open comments to the agent working in the
// worktree as one prompt (review.send), then confirms its turn started.
func (s *shell) sendReviewLocked(dv *diffView) {
	root := dv.root()
	if root == "" || len(dv.comments) == 0 {
		return
	}
	dv.sendBtn.Disable()
	dv.setStatusLocked(fmt.Sprintf("Sending %d comments to the agent…", len(dv.comments)), false)
	s.deliverLocked(dv, "comments", func(ctx context.Context, p proto.ReviewSendParams) (proto.ReviewSendResult, error) {
		return s.reviewClient(dv, reviewInputWait+reviewCallMargin).ReviewSend(ctx, p)
	})
}

// sendFailureLocked sends the first failing check's output to the agent
// (checks.send), then confirms its turn started.
func (s *shell) sendFailureLocked(dv *diffView) {
	name := failingCheck(dv.checks)
	if dv.root() == "" || name == "" {
		return
	}
	dv.failBtn.Disable()
	dv.setStatusLocked("Sending check "+name+"'s failure to the agent…", false)
	s.deliverLocked(dv, "check "+name, func(ctx context.Context, p proto.ReviewSendParams) (proto.ReviewSendResult, error) {
		p.Check = name
		return s.reviewClient(dv, reviewInputWait+reviewCallMargin).ChecksSend(ctx, p)
	})
}

// deliverLocked runs a send (review.send or checks.send) on the view's
// worktree, confirms the agent's turn start and shows the outcome. The
// send is not cancelled when the view closes (the prompt may be typed
// already); its outcome then goes to the banner.
func (s *shell) deliverLocked(dv *diffView, what string, send func(context.Context, proto.ReviewSendParams) (proto.ReviewSendResult, error)) {
	wait := reviewInputWait.Milliseconds()
	p := proto.ReviewSendParams{Worktree: dv.root(), InputWaitMS: &wait}
	s.goReview(nil, func(ctx context.Context) {
		res, err := send(ctx, p)
		msg, bad := "", false
		if err != nil {
			msg, bad = reviewError("send "+what, err), true
		} else {
			msg = fmt.Sprintf("Sent %s to pane %d", what, res.SurfaceID)
			if !res.Send.InputReady {
				msg += fmt.Sprintf(" (the agent had not read its input after %v; the text was typed anyway)", reviewInputWait)
			}
			reason, cerr := s.reviewClient(dv, 0).ConfirmTurnStart(ctx, res.SurfaceID, res.StatusBefore)
			if cerr != nil {
				msg, bad = msg+": "+cerr.Error(), true
			} else {
				msg += "; the agent started its turn (" + reason + ")."
			}
		}
		s.do(func() {
			if s.views.top != dv {
				s.chrome.banner.show(msg)
				return
			}
			dv.setStatusLocked(msg, bad)
			s.refreshReviewLocked(dv)
		})
	})
}

// runChecksLocked runs the worktree's checks (checks.run) and shows them.
func (s *shell) runChecksLocked(dv *diffView) {
	root := dv.root()
	if root == "" {
		return
	}
	dv.checkBtn.Disable()
	dv.checkBtn.SetText("Checks running…")
	dv.setStatusLocked("Running the checks…", false)
	s.goReview(dv.ctx, func(ctx context.Context) {
		res, err := s.reviewClient(dv, checksCallWait).ChecksRun(ctx, proto.ChecksParams{Worktree: root})
		s.do(func() {
			if s.views.top != dv {
				return
			}
			dv.checkBtn.Enable()
			if err != nil {
				dv.checkBtn.SetText("Run checks")
				dv.setStatusLocked(reviewError("checks", err), true)
				return
			}
			var parts []string
			for _, c := range res.Checks {
				parts = append(parts, c.Name+" "+checkSummary(c))
			}
			dv.setStatusLocked("Checks: "+strings.Join(parts, " · "), failingCheck(res.Checks) != "")
			s.refreshReviewLocked(dv)
		})
	})
}

// openLandLocked asks how to land the worktree's branch: the strategy
// (the repository's configured default chosen), then lands it.
func (s *shell) openLandLocked(dv *diffView) {
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
		s.guard(func() {
			d.Hide()
			s.landLocked(dv, proto.LandParams{Worktree: root, Strategy: strategy.Selected})
		})
	}
	content := container.NewVBox(msg, strategy, note, container.NewHBox(layout.NewSpacer(), cancel, land))
	d = dialog.NewCustomWithoutButtons("Land "+branch, content, s.w)
	d.Resize(fyne.NewSize(520, 220))
	dv.landWith = strategy
	s.w.Canvas().Unfocus() // Enter lands, Escape cancels
	s.kb.forget()
	dv.answers[land.Text] = land
	s.showDialogLocked(d, nil, land.OnTapped, d.Hide)
	s.goReview(dv.ctx, func(ctx context.Context) {
		st, err := review.LandDefault(ctx, root)
		s.do(func() {
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

// landLocked lands (land.run) and shows the outcome: after a conflict the
// files, with "Hand to agent" and "Open pane"; after a clean land, the
// offer to tear the worktree down.
func (s *shell) landLocked(dv *diffView, p proto.LandParams) {
	dv.landBtn.Disable()
	dv.setStatusLocked("Landing with "+p.Strategy+"…", false)
	s.goReview(nil, func(ctx context.Context) {
		res, err := s.reviewClient(dv, landCallWait).LandRun(ctx, p)
		s.do(func() {
			if s.views.top == dv {
				dv.landBtn.Enable()
			}
			if err != nil {
				s.landStatusLocked(dv, reviewError("land", err), true)
				return
			}
			if !res.Landed {
				s.landStatusLocked(dv, fmt.Sprintf("%s did not land: conflicts in %s; %s is unchanged.", res.Branch, strings.Join(res.Conflicts, ", "), res.Base), true)
				s.showConflictLocked(dv, p, res)
				return
			}
			s.landStatusLocked(dv, fmt.Sprintf("Landed %s into %s with %s (%d commits, now %s).", res.Branch, res.Base, res.Strategy, res.Commits, shortHash(res.Commit)), false)
			select {
			case dv.reload <- struct{}{}: // the diff against the moved base
			default:
			}
			s.offerTeardownLocked(dv, res)
		})
	})
}

// landStatusLocked shows a land's outcome in the view, or the banner
// when the view closed meanwhile.
func (s *shell) landStatusLocked(dv *diffView, msg string, bad bool) {
	if s.views.top == dv {
		dv.setStatusLocked(msg, bad)
		return
	}
	s.chrome.banner.show(msg)
}

// showConflictLocked lists a land's conflicting files and offers to hand
// them to the agent (land.run again with send_conflicts: it types the
// files into the agent) or to open the agent's pane.
func (s *shell) showConflictLocked(dv *diffView, p proto.LandParams, res proto.LandResult) {
	files := widget.NewLabel(strings.Join(res.Conflicts, "\n"))
	head := widget.NewLabel(fmt.Sprintf("%s did not land into %s: these files conflict. The merge was aborted and %s is as it was.", res.Branch, res.Base, res.Base))
	head.Wrapping = fyne.TextWrapWord
	var d dialog.Dialog
	hand := widget.NewButtonWithIcon("Hand to agent", theme.MailSendIcon(), func() {
		s.guard(func() {
			d.Hide()
			send := true
			p.SendConflicts = &send
			wait := reviewInputWait.Milliseconds()
			p.InputWaitMS = &wait
			s.landConflictToAgentLocked(dv, p)
		})
	})
	hand.Importance = widget.HighImportance
	open := widget.NewButtonWithIcon("Open pane", theme.ComputerIcon(), func() {
		s.guard(func() {
			d.Hide()
			s.openWorktreePaneLocked(res.Worktree)
		})
	})
	closeBtn := widget.NewButton("Close", func() { d.Hide() })
	content := container.NewBorder(head, container.NewHBox(layout.NewSpacer(), closeBtn, open, hand), nil, nil, container.NewVScroll(files))
	d = dialog.NewCustomWithoutButtons("Conflicts", content, s.w)
	d.Resize(fyne.NewSize(560, 320))
	for _, b := range []*widget.Button{hand, open, closeBtn} {
		dv.answers[b.Text] = b
	}
	s.showDialogLocked(d, nil, nil, d.Hide)
}

// landConflictToAgentLocked lands again with send_conflicts: the land
// stops on the same conflict and the server types the files into the
// agent working in the worktree; the turn start is confirmed.
func (s *shell) landConflictToAgentLocked(dv *diffView, p proto.LandParams) {
	s.goReview(nil, func(ctx context.Context) {
		res, err := s.reviewClient(dv, landCallWait+reviewInputWait).LandRun(ctx, p)
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
			if reason, cerr := s.reviewClient(dv, 0).ConfirmTurnStart(ctx, res.Sent.SurfaceID, res.Sent.StatusBefore); cerr != nil {
				msg, bad = msg+": "+cerr.Error(), true
			} else {
				msg += "; the agent started its turn (" + reason + ")."
			}
		}
		s.do(func() { s.landStatusLocked(dv, msg, bad) })
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
	closeShownLocked[*diffView](s)
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

// offerTeardownLocked offers, after a clean land, to tear the worktree
// down (land.teardown: its panes closed, the worktree removed), keeping
// or deleting the branch.
func (s *shell) offerTeardownLocked(dv *diffView, res proto.LandResult) {
	if res.Worktree == res.RepoRoot {
		return // the main working tree is never torn down
	}
	msg := widget.NewLabel(fmt.Sprintf("%s landed into %s. Tear the worktree %s down? Its panes close and the worktree is removed (only when it is clean).", res.Branch, res.Base, res.Worktree))
	msg.Wrapping = fyne.TextWrapWord
	var d dialog.Dialog
	teardown := func(deleteBranch bool) func() {
		return func() {
			s.guard(func() {
				d.Hide()
				s.teardownLocked(dv, res, deleteBranch)
			})
		}
	}
	keep := widget.NewButton("Keep the worktree", func() { d.Hide() })
	tdKeep := widget.NewButton("Tear down, keep the branch", teardown(false))
	tdKeep.Importance = widget.HighImportance
	tdDel := widget.NewButton("Tear down, delete the branch", teardown(true))
	tdDel.Importance = widget.DangerImportance
	content := container.NewVBox(msg, container.NewHBox(layout.NewSpacer(), keep, tdDel, tdKeep))
	d = dialog.NewCustomWithoutButtons("Landed", content, s.w)
	d.Resize(fyne.NewSize(640, 180))
	for _, b := range []*widget.Button{keep, tdKeep, tdDel} {
		dv.answers[b.Text] = b
	}
	s.showDialogLocked(d, nil, nil, d.Hide)
}

// teardownLocked tears a landed worktree down (land.teardown).
func (s *shell) teardownLocked(dv *diffView, res proto.LandResult, deleteBranch bool) {
	p := proto.LandTeardownParams{Worktree: res.Worktree, Branch: res.Branch, Strategy: res.Strategy, DeleteBranch: &deleteBranch}
	s.goReview(nil, func(ctx context.Context) {
		out, err := s.reviewClient(dv, landCallWait).LandTeardown(ctx, p)
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
		s.do(func() { s.landStatusLocked(dv, msg, bad) })
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

// checkPRLocked enables "Open pull request" where gh and a GitHub remote
// exist; otherwise the button stays disabled and says why.
func (s *shell) checkPRLocked(dv *diffView) {
	root, branch := dv.root(), dv.diff.Branch
	s.goReview(dv.ctx, func(ctx context.Context) {
		why := prReason(ctx, root, branch)
		s.do(func() {
			if s.views.top != dv {
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

// openPRLocked opens the branch's pull request (land.pr: pushed, then
// `gh pr create` with the agent's last result as its body).
func (s *shell) openPRLocked(dv *diffView) {
	root := dv.root()
	if root == "" {
		return
	}
	dv.prBtn.Disable()
	dv.setStatusLocked("Pushing and opening the pull request…", false)
	s.goReview(nil, func(ctx context.Context) {
		res, err := s.reviewClient(dv, landCallWait).LandPR(ctx, proto.LandPRParams{Worktree: root})
		s.do(func() {
			if s.views.top == dv {
				dv.prBtn.Enable()
			}
			if err != nil {
				s.landStatusLocked(dv, reviewError("pull request", err), true)
				return
			}
			s.landStatusLocked(dv, fmt.Sprintf("Opened the pull request of %s into %s: %s", res.Branch, res.Base, res.URL), false)
		})
	})
}
