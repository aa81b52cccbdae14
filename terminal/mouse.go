package terminal

import (
	"strconv"
	"unicode/utf8"
)

// MouseButton is the mouse button a [MouseEvent] is about. Its zero value,
// [MouseNone], means no button: motion with no button held, or a release
// whose button is not known.
type MouseButton uint8

// The buttons. Wheel "buttons" only ever press: a wheel notch is one
// [MousePress] event.
const (
	MouseNone       MouseButton = iota // no button
	MouseLeft                          // primary button
	MouseMiddle                        // middle button / wheel click
	MouseRight                         // secondary button
	MouseWheelUp                       // wheel scrolled up (away from the user)
	MouseWheelDown                     // wheel scrolled down
	MouseWheelLeft                     // horizontal wheel / tilt left
	MouseWheelRight                    // horizontal wheel / tilt right

	mouseBtnCount // number of defined buttons; not a button
)

// MouseAction is what happened in a [MouseEvent]. The zero value is
// [MousePress].
type MouseAction uint8

// The actions.
const (
	MousePress   MouseAction = iota // a button went down (or a wheel notch)
	MouseRelease                    // a button went up
	MouseMotion                     // the pointer moved to another cell
)

// MouseEvent is one mouse event in cell coordinates. Col and Row are
// 0-based (the reports count from 1); the GUI clamps them to the screen,
// and EncodeMouse treats negative values as 0. For MouseMotion, Button
// is the button held during the move (the lowest-numbered one if several
// are held), or MouseNone. Mods holds the keyboard modifiers; ModSuper is
// never reported.
//
// The GUI sends a motion event only when the pointer enters a new cell,
// as xterm does; EncodeMouse keeps no state. The zero value, a press of
// MouseNone, is never reported. MouseEvent is a small comparable value,
// safe to copy and share.
type MouseEvent struct {
	Button   MouseButton
	Action   MouseAction
	Col, Row int
	Mods     Mod
}

// Largest 0-based coordinates the byte encodings can carry. At the limit
// xterm writes a NUL byte as a past-the-end marker, and it clamps larger
// positions to the limit, so every coordinate from the limit on is
// reported as NUL.
const (
	mouseLimitX10  = 255 - 32  // CSI M form: one byte, value+33 ≤ 255
	mouseLimitUTF8 = 2047 - 32 // DECSET 1005: two-byte UTF-8, value+33 ≤ 2047
	mouseUTF8Start = 127 - 32  // from here on 1005 needs two bytes
	mouseMaxCoord  = 1<<31 - 2 // clamp for the decimal forms (keeps value+1 in range)
)

