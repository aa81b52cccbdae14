package app

import "context"

// overlay is a view shown over the panes in the shell's one overlay slot
// (shell.views.top): the Diff view and the panels (the command palette,
// settings, shortcuts, the launch pad, quick launch and the template
// view, the MCP and web access views, the search, timeline and replay
// views) in a
// shownPanel. One is open at a time: opening one closes the one shown
// (closeOverlaysLocked).
//
// A view's own callbacks check that it is still the one shown
// (s.views.top == v; a panel's host.shown(p)) before they touch it: a
// closed view's late answers are dropped.
type overlay interface {
	// dismiss hides the view and cancels the work it started (socket
	// calls, git, spec resolving). The caller holds the shell's lock and
	// forgets the view.
	dismiss()
}

// cockpit is the cockpit views' state the shell keeps: the one view open
// in the overlay, and what the launch views keep between openings.
type cockpit struct {
	top    overlay   // the view in the overlay (Diff, a panel), nil when none
	launch *launcher // the flow launched last, recent specs, the agents found, the home spec paths resolve against
}

// shownAs is the open overlay as a T, or nil when none or another view
// is open. The caller holds the shell's lock.
func shownAs[T overlay](s *shell) T {
	v, _ := s.views.top.(T)
	return v
}

// dismissOverlayLocked closes the open overlay, if any, without giving
// the keyboard back (closeOverlaysLocked's part).
func (s *shell) dismissOverlayLocked() {
	if s.views.top != nil {
		s.views.top.dismiss()
		s.views.top = nil
	}
}

// closeOverlayLocked closes the open overlay, if any, and gives the
// keyboard back to the focused pane.
func (s *shell) closeOverlayLocked() {
	if s.views.top == nil {
		return
	}
	s.dismissOverlayLocked()
	s.focusViewLocked(s.pos.focus)
}

// closeShownLocked closes the open overlay if it is a T (a view's own
// Close button, Escape or action), and gives the keyboard back to the
// focused pane.
func closeShownLocked[T overlay](s *shell) {
	if _, ok := s.views.top.(T); ok {
		s.closeOverlayLocked()
	}
}

// dismiss hides the panel and cancels its calls, if it makes any.
func (p *shownPanel) dismiss() {
	if c, ok := p.p.(interface{ cancelCalls() }); ok {
		c.cancelCalls()
	}
	p.pop.close()
}

// calls is the context a view's calls run under (socket calls, git);
// cancel ends it when the view is dismissed. The Diff view and the
// history panels embed it.
type calls struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newCalls() calls {
	ctx, cancel := context.WithCancel(context.Background())
	return calls{ctx: ctx, cancel: cancel}
}

// cancelCalls ends the calls (a panel's, when it is dismissed).
func (c calls) cancelCalls() { c.cancel() }

// dismiss cancels the view's git and hides it.
func (dv *diffView) dismiss() {
	dv.cancel()
	dv.pop.close()
}
