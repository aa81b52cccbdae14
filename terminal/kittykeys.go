package terminal

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// The kitty keyboard protocol (sw.kovidgoyal.net/kitty/keyboard-protocol)
// lets a program ask for unambiguous key reports. Claude Code, Codex,
// Gemini CLI and opencode query for it (CSI ? u) and switch it on when
// the terminal answers; Gemini CLI, for one, trusts bracketed pastes only
// then (otherwise it takes an Enter within 40 ms of a paste for a
// newline, a guard that a loaded machine can trip however long the
// sender waits). Paneflow implements the first enhancement,
// [KittyDisambiguate], as kitty, WezTerm and foot do:
//
//   - CSI ? u asks for the flags in effect; the answer is CSI ? flags u.
//   - CSI > flags u pushes flags (masked to the supported ones) on the
//     current screen's stack; CSI < n u pops n entries (default 1;
//     popping the last one leaves no flags); CSI = flags ; mode u sets
//     (mode 1, the default), adds (2) or removes (3) flags of the top
//     entry. The main and the alternate screen have separate stacks; the
//     alternate screen's is emptied when a program enters it, and a full
//     reset (RIS) empties both.
//
// A program that dies without popping leaves the flags on; Paneflow's
// bash and zsh integration pops every entry before each prompt, so the
// shell gets legacy keys back.

// maxKeyFlagDepth bounds a stack; a push onto a full one drops the oldest
// entry, as the protocol asks.
const maxKeyFlagDepth = 16

// supportedKeyFlags are the flags Paneflow honours.
const supportedKeyFlags = KittyDisambiguate

// keyFlagStack is one screen's stack of kitty keyboard flags. The zero
// value is an empty stack: no flags, legacy key encoding.
type keyFlagStack struct {
	entries []uint8
}

// top returns the flags in effect.
func (s *keyFlagStack) top() uint8 {
	if len(s.entries) == 0 {
		return 0
	}
	return s.entries[len(s.entries)-1]
}

func (s *keyFlagStack) push(flags uint8) {
	if len(s.entries) == maxKeyFlagDepth {
		s.entries = append(s.entries[:0], s.entries[1:]...)
	}
	s.entries = append(s.entries, flags&supportedKeyFlags)
}

func (s *keyFlagStack) pop(n int) {
	s.entries = s.entries[:max(len(s.entries)-n, 0)]
}

// set changes the top entry (one is made when the stack is empty):
// mode 1 replaces its flags, 2 adds to them, 3 removes from them.
func (s *keyFlagStack) set(flags uint8, mode int) {
	if len(s.entries) == 0 {
		s.entries = append(s.entries, 0)
	}
	t := &s.entries[len(s.entries)-1]
	switch mode {
	case 1:
		*t = flags
	case 2:
		*t |= flags
	case 3:
		*t &^= flags
	default:
		return
	}
	*t &= supportedKeyFlags
}

// kittyKeys handles CSI ? u, CSI > u, CSI < u and CSI = u.
func (e *Emulator) kittyKeys(prefix byte, ps ansi.Params) {
	st := &e.cur.keys
	switch prefix {
	case '?':
		e.replyf("\x1b[?%du", st.top())
		return
	case '>':
		st.push(uint8(param(ps, 0, 0)))
	case '<':
		st.pop(count(ps, 0))
	case '=':
		st.set(uint8(param(ps, 0, 0)), param(ps, 1, 1))
	default:
		return
	}
	e.in.KittyKeys = st.top()
}

// encodeKittyKey returns the report of ev under [KittyDisambiguate], and
// ok=false for keys whose legacy encoding stands: keys without Ctrl or
// Alt that type text or are Enter, Tab or Backspace (so a shell left in
// this mode still gets a usable Enter), Shift+Tab (CSI Z, which nothing
// else sends), and cursor, function, editing and keypad keys, whose
// legacy forms are already unambiguous. param is 1 + the modifier bits,
// as EncodeKey computes it.
func encodeKittyKey(ev KeyEvent, param int) (b []byte, ok bool) {
	ctrlAlt := ev.Mods&(ModCtrl|ModAlt) != 0
	code := 0
	switch ev.Key {
	case KeyEscape:
		code = 27
	case KeyEnter:
		if param == 1 {
			return nil, false
		}
		code = 13
	case KeyBackspace:
		if param == 1 {
			return nil, false
		}
		code = 127
	case KeyTab:
		if param == 1 || param == 2 { // Tab, Shift+Tab
			return nil, false
		}
		code = 9
	case KeySpace:
		if !ctrlAlt {
			return nil, false
		}
		code = ' '
	case KeyRune:
		if !ctrlAlt || !utf8.ValidRune(ev.Rune) || unicode.IsControl(ev.Rune) {
			return nil, false // text, or no key at all: EncodeKey decides
		}
		code = int(unicode.ToLower(ev.Rune))
	default:
		return nil, false
	}
	b = append(b, byteESC, '[')
	b = strconv.AppendInt(b, int64(code), 10)
	if param > 1 {
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(param), 10)
	}
	return append(b, 'u'), true
}