// EncodeMouse returns the report for ev under modes m, or ok=false when
// the program did not ask for it:
//
//   - [MouseOff]: nothing is reported.
//   - [MouseX10] (DECSET 9): presses of left, middle and right only, and
//     only without Shift/Alt/Ctrl (as xterm); no modifier bits.
//   - [MouseNormal] (1000): presses and releases, wheel included.
//   - [MouseDrag] (1002): also motion while a button is held.
//   - [MouseAny] (1003): also motion with no button held.
//
// Wheel events exist only as presses; a release or motion with a wheel
// button, a press of MouseNone, and values that are not defined are never
// reported.
//
// The button code is 0 left, 1 middle, 2 right, 3 release/no button,
// 64–67 wheel up/down/left/right, plus 4 Shift, 8 Alt, 16 Ctrl and 32
// for motion. It is sent as m.MouseEnc says:
//
//   - [MouseEncX10]: CSI M followed by code+32, col+32, row+32 as bytes
//     (1-based). A release reports code 3. Coordinates beyond 223 are
//     clamped to xterm's NUL past-the-end marker.
//   - [MouseEncUTF8] (1005): the same, with values of 128 and more as
//     two-byte UTF-8; coordinates beyond 2015 become NUL.
//   - [MouseEncSGR] (1006): CSI < code ; col ; row M, and a release keeps
//     its button and ends in "m".
//   - [MouseEncURXVT] (1015): CSI code+32 ; col ; row M.
//
// When a wheel event is not reported because reporting is off, a GUI may
// still honour m.AltScroll (DECSET 1007) on the alternate screen by
// sending [EncodeKey] of KeyUp/KeyDown instead; EncodeMouse does not know
// which screen is shown.
//
// The returned slice is newly allocated and owned by the caller.
// EncodeMouse is safe for concurrent use.
func EncodeMouse(ev MouseEvent, m InputModes) (b []byte, ok bool) {
	if ev.Button >= mouseBtnCount || ev.Action > MouseMotion || m.MouseEnc > MouseEncURXVT {
		return nil, false
	}
	wheel := ev.Button >= MouseWheelUp
	mods := ev.Mods & (ModShift | ModAlt | ModCtrl)

	switch m.Mouse {
	case MouseX10:
		if ev.Action != MousePress || wheel || ev.Button == MouseNone || mods != 0 {
			return nil, false
		}
	case MouseNormal, MouseDrag, MouseAny:
		switch ev.Action {
		case MousePress:
			if ev.Button == MouseNone {
				return nil, false
			}
		case MouseRelease:
			if wheel {
				return nil, false
			}
		case MouseMotion:
			if wheel || m.Mouse == MouseNormal || (m.Mouse == MouseDrag && ev.Button == MouseNone) {
				return nil, false
			}
		}
	default: // MouseOff and values that are not modes
		return nil, false
	}

	code := 3 // MouseNone
	switch ev.Button {
	case MouseLeft:
		code = 0
	case MouseMiddle:
		code = 1
	case MouseRight:
		code = 2
	case MouseWheelUp, MouseWheelDown, MouseWheelLeft, MouseWheelRight:
		code = 64 + int(ev.Button-MouseWheelUp)
	}
	if ev.Action == MouseRelease && m.MouseEnc != MouseEncSGR {
		code = 3
	}
	if mods&ModShift != 0 {
		code += 4
	}
	if mods&ModAlt != 0 {
		code += 8
	}
	if mods&ModCtrl != 0 {
		code += 16
	}
	if ev.Action == MouseMotion {
		code += 32
	}
	col := min(max(ev.Col, 0), mouseMaxCoord)
	row := min(max(ev.Row, 0), mouseMaxCoord)

	b = []byte{byteESC, '['}
	switch m.MouseEnc {
	case MouseEncX10:
		b = append(b, 'M', byte(32+code))
		b = append(b, mouseByteCoord(col), mouseByteCoord(row))
	case MouseEncUTF8:
		b = append(b, 'M')
		b = utf8.AppendRune(b, rune(32+code))
		b = appendMouseUTF8Coord(b, col)
		b = appendMouseUTF8Coord(b, row)
	case MouseEncSGR:
		b = append(b, '<')
		b = strconv.AppendInt(b, int64(code), 10)
		b = appendDecimalCoords(b, col, row)
		if ev.Action == MouseRelease {
			return append(b, 'm'), true
		}
		b = append(b, 'M')
	case MouseEncURXVT:
		b = strconv.AppendInt(b, int64(32+code), 10)
		b = appendDecimalCoords(b, col, row)
		b = append(b, 'M')
	}
	return b, true
}

// mouseByteCoord encodes a 0-based coordinate for the CSI M byte form.
func mouseByteCoord(v int) byte {
	if v >= mouseLimitX10 {
		return 0
	}
	return byte(v + 33)
}

// appendMouseUTF8Coord appends a 0-based coordinate in the DECSET 1005
// form.
func appendMouseUTF8Coord(b []byte, v int) []byte {
	switch {
	case v >= mouseLimitUTF8:
		return append(b, 0)
	case v < mouseUTF8Start:
		return append(b, byte(v+33))
	default:
		return utf8.AppendRune(b, rune(v+33))
	}
}

// appendDecimalCoords appends ";col;row" with 1-based coordinates.
func appendDecimalCoords(b []byte, col, row int) []byte {
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(col)+1, 10)
	b = append(b, ';')
	return strconv.AppendInt(b, int64(row)+1, 10)
}
