package app

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// panel is a cockpit view that owns its state: a Fyne widget (with its
// renderer) built over a [panelHost], shown by the shell in its overlay
// (openPanelLocked), one overlay at a time. The command palette, the
// settings view, the keyboard shortcuts sheet, the Diff view (over a
// diffHost), the launch pad, quick launch and the template view (over a
// launchHost), the MCP and web access views and the history views
// (search, agent timeline, replay) are panels; the agents overview owns
// its state over a host of its own (overviewHost: it stands in the split
// area's place, not in the overlay).
//
// A panel reaches the shell only through its host. Its widgets are used
// on the UI goroutine; a panel whose goroutines post outcomes back uses
// them holding the shell's lock (host.guard in its callbacks, host.do
// for the outcomes), never taking the lock another way.
type panel interface {
	fyne.Widget
	// focusTarget is the widget given the keyboard when the panel opens;
	// nil for none.
	focusTarget() fyne.Focusable
}

// panelHost is the shell as a panel sees it. closePanel, saveConfig,
// runAction and guard are called on the UI goroutine, from the panel's
// Fyne callbacks, without the shell's lock (they take it themselves);
// shown, goCall, focusPane, notice and showDialog holding it; window on
// the UI goroutine; do, caller, clipboard, configPath, paneClient and
// logf from any goroutine. A family of panels that needs more takes a
// host of its own that embeds it: historyHost, launchHost, diffHost.
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

	// guard runs f holding the shell's lock: a panel's widget callback
	// that touches state its goroutines' outcomes also touch (see do).
	guard(f func())
	// do runs f on the UI goroutine holding the shell's lock: the
	// outcome of a panel's goroutine. f checks shown first: a closed
	// panel's late outcome is dropped.
	do(f func())
	// shown reports whether p is the open panel. The caller holds the
	// shell's lock (in guard or do).
	shown(p panel) bool
	// caller makes the backend's socket calls, each bounded by timeout.
	caller(timeout time.Duration) proto.Caller
	// clipboard is the window's clipboard.
	clipboard() fyne.Clipboard
	// configPath is the configuration file (Options.ConfigPath); "" for
	// none.
	configPath() string
	// logf writes a diagnostic.
	logf(format string, args ...any)

	// goCall runs f on a goroutine of its own that the shell's stop
	// waits for (a socket call; none starts once the window quits). The
	// caller holds the shell's lock.
	goCall(f func())
	// paneClient reaches the server holding window-side pane id (its
	// host's for another host's pane) and gives the id that server knows
	// it by.
	paneClient(id uint64) (proto.Client, uint64)
	// focusPane closes the panel and focuses pane id. The caller holds
	// the shell's lock.
	focusPane(id uint64)
	// notice shows msg in the window's banner. The caller holds the
	// shell's lock.
	notice(msg string)
	// window is the window, for the panel's dialogs.
	window() fyne.Window
	// showDialog shows d over the window, the keyboard answering it:
	// Enter calls enter and Escape escape (nil: the key does nothing;
	// showDialogLocked). The caller holds the shell's lock.
	showDialog(d dialog.Dialog, enter, escape func())
}

// historyHost is the shell as the history views (search, the agent
// timeline) see it: a panelHost plus the search over every host and the
// places a result opens. Its methods are called holding the shell's
// lock.
type historyHost interface {
	panelHost
	// openReplay opens the replay of pane id (named name) at screen (0:
	// the newest), highlighting mark unless it is nil, in the panel's
	// place. The caller holds the shell's lock.
	openReplay(id uint64, name string, screen uint64, mark *replayMark)
	// searchAll gives a function that searches every server the window
	// shows (called off the UI goroutine). The caller holds the shell's
	// lock.
	searchAll() func(context.Context, proto.SearchAllParams) []hostSearch
	// revealMatch closes the panel, scrolls pane id's view (named name)
	// to match m, highlighted, unless m is nil, and focuses the pane. The
	// caller holds the shell's lock.
	revealMatch(id uint64, name string, m *proto.SearchAllMatch)
}

