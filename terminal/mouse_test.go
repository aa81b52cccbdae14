package terminal

import (
	"fmt"
	"math"
	"testing"
)

func TestEncodeMouse(t *testing.T) {
	mode := func(mm MouseMode, enc MouseEncoding) InputModes {
		return InputModes{Mouse: mm, MouseEnc: enc}
	}
	var (
		x10    = mode(MouseX10, MouseEncX10)
		normal = mode(MouseNormal, MouseEncX10)
		button = mode(MouseDrag, MouseEncX10)
		anyEv  = mode(MouseAny, MouseEncX10)
		utf8   = mode(MouseNormal, MouseEncUTF8)
		sgr    = mode(MouseAny, MouseEncSGR)
		urxvt  = mode(MouseAny, MouseEncURXVT)
	)
	press := func(b MouseButton, col, row int, mods Mod) MouseEvent {
		return MouseEvent{Button: b, Action: MousePress, Col: col, Row: row, Mods: mods}
	}
	release := func(b MouseButton, col, row int, mods Mod) MouseEvent {
		return MouseEvent{Button: b, Action: MouseRelease, Col: col, Row: row, Mods: mods}
	}
	motion := func(b MouseButton, col, row int, mods Mod) MouseEvent {
		return MouseEvent{Button: b, Action: MouseMotion, Col: col, Row: row, Mods: mods}
	}

	tests := []struct {
		name string
		ev   MouseEvent
		m    InputModes
		want string // "" means not reported
	}{
		// Which events each mode reports.
		{"off", press(MouseLeft, 0, 0, 0), InputModes{}, ""},
		{"off wheel", press(MouseWheelUp, 0, 0, 0), InputModes{MouseEnc: MouseEncSGR}, ""},
		{"x10 left", press(MouseLeft, 0, 0, 0), x10, "\x1b[M !!"},
		{"x10 middle", press(MouseMiddle, 9, 4, 0), x10, "\x1b[M!*%"},
		{"x10 right", press(MouseRight, 0, 0, 0), x10, "\x1b[M\"!!"},
		{"x10 super ignored", press(MouseLeft, 0, 0, ModSuper), x10, "\x1b[M !!"},
		{"x10 release", release(MouseLeft, 0, 0, 0), x10, ""},
		{"x10 drag", motion(MouseLeft, 0, 0, 0), x10, ""},
		{"x10 wheel", press(MouseWheelUp, 0, 0, 0), x10, ""},
		{"x10 shift", press(MouseLeft, 0, 0, ModShift), x10, ""},
		{"x10 ctrl", press(MouseLeft, 0, 0, ModCtrl), x10, ""},
		{"x10 sgr", press(MouseRight, 4, 2, 0), mode(MouseX10, MouseEncSGR), "\x1b[<2;5;3M"},
		{"normal press", press(MouseLeft, 0, 0, 0), normal, "\x1b[M !!"},
		{"normal release", release(MouseLeft, 0, 0, 0), normal, "\x1b[M#!!"},
		{"normal release unknown button", release(MouseNone, 0, 0, 0), normal, "\x1b[M#!!"},
		{"normal drag", motion(MouseLeft, 0, 0, 0), normal, ""},
		{"normal motion", motion(MouseNone, 0, 0, 0), normal, ""},
		{"normal wheel up", press(MouseWheelUp, 0, 0, 0), normal, "\x1b[M`!!"},
		{"normal wheel down", press(MouseWheelDown, 0, 0, 0), normal, "\x1b[Ma!!"},
		{"normal wheel left", press(MouseWheelLeft, 0, 0, 0), normal, "\x1b[Mb!!"},
		{"normal wheel right", press(MouseWheelRight, 0, 0, 0), normal, "\x1b[Mc!!"},
		{"normal wheel release", release(MouseWheelUp, 0, 0, 0), normal, ""},
		{"normal press of no button", press(MouseNone, 0, 0, 0), normal, ""},
		{"normal shift", press(MouseLeft, 0, 0, ModShift), normal, "\x1b[M$!!"},
		{"normal alt", press(MouseLeft, 0, 0, ModAlt), normal, "\x1b[M(!!"},
		{"normal ctrl", press(MouseLeft, 0, 0, ModCtrl), normal, "\x1b[M0!!"},
		{"normal all mods", press(MouseLeft, 0, 0, ModShift|ModAlt|ModCtrl|ModSuper), normal, "\x1b[M<!!"},
		{"normal ctrl wheel", press(MouseWheelDown, 0, 0, ModCtrl), normal, "\x1b[Mq!!"},
		{"button drag left", motion(MouseLeft, 1, 1, 0), button, "\x1b[M@\"\""},
		{"button drag right", motion(MouseRight, 1, 1, 0), button, "\x1b[MB\"\""},
		{"button drag ctrl", motion(MouseMiddle, 1, 1, ModCtrl), button, "\x1b[MQ\"\""},
		{"button motion", motion(MouseNone, 1, 1, 0), button, ""},
		{"button wheel motion", motion(MouseWheelUp, 1, 1, 0), button, ""},
		{"any motion", motion(MouseNone, 1, 1, 0), anyEv, "\x1b[MC\"\""},
		{"any drag", motion(MouseLeft, 1, 1, 0), anyEv, "\x1b[M@\"\""},
		{"any release", release(MouseRight, 1, 1, 0), anyEv, "\x1b[M#\"\""},

		// X10 byte coordinates: 1-based plus 32, NUL from 223 on.
		{"x10 enc col 222", press(MouseLeft, 222, 0, 0), normal, "\x1b[M \xff!"},
		{"x10 enc col 223", press(MouseLeft, 223, 0, 0), normal, "\x1b[M \x00!"},
		{"x10 enc row 5000", press(MouseLeft, 0, 5000, 0), normal, "\x1b[M !\x00"},
		{"x10 enc negative", press(MouseLeft, -3, -1, 0), normal, "\x1b[M !!"},

		// UTF-8 (1005).
		{"utf8 small", press(MouseLeft, 0, 0, 0), utf8, "\x1b[M !!"},
		{"utf8 col 94", press(MouseLeft, 94, 0, 0), utf8, "\x1b[M \x7f!"},
		{"utf8 col 95", press(MouseLeft, 95, 0, 0), utf8, "\x1b[M \u0080!"},
		{"utf8 col 300", press(MouseLeft, 300, 0, 0), utf8, "\x1b[M \u014d!"},
		{"utf8 col 2014", press(MouseLeft, 2014, 0, 0), utf8, "\x1b[M \u07ff!"},
		{"utf8 col 2015", press(MouseLeft, 2015, 0, 0), utf8, "\x1b[M \x00!"},
		{"utf8 row huge", press(MouseLeft, 0, 1_000_000, 0), utf8, "\x1b[M !\x00"},
		{"utf8 release", release(MouseMiddle, 0, 0, 0), utf8, "\x1b[M#!!"},

		// SGR (1006).
		{"sgr press", press(MouseLeft, 0, 0, 0), sgr, "\x1b[<0;1;1M"},
		{"sgr release", release(MouseLeft, 0, 0, 0), sgr, "\x1b[<0;1;1m"},
		{"sgr release right", release(MouseRight, 9, 4, 0), sgr, "\x1b[<2;10;5m"},
		{"sgr release unknown", release(MouseNone, 0, 0, 0), sgr, "\x1b[<3;1;1m"},
		{"sgr release mods", release(MouseLeft, 0, 0, ModCtrl|ModShift), sgr, "\x1b[<20;1;1m"},
		{"sgr wheel up", press(MouseWheelUp, 9, 4, 0), sgr, "\x1b[<64;10;5M"},
		{"sgr ctrl wheel down", press(MouseWheelDown, 9, 4, ModCtrl), sgr, "\x1b[<81;10;5M"},
		{"sgr drag", motion(MouseLeft, 2, 3, 0), sgr, "\x1b[<32;3;4M"},
		{"sgr motion", motion(MouseNone, 2, 3, 0), sgr, "\x1b[<35;3;4M"},
		{"sgr motion alt", motion(MouseNone, 2, 3, ModAlt), sgr, "\x1b[<43;3;4M"},
		{"sgr large", press(MouseLeft, 999, 499, 0), sgr, "\x1b[<0;1000;500M"},
		{"sgr huge", press(MouseLeft, math.MaxInt, 0, 0), sgr, "\x1b[<0;2147483647;1M"},

		// URXVT (1015).
		{"urxvt press", press(MouseLeft, 0, 0, 0), urxvt, "\x1b[32;1;1M"},
		{"urxvt release", release(MouseLeft, 0, 0, 0), urxvt, "\x1b[35;1;1M"},
		{"urxvt wheel", press(MouseWheelUp, 299, 99, 0), urxvt, "\x1b[96;300;100M"},
		{"urxvt motion", motion(MouseNone, 0, 0, ModShift), urxvt, "\x1b[71;1;1M"},

		// Values that are not defined.
		{"bad button", press(MouseButton(99), 0, 0, 0), sgr, ""},
		{"bad action", MouseEvent{Button: MouseLeft, Action: MouseAction(9)}, sgr, ""},
		{"bad encoding", press(MouseLeft, 0, 0, 0), mode(MouseNormal, MouseEncoding(9)), ""},
		{"bad mode", press(MouseLeft, 0, 0, 0), mode(MouseMode(9), MouseEncSGR), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := EncodeMouse(tc.ev, tc.m)
			if tc.want == "" {
				if ok || got != nil {
					t.Fatalf("EncodeMouse(%+v, %+v): got %q, %v; want not reported", tc.ev, tc.m, got, ok)
				}
				return
			}
			if !ok || string(got) != tc.want {
				t.Errorf("EncodeMouse(%+v, %+v): got %q (ok=%v), want %q", tc.ev, tc.m, got, ok, tc.want)
			}
		})
	}
}

