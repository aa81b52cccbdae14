package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/notify"
)

// queuedPrompt is a prompt held for a pane whose agent is thinking.
type queuedPrompt struct {
	text   string
	submit bool
}

// composer is the prompt composer: a multi-line input under the panes for
// the pane focused when it opened (spec gui.md §9). Alt+Enter or
// "Prefill" types the prompt into the pane as one (bracketed) paste
// without submitting it; Ctrl+Enter (Cmd+Enter) or "Send" also presses
// Enter; Escape closes. While the pane's agent is thinking the prompt is
// queued for the pane (the latest wins) and delivered when the agent
// stops thinking. It is a widget owning its state over a composerHost
// (the chrome lays it out under the panes, hidden while closed); its
// methods run on the UI goroutine holding the shell's lock.
type composer struct {
	widget.BaseWidget
	host   composerHost
	body   fyne.CanvasObject
	entry  *keyEntry
	target *widget.Label
	chip   *widget.Label
	// broadcast sends the prompt to every pane of the target's broadcast
	// group instead, prefilled only; shown when the target has a group.
	broadcast *widget.Check
	pane      uint64 // the pane prompts go to; 0 while closed
	// drafts keeps the unsent text of each pane the composer was closed
	// on, so a draft goes back to its own pane, never to another.
	drafts map[uint64]string
}

// composerHost is the shell as the composer sees it. guard is called
// from the composer's Fyne callbacks without the shell's lock; the
// others holding it.
type composerHost interface {
	// guard runs f holding the shell's lock.
	guard(f func())
	// paneName is pane id's name as the window shows it.
	paneName(id uint64) string
	// agentStatus is the state of the agent in pane id, if one is known.
	agentStatus(id uint64) (bus.AgentState, bool)
	// queued reports whether a prompt waits for pane id's agent.
	queued(id uint64) bool
	// group is pane id's broadcast group and its panes, if it has one.
	group(id uint64) (name string, members []uint64, ok bool)
	// send types p into each pane of targets, or queues it for a pane
	// whose agent is thinking.
	send(targets []uint64, p queuedPrompt)
	// focus gives f the keyboard.
	focus(f fyne.Focusable)
	// paneKeyboard gives the keyboard back to the focused pane.
	paneKeyboard()
}

// newComposer makes the (hidden) composer bar over h.
func newComposer(h composerHost) *composer {
	c := &composer{host: h, entry: newKeyEntry(true), target: widget.NewLabel(""), chip: widget.NewLabel(""), broadcast: widget.NewCheck("", nil), drafts: map[uint64]string{}}
	c.ExtendBaseWidget(c)
	c.broadcast.Hide()
	c.entry.SetMinRowsVisible(3)
	c.entry.SetPlaceHolder("Prompt for the agent — Alt+Enter prefills, " + secondaryName() + "+Enter sends, Esc closes")
	c.chip.Importance = widget.WarningImportance
	c.entry.onKey = func(ev *fyne.KeyEvent) bool {
		if ev.Name == fyne.KeyEscape {
			h.guard(c.close)
			return true
		}
		return false
	}
	c.entry.onShortcut = func(sc fyne.Shortcut) bool {
		cs, ok := sc.(*desktop.CustomShortcut)
		if !ok || (cs.KeyName != fyne.KeyReturn && cs.KeyName != fyne.KeyEnter) {
			return false
		}
		switch cs.Modifier {
		case fyne.KeyModifierShortcutDefault:
			h.guard(func() { c.submit(true) })
		case fyne.KeyModifierAlt:
			h.guard(func() { c.submit(false) })
		default:
			return false
		}
		return true
	}
	prefill := widget.NewButton("Prefill", func() { h.guard(func() { c.submit(false) }) })
	send := widget.NewButton("Send", func() { h.guard(func() { c.submit(true) }) })
	send.Importance = widget.HighImportance
	head := container.NewBorder(nil, nil, c.target, container.NewHBox(c.chip, c.broadcast, prefill, send))
	c.body = container.NewBorder(head, nil, nil, nil, c.entry)
	c.Hide()
	return c
}

// CreateRenderer draws the composer.
func (c *composer) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(c.body) }

// secondaryName is the label of the secondary modifier.
func secondaryName() string {
	if goos == "darwin" {
		return "Cmd"
	}
	return "Ctrl"
}

