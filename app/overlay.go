package app

import "context"

// The shell has one overlay slot (shell.views.top) over the panes, and
// every cockpit view shown there is a panel (panel.go) in a shownPanel:
// the command palette, settings, shortcuts, the Diff view, the launch
// pad, quick launch and the template view, the MCP and web access views,
// the search, timeline and replay views. One is open at a time: opening
// one closes the one shown (closeOverlaysLocked). A panel's own
// callbacks check that it is still the one shown (host.shown(p)) before
// they touch it: a closed panel's late answers are dropped.

// cockpit is the cockpit views' state the shell keeps: the panel open in
// the overlay, and what the launch views keep between openings.
type cockpit struct {
	top    *shownPanel // the panel in the overlay, nil when none
	launch *launcher   // the flow launched last, recent specs, the agents found, the home spec paths resolve against
}

// dismissOverlayLocked closes the open panel, if any, without giving the
// keyboard back (closeOverlaysLocked's part).
func (s *shell) dismissOverlayLocked() {
	if s.views.top != nil {
		s.views.top.dismiss()
		s.views.top = nil
	}
}

// closeOverlayLocked closes the open panel, if any, and gives the
// keyboard back to the focused pane.
func (s *shell) closeOverlayLocked() {
	if s.views.top == nil {
		return
	}
	s.dismissOverlayLocked()
	s.focusViewLocked(s.pos.focus)
}

// dismiss hides the panel and cancels the work it started (socket calls,
// git, spec resolving), if it makes any. The caller holds the shell's
// lock and forgets the panel.
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
