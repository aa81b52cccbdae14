package terminal

import (
	"encoding/binary"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// maxFastParams matches the x/ansi parser's parameter limit.
const maxFastParams = parser.MaxParamsSize

// fastCSI parses a complete, well-formed CSI sequence at the start of p
// (which begins with ESC [) without going through the generic state
// machine: ESC [ [<=>?] [0-9:;]* [0x20-0x2f]* [0x40-0x7e]. It returns the
// number of bytes consumed, or 0 when the sequence is incomplete or
// unusual, in which case the caller hands it to the x/ansi parser, which
// produces the same result byte by byte.
func (e *Emulator) fastCSI(p []byte) int {
	i := 2
	if i >= len(p) {
		return 0
	}
	var prefix, inter byte
	if c := p[i]; c >= '<' && c <= '?' {
		prefix = c
		i++
	}
	ps := e.params[:0]
	cur, have := -1, false
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			if cur < 0 {
				cur = 0
			}
			if cur < maxParam {
				cur = cur*10 + int(c-'0')
			}
			have = true
			continue
		case c == ';' || c == ':':
			if len(ps) < maxFastParams {
				ps = append(ps, packParam(cur, c == ':'))
			}
			cur, have = -1, true
			continue
		}
		break
	}
	if have && len(ps) < maxFastParams {
		ps = append(ps, packParam(cur, false))
	}
	for ; i < len(p) && p[i] >= 0x20 && p[i] <= 0x2f; i++ {
		if inter != 0 {
			return 0 // more than one intermediate: leave it to the parser
		}
		inter = p[i]
	}
	if i >= len(p) || p[i] < 0x40 || p[i] > 0x7e {
		return 0
	}
	cmd := ansi.Cmd(ansi.Command(prefix, inter, p[i]))
	e.handleCSI(cmd, ansi.Params(ps))
	return i + 1
}

// packParam packs a parameter like x/ansi does: missing values are
// parser.MissingParam, and a following colon sub-parameter sets the
// HasMore flag.
func packParam(v int, more bool) ansi.Param {
	if v < 0 {
		v = parser.MissingParam
	}
	if more {
		v |= parser.HasMoreFlag
	}
	return ansi.Param(v)
}

// fastESC handles a complete two- or three-byte escape sequence
// (ESC [0x20-0x2f]? [0x30-0x7e]) that does not open a string or a control
// sequence. It returns the bytes consumed, or 0 to defer to the parser.
func (e *Emulator) fastESC(p []byte) int {
	i := 1
	var inter byte
	if i < len(p) && p[i] >= 0x20 && p[i] <= 0x2f {
		inter = p[i]
		i++
	}
	if i >= len(p) {
		return 0
	}
	c := p[i]
	if c < 0x30 || c > 0x7e {
		return 0
	}
	if inter == 0 {
		switch c {
		case '[', ']', 'P', 'X', '^', '_':
			return 0 // CSI, OSC, DCS, SOS, PM, APC
		}
	}
	e.handleESC(ansi.Cmd(ansi.Command(0, inter, c)))
	return i + 1
}

// printableRun returns the length of the run of printable ASCII
// (0x20-0x7e) at the start of p.
func printableRun(p []byte) int {
	i := 0
	// Eight bytes at a time: a byte is outside 0x20-0x7e when its top bit
	// is set, when adding 1 sets it (0x7f; the carry out of 0xff only
	// reaches bytes of a word already rejected), or when subtracting 0x20
	// borrows (below 0x20).
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		if (w|(w+ones))&highs != 0 || (w-0x20*ones)&^w&highs != 0 {
			break
		}
	}
	for ; i < len(p); i++ {
		if c := p[i]; c-0x20 >= 0x7f-0x20 {
			return i
		}
	}
	return len(p)
}

// Byte-lane constants of printableRun.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)
