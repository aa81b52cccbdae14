package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

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
// stops thinking. Its methods run on the UI goroutine.
type composer struct {
	root   *fyne.Container
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

// buildComposerLocked makes the (hidden) composer bar.
func (s *shell) buildComposerLocked() *composer {
	c := &composer{entry: newKeyEntry(true), target: widget.NewLabel(""), chip: widget.NewLabel(""), broadcast: widget.NewCheck("", nil), drafts: map[uint64]string{}}
	c.broadcast.Hide()
	c.entry.SetMinRowsVisible(3)
	c.entry.SetPlaceHolder("Prompt for the agent — Alt+Enter prefills, " + secondaryName() + "+Enter sends, Esc closes")
	c.chip.Importance = widget.WarningImportance
	c.entry.onKey = func(ev *fyne.KeyEvent) bool {
		if ev.Name == fyne.KeyEscape {
			s.guard(s.closeComposerLocked)
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
			s.guard(func() { s.submitComposerLocked(true) })
		case fyne.KeyModifierAlt:
			s.guard(func() { s.submitComposerLocked(false) })
		default:
			return false
		}
		return true
	}
	prefill := widget.NewButton("Prefill", func() { s.guard(func() { s.submitComposerLocked(false) }) })
	send := widget.NewButton("Send", func() { s.guard(func() { s.submitComposerLocked(true) }) })
	send.Importance = widget.HighImportance
	head := container.NewBorder(nil, nil, c.target, container.NewHBox(c.chip, c.broadcast, prefill, send))
	c.root = container.NewBorder(head, nil, nil, nil, c.entry)
	c.root.Hide()
	return c
}

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
		s.closeComposerLocked()
		return
	}
	if s.pos.focus == 0 {
		s.chrome.banner.show("prompt composer: no pane is focused")
		return
	}
	c.keepDraft()
	c.pane = s.pos.focus
	c.entry.SetText(c.drafts[c.pane])
	delete(c.drafts, c.pane)
	s.updateComposerLocked()
	c.root.Show()
	s.w.Canvas().Focus(c.entry)
}

// composerPrefix starts the composer's target line ("Prompt → "
// drew a missing-glyph box after the arrow: see replayHint).
const composerPrefix = "Prompt for "

// updateComposerLocked shows the composer's target and queue.
func (s *shell) updateComposerLocked() {
	c := s.chrome.comp
	if c.pane == 0 {
		return
	}
	label := composerPrefix + s.pos.paneName(c.pane, fmt.Sprintf("pane %d", c.pane))
	if st, ok := s.agents.status(c.pane); ok {
		label += " (" + notify.AgentName(st.Tool) + ", " + stateText(agentRow{State: st.State, Tool2: st.ActiveToolName}) + ")"
	}
	c.target.SetText(label)
	if _, ok := s.panes.queued[c.pane]; ok {
		c.chip.SetText("1 queued")
	} else {
		c.chip.SetText("")
	}
	if g, ok := s.panes.groups[c.pane]; ok {
		c.broadcast.Text = fmt.Sprintf("to group %q (%d panes, prefill only)", g, len(s.groupMembersLocked(g)))
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

// closeComposerLocked hides the composer (the text stays as its pane's
// draft, shown when the composer opens for that pane again) and gives the
// keyboard back to the focused pane.
func (s *shell) closeComposerLocked() {
	c := s.chrome.comp
	if c.pane == 0 {
		return
	}
	c.keepDraft()
	c.pane = 0
	c.root.Hide()
	s.focusViewLocked(s.pos.focus)
}

// submitComposerLocked delivers the composer's text to its pane, or
// queues it while the pane's agent thinks, and closes the composer.
func (s *shell) submitComposerLocked(submit bool) {
	c := s.chrome.comp
	text := c.entry.Text
	if c.pane == 0 || text == "" {
		return
	}
	targets := []uint64{c.pane}
	if g, ok := s.panes.groups[c.pane]; ok && c.broadcast.Checked {
		targets = s.groupMembersLocked(g)
		submit = false // a broadcast only prefills
	}
	p := queuedPrompt{text: text, submit: submit}
	for _, id := range targets {
		if st, ok := s.agents.status(id); ok && st.State == stateThinking {
			s.panes.queued[id] = p
			s.chrome.banner.show(fmt.Sprintf("prompt queued: %s is thinking; it goes in when the agent stops", notify.AgentName(st.Tool)))
		} else {
			s.deliverPrompt(id, p)
		}
	}
	c.entry.SetText("")
	s.closeComposerLocked()
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
	s.updateComposerLocked()
}

// deliverPrompt types p into pane id as one paste (bracketed when the
// program asked for it), then Enter when p.submit; on the worker
// goroutine, in order with other model work.
func (s *shell) deliverPrompt(id uint64, p queuedPrompt) {
	s.work.mutate("prompt", func() error { return s.b.Paste(id, p.text, p.submit) })
}
