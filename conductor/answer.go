package conductor

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The user's answer to a permission prompt.
//
// Claude Code 2.1.332 and Codex 0.169.0 fire no hook when the user
// approves a tool call at their permission prompt: the next hook is
// PostToolUse, once the tool has finished. Without help the pane would
// say "waiting" all the while the approved command runs. Claude fires no
// hook on a denial either: it waits for the user's next words ("What
// should Claude do instead?"), so waiting_for_input is still right. Codex
// fires its Interrupt event, which the launch installs: the turn ended
// (ai.stop without a result: finished).
//
// Both draw the question as a numbered menu with one choice marked as
// selected ("❯ 1. Yes" / "› 1. Yes, proceed (y)"; Gemini CLI 0.61.0, whose
// Notification hook does fire at its prompt, "● 1. Allow once" in a
// frame, and also nothing on approval): a digit picks that
// choice, Enter the selected one, and Codex's letters the choice labelled
// "(y)", "(p)", …; Esc cancels, and arrow keys only move the mark. So
// when a key that picks a choice reaches a pane whose agent waits on a
// permission prompt, [Conductor.Input] reads the pane's screen (the key
// has not been handled yet: it sees the menu as the user saw it) and, if
// the picked choice approves ("Yes…", "Allow…"), moves the session to
// thinking with the tool in question. The agent's next hook (PostToolUse,
// Stop, another question) confirms or corrects that.

// Input tells the conductor that p was written to pane surfaceID as input
// (keys, a paste, surface.send_text); the model calls it for every write.
// An approval of the permission prompt the pane's agent waits on moves
// the agent to thinking (see answer.go). It reads the screen through
// [Options.Screen], never holding the conductor's lock meanwhile. Safe for
// concurrent use; cheap for input that picks no choice.
func (c *Conductor) Input(surfaceID uint64, p []byte) {
	k, ok := choiceKey(p)
	if !ok || c.o.Screen == nil {
		return
	}
	c.mu.Lock()
	s := c.askingLocked(surfaceID)
	var id, seq uint64
	if s != nil {
		id, seq = s.id, s.seq
	}
	c.mu.Unlock()
	if s == nil || !approves(c.o.Screen(surfaceID), k) {
		return
	}
	c.mu.Lock()
	if s = c.sessions[id]; s == nil || c.closed || s.seq != seq || s.state != WaitingForInput || s.pendingTool == "" {
		c.mu.Unlock()
		return // a frame came meanwhile: it knows better
	}
	c.setStateLocked(s, Thinking, c.clock.Now())
	s.activeTool, s.message, s.pendingTool = s.pendingTool, "", ""
	c.emitStateLocked(s, WaitingForInput)
	c.mu.Unlock()
	c.flush()
}

// askingLocked returns the session in pane surfaceID that waits on a
// permission prompt for a tool, or nil.
func (c *Conductor) askingLocked(surfaceID uint64) *session {
	for _, s := range c.sessions {
		if s.surface == surfaceID && s.state == WaitingForInput && s.pendingTool != "" {
			return s
		}
	}
	return nil
}

// enterKey is the choiceKey of Enter: the selected choice.
const enterKey = '\r'

// choiceKey reports the key in p that picks a menu choice: Enter
// (enterKey), or one printable character (a digit or a letter), possibly
// followed by Enter and possibly wrapped in a bracketed paste (what
// surface.send_text writes to a program that asked for them).
func choiceKey(p []byte) (rune, bool) {
	if b, ok := bytes.CutPrefix(p, []byte("\x1b[200~")); ok {
		p, _ = bytes.CutSuffix(b, []byte("\x1b[201~"))
	}
	switch string(p) {
	case "\r", "\n", "\r\n":
		return enterKey, true
	}
	p = bytes.TrimRight(p, "\r\n")
	r, n := utf8.DecodeRune(p)
	if n == 0 || n != len(p) || r >= utf8.RuneSelf || !unicode.IsPrint(r) || r == ' ' {
		return 0, false
	}
	return unicode.ToLower(r), true
}

// choice is one numbered entry of a menu on the screen.
type choice struct {
	n        int
	label    string // with its wrapped lines, joined by spaces
	selected bool   // drawn with a mark before its number
	col      int    // the column of its number, in runes
}

// menu returns the numbered choices of the last menu on the screen: the
// last line numbered "1." and the lines numbered 2, 3, … below it. A line
// indented past a choice's number continues its label (a wrapped label);
// other lines between them (hints) are skipped.
func menu(screen []string) []choice {
	var out []choice
	wrapping := false
	for _, line := range screen {
		line = unbox(line)
		c, ok := parseChoice(line)
		switch {
		case ok && c.n == 1:
			out, wrapping = append(out[:0], c), true
		case ok && len(out) > 0 && c.n == out[len(out)-1].n+1:
			out, wrapping = append(out, c), true
		case !ok && wrapping && len(out) > 0 && indent(line) > out[len(out)-1].col && strings.TrimSpace(line) != "":
			last := &out[len(out)-1]
			last.label += " " + strings.TrimSpace(line)
		default:
			wrapping = false
		}
	}
	return out
}

// unbox turns the box-drawing and block characters of line (a dialog's
// frame, as Gemini CLI draws one: "│ ● 1. Allow once   │") into spaces.
func unbox(line string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x2500 && r <= 0x259f {
			return ' '
		}
		return r
	}, line)
}

// indent is the number of leading spaces of line, in runes.
func indent(line string) int {
	return utf8.RuneCountInString(line) - utf8.RuneCountInString(strings.TrimLeftFunc(line, unicode.IsSpace))
}

// parseChoice reads a menu line: optional indentation, an optional mark
// (any symbols, e.g. "❯" or "›"), a number, ". " and a label.
func parseChoice(line string) (choice, bool) {
	unmarked := strings.TrimLeftFunc(line, func(r rune) bool { return !unicode.IsDigit(r) && !unicode.IsLetter(r) })
	selected := strings.TrimSpace(line[:len(line)-len(unmarked)]) != ""
	s := unmarked
	i := 0
	for i < len(s) && i < 2 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(s[i:], ". ") {
		return choice{}, false
	}
	label := strings.TrimSpace(s[i+2:])
	if label == "" {
		return choice{}, false
	}
	n := 0
	for _, d := range s[:i] {
		n = n*10 + int(d-'0')
	}
	col := utf8.RuneCountInString(line) - utf8.RuneCountInString(unmarked)
	return choice{n: n, label: label, selected: selected, col: col}, true
}

// approves reports whether key k picks a choice of the screen's menu that
// approves: the selected one for Enter, the numbered one for a digit, the
// one whose label ends in "(k)" for a letter.
func approves(screen []string, k rune) bool {
	for _, c := range menu(screen) {
		var picked bool
		switch {
		case k == enterKey:
			picked = c.selected
		case k >= '0' && k <= '9':
			picked = c.n == int(k-'0')
		default:
			picked = strings.HasSuffix(strings.ToLower(c.label), "("+string(k)+")")
		}
		if picked {
			return approving(c.label)
		}
	}
	return false
}

// approving reports whether a choice's label says yes.
func approving(label string) bool {
	l := strings.ToLower(label)
	for _, w := range []string{"yes", "allow", "approve", "proceed"} {
		if strings.HasPrefix(l, w) {
			return true
		}
	}
	return false
}
