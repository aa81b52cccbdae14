package terminal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// colmEmu is a test emulator that also records the sizes it reports
// through EmulatorOptions.Resized.
type colmEmu struct {
	*emu
	resized [][2]int
}

func newColmEmu(t *testing.T, cols, rows int) *colmEmu {
	t.Helper()
	e := &colmEmu{emu: &emu{}}
	e.Emulator = NewEmulator(cols, rows, EmulatorOptions{
		Scrollback: 100,
		Reply:      func(p []byte) { e.replies = append(e.replies, p...) },
		Resized:    func(c, r int) { e.resized = append(e.resized, [2]int{c, r}) },
	})
	return e
}

func (e *colmEmu) feed(s string) *colmEmu {
	e.Write([]byte(s))
	return e
}

// state is the width, the cursor, the margins and what DECRQM says of
// ?3 and ?40.
func (e *colmEmu) state() string {
	e.replies = nil
	e.Write([]byte("\x1b[?3$p\x1b[?40$p"))
	e.mu.Lock()
	defer e.mu.Unlock()
	lrmm := "off"
	if e.lrmm {
		lrmm = "on"
	}
	return fmt.Sprintf("%dx%d cursor %d,%d region %d-%d lr %d-%d lrmm %s %s", e.cols, e.rows, e.x, e.y,
		e.top, e.bot, e.left, e.right, lrmm, strings.ReplaceAll(string(e.replies), "\x1b", "^"))
}

func TestDECCOLM(t *testing.T) {
	const filled = "\x1b[2;20r\x1b[?69h\x1b[5;60s\x1b[3;7Hhello"
	for _, tc := range []struct {
		name    string
		cols    int
		in      string
		state   string
		screen  []string
		resized [][2]int
	}{
		{
			name:   "ignored while ?40 is off",
			cols:   80,
			in:     "abc\x1b[?3h",
			state:  "80x24 cursor 3,0 region 0-23 lr 0-79 lrmm off ^[?3;2$y^[?40;2$y",
			screen: []string{"abc"},
		},
		{
			name:    "132 columns: cleared, homed, margins and DECLRMM reset",
			cols:    80,
			in:      filled + "\x1b[?40h\x1b[?3h",
			state:   "132x24 cursor 0,0 region 0-23 lr 0-131 lrmm off ^[?3;1$y^[?40;1$y",
			resized: [][2]int{{132, 24}},
		},
		{
			name:  "back to 80 columns keeps DECLRMM, resets its margins",
			cols:  80,
			in:    "\x1b[?40h\x1b[?3h\x1b[?69h\x1b[5;60s\x1b[3;9r\x1b[4;4Hx\x1b[?3l",
			state: "80x24 cursor 0,0 region 0-23 lr 0-79 lrmm on ^[?3;2$y^[?40;1$y",
			// One Write: reported once, with the size it ended with.
			resized: [][2]int{{80, 24}},
		},
		{
			name:    "80 columns from a wider pane",
			cols:    100,
			in:      "abc\x1b[?40h\x1b[?3l",
			state:   "80x24 cursor 0,0 region 0-23 lr 0-79 lrmm off ^[?3;2$y^[?40;1$y",
			resized: [][2]int{{80, 24}},
		},
		{
			name:  "same width: cleared and homed, the size not reported",
			cols:  80,
			in:    "abc\x1b[2;5r\x1b[?40h\x1b[?3l",
			state: "80x24 cursor 0,0 region 0-23 lr 0-79 lrmm off ^[?3;2$y^[?40;1$y",
		},
		{
			name:    "origin mode: home is the whole screen's",
			cols:    80,
			in:      "\x1b[5;10r\x1b[?6h\x1b[?40h\x1b[?3hx",
			state:   "132x24 cursor 1,0 region 0-23 lr 0-131 lrmm off ^[?3;1$y^[?40;1$y",
			screen:  []string{"x"},
			resized: [][2]int{{132, 24}},
		},
		{
			name:    "a line of 132 characters fits",
			cols:    80,
			in:      "\x1b[?40h\x1b[?3h" + strings.Repeat("a", 131) + "b",
			state:   "132x24 cursor 131,0 region 0-23 lr 0-131 lrmm off ^[?3;1$y^[?40;1$y",
			screen:  []string{strings.Repeat("a", 131) + "b"},
			resized: [][2]int{{132, 24}},
		},
		{
			name:    "DECSCPP 132 keeps the screen and the cursor's row, needs no ?40",
			cols:    80,
			in:      "\x1b[2;5rabc\x1b[3;70H\x1b[132$|x",
			state:   "132x24 cursor 70,2 region 1-4 lr 0-131 lrmm off ^[?3;1$y^[?40;2$y",
			screen:  []string{"abc", "", strings.Repeat(" ", 69) + "x"},
			resized: [][2]int{{132, 24}},
		},
		{
			name:    "DECSCPP 0 is 80 columns; the cursor moves in",
			cols:    132,
			in:      "\x1b[1;120Hab\x1b[$|x",
			state:   "80x24 cursor 79,0 region 0-23 lr 0-79 lrmm off ^[?3;2$y^[?40;2$y",
			screen:  []string{strings.Repeat(" ", 79) + "x"},
			resized: [][2]int{{80, 24}},
		},
		{
			name:  "DECSCPP of another width is ignored",
			cols:  80,
			in:    "\x1b[100$|",
			state: "80x24 cursor 0,0 region 0-23 lr 0-79 lrmm off ^[?3;2$y^[?40;2$y",
		},
		{
			name:  "DECSCPP below VT300 level is ignored",
			cols:  80,
			in:    "\x1b[61\"p\x1b[132$|\x1b[64;1\"p",
			state: "80x24 cursor 0,0 region 0-23 lr 0-79 lrmm off ^[?3;2$y^[?40;2$y",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newColmEmu(t, tc.cols, 24)
			e.feed(tc.in)
			if got := e.state(); got != tc.state {
				t.Errorf("state\n got %s\nwant %s", got, tc.state)
			}
			if diff := cmp.Diff(tc.screen, e.screen()); diff != "" {
				t.Errorf("screen (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.resized, e.resized); diff != "" {
				t.Errorf("Resized calls (-want +got):\n%s", diff)
			}
			checkInvariants(t, e.Emulator)
		})
	}
}