// TestEncodeMouseModeMatrix checks, for every mode, encoding, button and
// action, that an event is reported exactly when its mode asks for it.
func TestEncodeMouseModeMatrix(t *testing.T) {
	modes := []MouseMode{MouseOff, MouseX10, MouseNormal, MouseDrag, MouseAny}
	encs := []MouseEncoding{MouseEncX10, MouseEncUTF8, MouseEncSGR, MouseEncURXVT}
	for _, mm := range modes {
		for _, enc := range encs {
			for b := MouseNone; b < mouseBtnCount; b++ {
				for _, a := range []MouseAction{MousePress, MouseRelease, MouseMotion} {
					ev := MouseEvent{Button: b, Action: a, Col: 3, Row: 4}
					wheel := b >= MouseWheelUp
					var want bool
					switch mm {
					case MouseX10:
						want = a == MousePress && b != MouseNone && !wheel
					case MouseNormal:
						want = (a == MousePress && b != MouseNone) || (a == MouseRelease && !wheel)
					case MouseDrag:
						want = (a == MousePress && b != MouseNone) || (a == MouseRelease && !wheel) ||
							(a == MouseMotion && b != MouseNone && !wheel)
					case MouseAny:
						want = (a == MousePress && b != MouseNone) || (a != MousePress && !wheel)
					}
					name := fmt.Sprintf("mode=%d enc=%d button=%d action=%d", mm, enc, b, a)
					got, ok := EncodeMouse(ev, InputModes{Mouse: mm, MouseEnc: enc})
					if ok != want || ok == (got == nil) {
						t.Errorf("%s: got %q, %v; want reported=%v", name, got, ok, want)
					}
				}
			}
		}
	}
}