// openComposerLocked opens the composer for the focused pane (or closes
// it when it is open for that pane).
func (s *shell) openComposerLocked() {
	c := s.chrome.comp
	if c.pane != 0 && c.pane == s.pos.focus {
		c.close()
		return
	}
	if s.pos.focus == 0 {
		s.chrome.banner.show("prompt composer: no pane is focused")
		return
	}
	c.open(s.pos.focus)
}

// open shows the composer for pane id, with that pane's draft, and gives
// it the keyboard.
func (c *composer) open(id uint64) {
	c.keepDraft()
	c.pane = id
	c.entry.SetText(c.drafts[c.pane])
	delete(c.drafts, c.pane)
	c.update()
	c.Show()
	c.host.focus(c.entry)
}

// composerPrefix starts the composer's target line ("Prompt → "
// drew a missing-glyph box after the arrow: see replayHint).
const composerPrefix = "Prompt for "

// update shows the composer's target and queue.
func (c *composer) update() {
	if c.pane == 0 {
		return
	}
	h := c.host
	label := composerPrefix + h.paneName(c.pane)
	if st, ok := h.agentStatus(c.pane); ok {
		label += " (" + notify.AgentName(st.Tool) + ", " + stateText(agentRow{State: st.State, Tool2: st.ActiveToolName}) + ")"
	}
	c.target.SetText(label)
	if h.queued(c.pane) {
		c.chip.SetText("1 queued")
	} else {
		c.chip.SetText("")
	}
	if g, members, ok := h.group(c.pane); ok {
		c.broadcast.Text = fmt.Sprintf("to group %q (%d panes, prefill only)", g, len(members))
		c.broadcast.Refresh()
		c.broadcast.Show()
	} else {
		c.broadcast.SetChecked(false)
		c.broadcast.Hide()
	}
}

// forgetClosed drops the drafts of panes no longer open (open: the
// snapshot's open panes).
func (c *composer) forgetClosed(open map[uint64]uint64) {
	for id := range c.drafts {
		if _, ok := open[id]; !ok {
			delete(c.drafts, id)
		}
	}
}

// keepDraft stores the text typed for the composer's pane, if any, as
// that pane's draft.
func (c *composer) keepDraft() {
	if c.pane != 0 && c.entry.Text != "" {
		c.drafts[c.pane] = c.entry.Text
	}
}

// close hides the composer (the text stays as its pane's draft, shown
// when the composer opens for that pane again) and gives the keyboard
// back to the focused pane.
func (c *composer) close() {
	if c.pane == 0 {
		return
	}
	c.keepDraft()
	c.pane = 0
	c.Hide()
	c.host.paneKeyboard()
}

// submit delivers the composer's text to its pane (its broadcast group's
// panes, prefilled only, when ticked), or queues it while the pane's
// agent thinks, and closes the composer.
func (c *composer) submit(submit bool) {
	text := c.entry.Text
	if c.pane == 0 || text == "" {
		return
	}
	targets := []uint64{c.pane}
	if _, members, ok := c.host.group(c.pane); ok && c.broadcast.Checked {
		targets = members
		submit = false // a broadcast only prefills
	}
	c.host.send(targets, queuedPrompt{text: text, submit: submit})
	c.entry.SetText("")
	c.close()
}

// sendPromptLocked types p into each pane of targets, or queues it for a
// pane whose agent is thinking (the composer's send).
func (s *shell) sendPromptLocked(targets []uint64, p queuedPrompt) {
	for _, id := range targets {
		if st, ok := s.agents.status(id); ok && st.State == stateThinking {
			s.panes.queued[id] = p
			s.chrome.banner.show(fmt.Sprintf("prompt queued: %s is thinking; it goes in when the agent stops", notify.AgentName(st.Tool)))
		} else {
			s.deliverPrompt(id, p)
		}
	}
}

// flushQueuedLocked delivers the queued prompts of panes whose agent no
// longer thinks, and drops those of closed panes.
func (s *shell) flushQueuedLocked() {
	for id, p := range s.panes.queued {
		if _, open := s.pos.snap.Open[id]; !open {
			delete(s.panes.queued, id)
			continue
		}
		if st, ok := s.agents.status(id); ok && st.State == stateThinking {
			continue
		}
		delete(s.panes.queued, id)
		s.deliverPrompt(id, p)
	}
	s.chrome.comp.update()
}

// deliverPrompt types p into pane id as one paste (bracketed when the
// program asked for it), then Enter when p.submit; on the worker
// goroutine, in order with other model work.
func (s *shell) deliverPrompt(id uint64, p queuedPrompt) {
	s.work.mutate("prompt", func() error { return s.b.Paste(id, p.text, p.submit) })
}
