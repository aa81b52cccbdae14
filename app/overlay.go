package app

// overlay is a view shown over the panes in the shell's one overlay slot
// (shell.top): the command palette, the Diff view, the launch pad, quick
// launch and template views, the search, timeline and replay views, the
// MCP and web access views, and the panels (settings, shortcuts). One is
// open at a time: opening one closes the one shown (closeOverlaysLocked).
//
// A view's own callbacks check that it is still the one shown
// (s.top == v) before they touch it: a closed view's late answers are
// dropped.
type overlay interface {
	// dismiss hides the view and cancels the work it started (socket
	// calls, git, spec resolving). The caller holds the shell's lock and
	// forgets the view.
	dismiss()
}

// shownAs is the open overlay as a T, or nil when none or another view
// is open. The caller holds the shell's lock.
func shownAs[T overlay](s *shell) T {
	v, _ := s.top.(T)
	return v
}

// dismissOverlayLocked closes the open overlay, if any, without giving
// the keyboard back (closeOverlaysLocked's part).
func (s *shell) dismissOverlayLocked() {
	if s.top != nil {
		s.top.dismiss()
		s.top = nil
	}
}

// closeOverlayLocked closes the open overlay, if any, and gives the
// keyboard back to the focused pane.
func (s *shell) closeOverlayLocked() {
	if s.top == nil {
		return
	}
	s.dismissOverlayLocked()
	s.focusViewLocked(s.pos.focus)
}

// closeShownLocked closes the open overlay if it is a T (a view's own
// Close button, Escape or action), and gives the keyboard back to the
// focused pane.
func closeShownLocked[T overlay](s *shell) {
	if _, ok := s.top.(T); ok {
		s.closeOverlayLocked()
	}
}

func (p *palette) dismiss()      { p.pop.close() }
func (v *mcpView) dismiss()      { v.pop.close() }
func (v *webView) dismiss()      { v.pop.close() }
func (q *quickLaunch) dismiss()  { q.pop.close() }
func (t *templateView) dismiss() { t.pop.close() }
func (p *shownPanel) dismiss()   { p.pop.close() }

func (dv *diffView) dismiss() {
	dv.cancel()
	dv.pop.close()
}

func (v *searchView) dismiss() {
	v.cancel()
	v.pop.close()
}

func (v *timelineView) dismiss() {
	v.cancel()
	v.pop.close()
}

func (v *replayView) dismiss() {
	v.cancel()
	v.pop.close()
}

// dismiss answers the pad's trust question "no" and stops resolving.
func (lp *launchPad) dismiss() {
	lp.cancelResolve()
	if lp.trust != nil {
		lp.trust.Hide()
		lp.trust, lp.trustYes, lp.trustNo = nil, nil, nil
	}
	lp.pop.close()
}