// launchHost is the shell as the launch views (the launch pad, quick
// launch, the template view) see it: a panelHost, their shared launcher
// and what launching needs besides. Every method but resolveTarget is
// called holding the shell's lock; resolveTarget off the UI goroutine.
type launchHost interface {
	panelHost
	// launcher is the state the launch views share (the flow launched
	// last, the recent specs, the agents found).
	launcher() *launcher
	// agentPlace is where an agent's new pane goes: the pane to split
	// and the direction (agentPlaceLocked).
	agentPlace() (target uint64, direction string)
	// openSpec notes the spec at path as recently used and opens the
	// launch pad with it selected, in the panel's place.
	openSpec(path string)
	// closeShown closes p if it is the open panel (closePanel, for a
	// caller holding the lock).
	closeShown(p panel)
	// resolveTarget finds the pane a flow's send target names (a
	// surface id or a pane name).
	resolveTarget(ctx context.Context, target string) (uint64, error)
	// probe writes probe's "ui-probe" lines once it reports every widget
	// it looks at placed (PANEFLOW_UI_PROBE=1; probeLater); probeLine is
	// one such line.
	probe(probe func() (bool, []string))
	probeLine(what string, o fyne.CanvasObject) (line string, found bool)
}

// diffHost is the shell as the Diff view sees it: a panelHost plus the
// servers its review calls go to, the keyboard, and the panes it opens.
// Every method is called holding the shell's lock but reviewClient and
// reviewStream, which are called from any goroutine.
type diffHost interface {
	panelHost
	// goReview runs f on a goroutine of its own that the shell's stop
	// waits for, with a context that ends when the shell stops and, when
	// view is not nil, when view ends (shell.goReview).
	goReview(view context.Context, f func(ctx context.Context))
	// reviewClient reaches host slot's server (0: the window's own), its
	// calls bounded by timeout (0: the default).
	reviewClient(slot int, timeout time.Duration) proto.Client
	// reviewStream opens a stream of host slot's server (0: the window's
	// own, when it is attached).
	reviewStream(ctx context.Context, slot int, method string, params any) (*ipc.Stream, error)
	// keys is the live keymap (the view's DiffView actions and hints).
	keys() *keymap.Map
	// canvasKeys passes the keys a button does not use on to the
	// window's canvas (the view's keys, Escape).
	canvasKeys() *canvasKeys
	// focus gives f the keyboard; nil takes it from every widget, so
	// keys reach the canvas.
	focus(f fyne.Focusable)
	// forgetModifiers forgets the modifiers the window holds (released
	// in a field, where the canvas did not see them).
	forgetModifiers()
	// openURL opens u with the desktop (a folder: its file manager).
	openURL(u *url.URL) error
	// openWorktreePane closes the view and shows the pane working in the
	// worktree at root (its agent's first), else a new shell there.
	openWorktreePane(root string)
}

// shownPanel is the panel in the shell's overlay slot (overlay.go).
type shownPanel struct {
	p   panel
	pop *popup
}

// openPanelLocked shows p in the overlay, closing whatever overlay was
// open; the panel's focus target gets the keyboard.
func (s *shell) openPanelLocked(p panel, size fyne.Size) {
	s.closeOverlaysLocked()
	s.views.top = &shownPanel{p: p, pop: s.showPopupLocked(p, size, p.focusTarget())}
}

// panelShownLocked reports whether p is the open panel.
func (s *shell) panelShownLocked(p panel) bool {
	sp := s.views.top
	return sp != nil && sp.p == p
}

// shownPanelAs is the open panel as a P, or nil when none or another
// view is open. The caller holds the shell's lock.
func shownPanelAs[P panel](s *shell) P {
	var p P
	if sp := s.views.top; sp != nil {
		p, _ = sp.p.(P)
	}
	return p
}

// closeShownPanelLocked closes the open panel if it is a P and reports
// whether it did. The caller holds the shell's lock.
func closeShownPanelLocked[P panel](s *shell) bool {
	if sp := s.views.top; sp != nil {
		if _, ok := sp.p.(P); ok {
			s.closeOverlayLocked()
			return true
		}
	}
	return false
}

// togglePanelLocked opens the panel build makes over the shell's host
// (each panel takes the host interface of its family), or closes the
// open panel when it is a P already (the panels' actions toggle them).
// The caller holds the shell's lock.
func togglePanelLocked[P panel](s *shell, build func(shellHost) P, size fyne.Size) {
	if !closeShownPanelLocked[P](s) {
		s.openPanelLocked(build(shellHost{s}), size)
	}
}

// shellHost is the shell's panelHost, and each family's host.
type shellHost struct{ s *shell }

var (
	_ panelHost    = shellHost{}
	_ launchHost   = shellHost{}
	_ historyHost  = shellHost{}
	_ diffHost     = shellHost{}
	_ composerHost = shellHost{}
)

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

