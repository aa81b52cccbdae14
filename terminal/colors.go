package terminal

import (
	"bytes"
	"strconv"
	"strings"
)

// ProgramColors are the colours a program changed with OSC 4 (palette),
// OSC 10/11/12 (default foreground, background, cursor) and OSC 17/19
// (selection background and foreground). A renderer draws with them in
// place of its own where they are set.
//
// A value is immutable once an emulator publishes it: every change makes a
// new one, so a renderer can tell that colours changed (and repaint every
// row) by comparing the pointer it drew with last time. The zero value sets
// nothing.
type ProgramColors struct {
	palette [256]uint32 // colourSet|0xRRGGBB, or 0 when the program left it alone
	dynamic [numDynamic]uint32
}

// colourSet marks a set entry in ProgramColors (its low 24 bits are RGB).
const colourSet = 1 << 24

// Dynamic colours, in OSC number order from 10 (13 and 14, the pointer's
// colours, are accepted and reported but not drawn).
const (
	dynFg = iota
	dynBg
	dynCursor
	dynPointerFg
	dynPointerBg
	dynTektronixFg // 15, 16 and 18 are Tektronix colours xterm keeps apart
	dynTektronixBg
	dynSelectionBg // 17
	dynTektronixCursor
	dynSelectionFg // 19
	numDynamic
)

func unpackRGB(v uint32) (r, g, b uint8, ok bool) {
	return uint8(v >> 16), uint8(v >> 8), uint8(v), v&colourSet != 0
}

// Palette reports palette entry i as the program set it.
func (c *ProgramColors) Palette(i uint8) (r, g, b uint8, ok bool) {
	if c == nil {
		return 0, 0, 0, false
	}
	return unpackRGB(c.palette[i])
}

// Foreground reports the default foreground the program set (OSC 10).
func (c *ProgramColors) Foreground() (r, g, b uint8, ok bool) { return c.dyn(dynFg) }

// Background reports the default background the program set (OSC 11).
func (c *ProgramColors) Background() (r, g, b uint8, ok bool) { return c.dyn(dynBg) }

// Cursor reports the cursor colour the program set (OSC 12).
func (c *ProgramColors) Cursor() (r, g, b uint8, ok bool) { return c.dyn(dynCursor) }

// SelectionBackground reports the selection's background the program set
// (OSC 17).
func (c *ProgramColors) SelectionBackground() (r, g, b uint8, ok bool) {
	return c.dyn(dynSelectionBg)
}

// SelectionForeground reports the selection's foreground the program set
// (OSC 19).
func (c *ProgramColors) SelectionForeground() (r, g, b uint8, ok bool) {
	return c.dyn(dynSelectionFg)
}

func (c *ProgramColors) dyn(i int) (r, g, b uint8, ok bool) {
	if c == nil {
		return 0, 0, 0, false
	}
	return unpackRGB(c.dynamic[i])
}

// Colors returns the colours programs set, or nil when they set none. The
// value must not be modified.
func (e *Emulator) Colors() *ProgramColors {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.colors
}

// editColors returns a private copy of the program colours to change; the
// emulator publishes it in place of the old one.
func (e *Emulator) editColors() *ProgramColors {
	c := new(ProgramColors)
	if e.colors != nil {
		*c = *e.colors
	}
	e.colors = c
	return c
}

// oscPalette handles OSC 4 "n;spec[;n;spec…]": a spec of "?" is a query,
// anything else sets entry n when it parses as a colour.
func (e *Emulator) oscPalette(p []byte) {
	parts := strings.Split(string(p), ";")
	for i := 0; i+1 < len(parts); i += 2 {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 || n > 255 {
			continue
		}
		if parts[i+1] == "?" {
			r, g, b := e.paletteLocked(uint8(n))
			e.replyf("\x1b]4;%d;rgb:%02x%02x/%02x%02x/%02x%02x\x1b\\", n, r, r, g, g, b, b)
			continue
		}
		if rgb, ok := parseColorSpec(parts[i+1]); ok {
			e.editColors().palette[n] = rgb
		}
	}
}

// oscResetPalette handles OSC 104: the listed entries, or all of them,
// back to their defaults.
func (e *Emulator) oscResetPalette(p []byte) {
	if e.colors == nil {
		return
	}
	if len(p) == 0 {
		c := e.editColors()
		c.palette = [256]uint32{}
		return
	}
	for _, f := range bytes.Split(p, []byte{';'}) {
		if n, err := strconv.Atoi(string(f)); err == nil && n >= 0 && n <= 255 {
			e.editColors().palette[n] = 0
		}
	}
}

