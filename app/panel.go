package app

import (
	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/config"
)

// panel is a cockpit view that owns its state: a Fyne widget (with its
// renderer) built over a [panelHost], shown by the shell in its overlay
// (openPanelLocked), one overlay at a time. The settings view and the
// keyboard shortcuts sheet are panels; the agents overview owns its
// state over a host of its own (overviewHost: it stands in the split
// area's place, not in the overlay); the older views are still the
// shell's methods (issue 29 asks for them to become panels too).
//
// A panel's methods run on the UI goroutine; it never holds the shell's
// lock itself and reaches the shell only through its host.
type panel interface {
	fyne.Widget
	// focusTarget is the widget given the keyboard when the panel opens;
	// nil for none.
	focusTarget() fyne.Focusable
}

// panelHost is the shell as a panel sees it. Its methods are called on
// the UI goroutine, from the panel's Fyne callbacks, without the shell's
// lock (they take it themselves).
type panelHost interface {
	// closePanel closes the panel if it is the open one, and gives the
	// keyboard back to the focused pane.
	closePanel(p panel)
	// saveConfig writes edits into the configuration file (config.Save)
	// off the UI goroutine, then calls done on the UI goroutine with its
	// error, holding the shell's lock (done must not call the host); the
	// file's watcher then applies the change to the window.
	saveConfig(edits []config.Edit, done func(error))
	// runAction closes the panel and runs a keymap action, as the
	// command palette does.
	runAction(p panel, a keymap.Action)
}

// shownPanel is the panel in the shell's overlay (an [overlay]).
type shownPanel struct {
	p   panel
	pop *popup
}

// openPanelLocked shows p in the overlay, closing whatever overlay was
// open; the panel's focus target gets the keyboard.
func (s *shell) openPanelLocked(p panel, size fyne.Size) {
	s.closeOverlaysLocked()
	s.top = &shownPanel{p: p, pop: s.showPopupLocked(p, size, p.focusTarget())}
}

// panelShownLocked reports whether p is the open panel.
func (s *shell) panelShownLocked(p panel) bool {
	sp := shownAs[*shownPanel](s)
	return sp != nil && sp.p == p
}

// togglePanelLocked opens the panel build makes, or closes the open panel
// when it is a P already (the panels' actions toggle them). The caller
// holds the shell's lock.
func togglePanelLocked[P panel](s *shell, build func() P, size fyne.Size) {
	if sp := shownAs[*shownPanel](s); sp != nil {
		if _, ok := sp.p.(P); ok {
			s.closeOverlayLocked()
			return
		}
	}
	s.openPanelLocked(build(), size)
}

// shellHost is the shell's panelHost.
type shellHost struct{ s *shell }

var _ panelHost = shellHost{}

func (h shellHost) closePanel(p panel) {
	h.s.guard(func() {
		if h.s.panelShownLocked(p) {
			h.s.closeOverlayLocked()
		}
	})
}

func (h shellHost) saveConfig(edits []config.Edit, done func(error)) {
	s := h.s
	path := s.o.ConfigPath
	s.work.mutate("settings", func() error {
		err := errNoConfigFile
		if path != "" {
			err = config.Save(path, edits...)
		}
		s.do(func() { done(err) })
		return nil
	})
}

func (h shellHost) runAction(p panel, a keymap.Action) {
	h.s.guard(func() {
		if !h.s.panelShownLocked(p) {
			return
		}
		h.s.closeOverlayLocked()
		h.s.runActionLocked(a)
	})
}