func (h shellHost) guard(f func())                              { h.s.guard(f) }
func (h shellHost) do(f func())                                 { h.s.do(f) }
func (h shellHost) shown(p panel) bool                          { return h.s.panelShownLocked(p) }
func (h shellHost) caller(timeout time.Duration) proto.Caller   { return h.s.b.Caller(timeout) }
func (h shellHost) clipboard() fyne.Clipboard                   { return h.s.a.Clipboard() }
func (h shellHost) configPath() string                          { return h.s.o.ConfigPath }
func (h shellHost) logf(format string, args ...any)             { h.s.logf(format, args...) }
func (h shellHost) goCall(f func())                             { h.s.goCall(f) }
func (h shellHost) paneClient(id uint64) (proto.Client, uint64) { return h.s.paneClient(id) }
func (h shellHost) openReplay(id uint64, name string, screen uint64, mark *replayMark) {
	h.s.openPanelLocked(newReplayView(h, id, name, screen, mark), replaySize)
}
func (h shellHost) searchAll() func(context.Context, proto.SearchAllParams) []hostSearch {
	return h.s.searchAllLocked()
}
func (h shellHost) revealMatch(id uint64, name string, m *proto.SearchAllMatch) {
	h.s.revealMatchLocked(id, name, m)
}
func (h shellHost) notice(msg string)   { h.s.chrome.banner.show(msg) }
func (h shellHost) window() fyne.Window { return h.s.w }
func (h shellHost) focusPane(id uint64) {
	s := h.s
	s.closeOverlayLocked()
	s.work.mutate("focus", func() error { return s.b.Focus(id) })
}

func (h shellHost) launcher() *launcher          { return h.s.views.launch }
func (h shellHost) agentPlace() (uint64, string) { return h.s.agentPlaceLocked() }
func (h shellHost) openSpec(path string)         { h.s.openSpecLocked(path) }
func (h shellHost) closeShown(p panel) {
	if h.s.panelShownLocked(p) {
		h.s.closeOverlayLocked()
	}
}
func (h shellHost) showDialog(d dialog.Dialog, enter, escape func()) {
	h.s.showDialogLocked(d, nil, enter, escape)
}
func (h shellHost) resolveTarget(ctx context.Context, t string) (uint64, error) {
	return h.s.resolveTarget(ctx, t)
}
func (h shellHost) probe(probe func() (bool, []string)) { h.s.probeLater(probe, 300) }
func (h shellHost) probeLine(what string, o fyne.CanvasObject) (string, bool) {
	return h.s.probeLineLocked(what, o)
}

// toggleLaunchPadLocked opens the launch pad (or closes it when open).
func (s *shell) toggleLaunchPadLocked() {
	togglePanelLocked(s, s.newLaunchPadLocked, launchPadSize(s.w.Canvas().Size()))
}

// newLaunchPadLocked builds the launch pad over h, for the focused
// pane's directory.
func (s *shell) newLaunchPadLocked(h shellHost) *launchPad {
	return newLaunchPad(h, s.focusedCwdLocked(), s.chrome.side.shortPath, s.conf.keys)
}

func (h shellHost) goReview(view context.Context, f func(ctx context.Context)) { h.s.goReview(view, f) }
func (h shellHost) reviewClient(slot int, timeout time.Duration) proto.Client {
	return h.s.reviewClient(slot, timeout)
}
func (h shellHost) reviewStream(ctx context.Context, slot int, method string, params any) (*ipc.Stream, error) {
	return h.s.reviewStream(ctx, slot, method, params)
}
func (h shellHost) keys() *keymap.Map         { return h.s.conf.keys }
func (h shellHost) canvasKeys() *canvasKeys   { return h.s.canvasKeys() }
func (h shellHost) forgetModifiers()          { h.s.kb.forget() }
func (h shellHost) openURL(u *url.URL) error  { return h.s.a.OpenURL(u) }
func (h shellHost) openWorktreePane(r string) { h.s.openWorktreePaneLocked(r) }
func (h shellHost) focus(f fyne.Focusable) {
	if f == nil {
		h.s.w.Canvas().Unfocus()
		return
	}
	h.s.w.Canvas().Focus(f)
}

func (h shellHost) paneName(id uint64) string {
	return h.s.pos.paneName(id, fmt.Sprintf("pane %d", id))
}
func (h shellHost) agentStatus(id uint64) (bus.AgentState, bool) { return h.s.agents.status(id) }
func (h shellHost) queued(id uint64) bool {
	_, ok := h.s.panes.queued[id]
	return ok
}
func (h shellHost) group(id uint64) (string, []uint64, bool) {
	g, ok := h.s.panes.groups[id]
	if !ok {
		return "", nil, false
	}
	return g, h.s.groupMembersLocked(g), true
}
func (h shellHost) send(targets []uint64, p queuedPrompt) { h.s.sendPromptLocked(targets, p) }
func (h shellHost) paneKeyboard()                         { h.s.focusViewLocked(h.s.pos.focus) }
