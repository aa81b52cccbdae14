package terminal

import "github.com/charmbracelet/x/ansi/parser"

// x/ansi's transition table treats the byte 0x9C inside an OSC, DCS, SOS,
// PM or APC string as the 8-bit String Terminator, and bytes 0x80-0xFF
// inside SOS/PM/APC as the start of other sequences. A UTF-8 terminal
// (xterm, tmux and kitty in UTF-8 mode; we are only that) has no 8-bit C1
// controls: there those bytes are parts of UTF-8 characters. Without this,
// Claude Code's title "\x1b]0;✳ Claude Code\x07" (✳ is E2 9C B3) ended at
// 0x9C: the pane's title became "\uFFFD" and " Claude Code" was printed
// into the pane. An OSC 7 or OSC 8 with such a character in a path or URL
// broke the same way.
//
// The table is x/ansi's package variable parser.Table, which every Parser
// reads; the terminal package is its only user in our programs, so init
// mends it there once, before any Parser exists. The 7-bit terminators
// (BEL for OSC, ESC \ for all) are unchanged.
func init() { utf8ControlStrings(parser.Table) }

// utf8ControlStrings makes every byte from 0x80 to 0xFF part of the
// control string in the string states of t.
func utf8ControlStrings(t parser.TransitionTable) {
	for _, s := range []parser.State{
		parser.OscStringState,
		parser.DcsStringState,
		parser.SosStringState,
		parser.PmStringState,
		parser.ApcStringState,
	} {
		t.AddRange(0x80, 0xFF, s, parser.PutAction, s)
	}
}