// TestDECCOLMKeepsText checks that the main screen's text goes to the
// scrollback, as ED 2 keeps it, and that the alternate screen is cleared
// while the main one, under it, is only widened.
func TestDECCOLMKeepsText(t *testing.T) {
	e := newColmEmu(t, 80, 4)
	e.feed("one\r\ntwo\x1b[?40h\x1b[?3h")
	if got, want := e.Lines(0, e.HistoryLen()), []string{"one", "two"}; !cmp.Equal(got, want) {
		t.Errorf("scrollback = %q, want %q", got, want)
	}
	if got := e.screen(); got != nil {
		t.Errorf("screen = %q, want it clear", got)
	}

	e = newColmEmu(t, 80, 4)
	e.feed("main\x1b[?1049halt\x1b[?40h\x1b[?3h")
	if got := e.screen(); got != nil {
		t.Errorf("alternate screen = %q, want it clear", got)
	}
	e.feed("\x1b[?1049l")
	if got, want := e.screen(), []string{"main"}; !cmp.Equal(got, want) {
		t.Errorf("main screen = %q, want %q", got, want)
	}
	if cols, _ := e.Size(); cols != 132 {
		t.Errorf("width after leaving the alternate screen = %d, want 132", cols)
	}
	checkInvariants(t, e.Emulator)
}

// TestDECCOLMAndResize checks the rule between DECCOLM and the pane's
// layout: a Resize replaces the width DECCOLM set (and is not reported
// through Resized, its caller knows), and a full reset returns to the
// last Resize's width.
func TestDECCOLMAndResize(t *testing.T) {
	e := newColmEmu(t, 100, 24)
	e.feed("\x1b[?40h\x1b[?3h")
	e.Resize(90, 20)
	if cols, rows := e.Size(); cols != 90 || rows != 20 {
		t.Errorf("size after Resize = %dx%d, want 90x20", cols, rows)
	}
	e.feed("\x1b[?3h")
	e.feed("\x1bc")
	if cols, _ := e.Size(); cols != 90 {
		t.Errorf("width after RIS = %d, want 90 (the last Resize's)", cols)
	}
	if got, want := e.resized, [][2]int{{132, 24}, {132, 20}, {90, 20}}; !cmp.Equal(got, want) {
		t.Errorf("Resized calls = %v, want %v", got, want)
	}
	if got := e.state(); !strings.HasSuffix(got, "^[?3;2$y^[?40;1$y") {
		t.Errorf("after RIS: %s, want ?3 reset and ?40 kept, as xterm keeps it", got)
	}

	// The user's reset (Emulator.Reset) does the same, outside Write.
	e.feed("\x1b[?40h\x1b[?3h")
	e.Reset()
	if cols, _ := e.Size(); cols != 90 {
		t.Errorf("width after Reset = %d, want 90", cols)
	}
	if n := len(e.resized); n != 5 || e.resized[4] != [2]int{90, 20} {
		t.Errorf("Resized calls = %v, want the reset's 90x20 last", e.resized)
	}
	// A reset that changes no width reports nothing.
	e.Reset()
	if n := len(e.resized); n != 5 {
		t.Errorf("Resized calls after a second reset = %v", e.resized)
	}
	checkInvariants(t, e.Emulator)
}

// TestDECCOLMSoftResetKeepsWidth: DECSTR leaves DECCOLM and ?40 alone,
// as the VT510 and xterm do.
func TestDECCOLMSoftResetKeepsWidth(t *testing.T) {
	e := newColmEmu(t, 80, 24)
	e.feed("\x1b[?40h\x1b[?3h\x1b[!p")
	if got, want := e.state(), "132x24 cursor 0,0 region 0-23 lr 0-131 lrmm off ^[?3;1$y^[?40;1$y"; got != want {
		t.Errorf("state\n got %s\nwant %s", got, want)
	}
}

// TestDECNCSMNotRecognised: DECNCSM is a VT510 feature; the emulator is a
// VT420, so, as in xterm acting as one, DECRQM does not know it and
// setting it does not keep the screen.
func TestDECNCSMNotRecognised(t *testing.T) {
	e := newColmEmu(t, 80, 24)
	e.feed("abc\x1b[?95h\x1b[?95$p\x1b[?40h\x1b[?3h")
	if got, want := string(e.replies), "\x1b[?95;0$y"; got != want {
		t.Errorf("DECRQM ?95 = %q, want %q", got, want)
	}
	if got := e.screen(); got != nil {
		t.Errorf("screen = %q, want it cleared", got)
	}
}

// TestDECCOLMWideCharacterAtTheEdge: DECCOLM on the alternate screen
// clears only that one; the main screen under it is cropped, and a wide
// character cut in half at the new edge goes, keeping the invariants.
func TestDECCOLMWideCharacterAtTheEdge(t *testing.T) {
	e := newColmEmu(t, 80, 4)
	e.feed("\x1b[?40h\x1b[?3h\x1b[1;80H日\x1b[?1049h\x1b[?3l")
	e.feed("\x1b[?1049l")
	checkInvariants(t, e.Emulator)
	if got := e.screen(); got != nil {
		t.Errorf("main screen = %q, want the half character gone", got)
	}
}