// oscDynamic handles OSC 10-19: each ";"-separated spec applies to the next
// colour in turn, as xterm does ("10;fg;bg" sets both).
func (e *Emulator) oscDynamic(cmd int, p []byte) {
	for i, spec := range strings.Split(string(p), ";") {
		d := cmd - 10 + i
		if d >= numDynamic {
			return
		}
		if spec == "?" {
			r, g, b := e.dynamicLocked(d)
			e.replyf("\x1b]%d;rgb:%02x%02x/%02x%02x/%02x%02x\x1b\\", d+10, r, r, g, g, b, b)
			continue
		}
		if rgb, ok := parseColorSpec(spec); ok {
			e.editColors().dynamic[d] = rgb
		}
	}
}

// oscResetDynamic handles OSC 110-119: colour cmd-110 back to its default.
// xterm ignores parameters here.
func (e *Emulator) oscResetDynamic(cmd int) {
	d := cmd - 110
	if e.colors == nil || d < 0 || d >= numDynamic || e.colors.dynamic[d] == 0 {
		return
	}
	e.editColors().dynamic[d] = 0
}

// paletteLocked is palette entry n as programs see it.
func (e *Emulator) paletteLocked(n uint8) (r, g, b uint8) {
	if r, g, b, ok := e.colors.Palette(n); ok {
		return r, g, b
	}
	return xtermPalette(n)
}

// dynamicLocked is dynamic colour d as programs see it: what a program set,
// else the embedder's default.
func (e *Emulator) dynamicLocked(d int) (r, g, b uint8) {
	if r, g, b, ok := e.colors.dyn(d); ok {
		return r, g, b
	}
	fg, bg := e.opts.Foreground, e.opts.Background
	if fg == ([3]uint8{}) && bg == ([3]uint8{}) {
		fg = [3]uint8{0xd0, 0xd0, 0xd0}
	}
	switch d {
	case dynBg, dynPointerBg, dynTektronixBg, dynSelectionFg:
		return bg[0], bg[1], bg[2]
	}
	return fg[0], fg[1], fg[2]
}

// parseColorSpec parses the colour forms xterm takes from programs:
// rgb:R/G/B with 1-4 hex digits per component, #RGB with 1-4 digits per
// component, and rgbi:R/G/B with intensities from 0 to 1. X11 colour names
// are not known and fail.
func parseColorSpec(s string) (uint32, bool) {
	switch {
	case strings.HasPrefix(s, "rgb:"):
		return parseComponents(s[4:], scaleHex)
	case strings.HasPrefix(s, "rgbi:"):
		return parseComponents(s[5:], func(c string) (uint8, bool) {
			x, err := strconv.ParseFloat(c, 64)
			if err != nil || x < 0 || x > 1 {
				return 0, false
			}
			return uint8(x*255 + 0.5), true
		})
	case strings.HasPrefix(s, "#"):
		h := s[1:]
		if len(h) == 0 || len(h)%3 != 0 || len(h) > 12 {
			return 0, false
		}
		n := len(h) / 3
		var v uint32
		for i := range 3 {
			// #RGB forms keep their digits as the high bits, unlike rgb:.
			x, err := strconv.ParseUint(h[i*n:(i+1)*n], 16, 16)
			if err != nil {
				return 0, false
			}
			v = v<<8 | uint32(x<<(16-4*n)>>8)
		}
		return v | colourSet, true
	}
	return 0, false
}

// parseComponents parses "R/G/B" with comp into a set colour.
func parseComponents(s string, comp func(string) (uint8, bool)) (uint32, bool) {
	f := strings.Split(s, "/")
	if len(f) != 3 {
		return 0, false
	}
	var v uint32
	for _, c := range f {
		x, ok := comp(c)
		if !ok {
			return 0, false
		}
		v = v<<8 | uint32(x)
	}
	return v | colourSet, true
}

// scaleHex scales a 1-4 digit hex component to 8 bits as XParseColor does
// (the value over the largest value of that many digits).
func scaleHex(h string) (uint8, bool) {
	if len(h) == 0 || len(h) > 4 {
		return 0, false
	}
	x, err := strconv.ParseUint(h, 16, 16)
	if err != nil {
		return 0, false
	}
	maxv := uint64(1)<<(4*len(h)) - 1
	return uint8((x*255 + maxv/2) / maxv), true
}
