package attach

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// sameScreen fails t unless m shows what s shows (see Diff).
func sameScreen(t *testing.T, m, s *terminal.Snapshot) {
	t.Helper()
	if d := Diff(m, s); d != "" {
		t.Error(d)
	}
}

// roundTrip encodes the emulator's update, sends it through JSON and
// applies it to m; it returns the frame as decoded (nil when none).
func roundTrip(t *testing.T, enc *Encoder, emu *terminal.Emulator, m *Mirror) *proto.ScreenFrame {
	t.Helper()
	f, ok := enc.Update(emu)
	if !ok {
		return nil
	}
	data := f.AppendJSON(nil)
	std, err := json.Marshal(*f)
	if err != nil || string(std) != string(data) {
		t.Fatalf("MarshalJSON differs from AppendJSON: %v", err)
	}
	var got proto.ScreenFrame
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	if err := m.Apply(&got); err != nil {
		t.Fatalf("applying %s: %v", data, err)
	}
	return &got
}

func TestRoundTripRealScreens(t *testing.T) {
	emu := terminal.NewEmulator(40, 8, terminal.EmulatorOptions{})
	enc := NewEncoder(7)
	var m Mirror
	var snap terminal.Snapshot
	steps := []string{
		"plain ascii\r\n",
		"\x1b[1;31mred bold\x1b[0m \x1b[38;2;1;2;3;48;5;200mtrue\x1b[4:3;58;5;9mcurly\x1b[0m\r\n",
		"wide: 漢字かな 🙂 end\r\n",
		"clusters: e\u0301 👩\u200d💻 🇫🇷 a\u0308\u0301\r\n",
		"\x1b]8;;https://example.com/a\x1b\\link\x1b]8;;\x1b\\ and \x1b]8;;file:///tmp/b\x1b\\other\x1b]8;;\x1b\\\r\n",
		"\x1b[5;10H\x1b[42m   \x1b[0m gap\x1b[K",
		"\x1b]0;the title\x07\x1b]7;file:///home/x\x07\x1b[?1h\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[>1u\x1b[6 q\x1b[?25l",
		"\x1b]4;1;rgb:12/34/56\x07\x1b]11;rgb:00/00/20\x07",
		strings.Repeat("wrapping line ", 8) + "\r\n",
		"\x1b[7;38H漢字", // a wide character cut by the margin wraps
		"\x1b[?1049h\x1b[2J\x1b[Halt screen 漢\x1b[?5h",
		"\x1b[?1049l\x1b[?5l\x1b[3;3H\x1b[2@\x1b[1P",
		"\x1b[2;1H漢\x1b[2;2Hx", // overwrite half of a wide character
	}
	for i, s := range steps {
		emu.Write([]byte(s))
		f := roundTrip(t, enc, emu, &m)
		if f == nil {
			t.Fatalf("step %d: no frame for a change", i)
		}
		if f.Full != (i == 0) {
			t.Errorf("step %d: full %v", i, f.Full)
		}
		emu.Snapshot(&snap)
		sameScreen(t, &m.Screen, &snap)
		if m.Bells != emu.Bells() || m.HistoryLen != emu.HistoryLen() {
			t.Errorf("step %d: bells %d history %d, want %d %d", i, m.Bells, m.HistoryLen, emu.Bells(), emu.HistoryLen())
		}
	}
	if f, ok := enc.Update(emu); ok {
		t.Errorf("an update without a change: %+v", f)
	}
	emu.Resize(30, 5)
	if f := roundTrip(t, enc, emu, &m); f == nil || !f.Full {
		t.Fatalf("a resize sent %+v, want a full frame", f)
	}
	emu.Snapshot(&snap)
	sameScreen(t, &m.Screen, &snap)
}

// TestProgramChangesWidth: a program's DECCOLM makes the grid wider (or
// narrower) than the pane's layout; the mirror follows with a full frame.
func TestProgramChangesWidth(t *testing.T) {
	emu := terminal.NewEmulator(40, 6, terminal.EmulatorOptions{})
	enc := NewEncoder(1)
	var m Mirror
	var snap terminal.Snapshot
	for i, s := range []string{"narrow", "\x1b[?40h\x1b[?3h" + strings.Repeat("x", 131) + "y", "\x1b[?3lback", "\x1b[132$|" + "\x1b[1;120Hz"} {
		emu.Write([]byte(s))
		f := roundTrip(t, enc, emu, &m)
		if f == nil {
			t.Fatalf("step %d: no frame for a change", i)
		}
		emu.Snapshot(&snap)
		if i > 0 && (!f.Full || f.Cols != snap.Cols) {
			t.Errorf("step %d: frame full %v cols %d, want a full frame of %d columns", i, f.Full, f.Cols, snap.Cols)
		}
		sameScreen(t, &m.Screen, &snap)
	}
}

// TestDeltaSendsChangedRows: one changed row, one row on the wire.
func TestDeltaSendsChangedRows(t *testing.T) {
	emu := terminal.NewEmulator(80, 24, terminal.EmulatorOptions{})
	for i := range 30 {
		fmt.Fprintf(emu, "line %d\r\n", i)
	}
	enc := NewEncoder(1)
	var m Mirror
	roundTrip(t, enc, emu, &m)
	emu.Write([]byte("x"))
	f := roundTrip(t, enc, emu, &m)
	if f == nil || f.Full || len(f.Lines) != 1 || f.Lines[0].Y != 23 {
		t.Fatalf("frame %+v, want a delta of row 23", f)
	}
	if f.HistoryLen != emu.HistoryLen() || f.HistoryLen == 0 {
		t.Errorf("history_len %d, want %d", f.HistoryLen, emu.HistoryLen())
	}
}

func TestMirrorRejectsBadFrames(t *testing.T) {
	good := proto.ScreenFrame{Type: proto.FrameScreen, Seq: 1, Full: true, Cols: 4, Rows: 2,
		ScreenCells: proto.ScreenCells{Styles: []proto.ScreenStyle{{}}}}
	bad := map[string]func(f *proto.ScreenFrame){
		"delta first": func(f *proto.ScreenFrame) { f.Full = false },
		"zero size":   func(f *proto.ScreenFrame) { f.Cols = 0 },
		"huge":        func(f *proto.ScreenFrame) { f.Cols, f.Rows = 1<<20, 1<<20 },
		"row":         func(f *proto.ScreenFrame) { f.Lines = []proto.ScreenRow{{Y: 2}} },
		"style": func(f *proto.ScreenFrame) {
			f.Lines = []proto.ScreenRow{{Runs: []proto.ScreenRun{{Style: 1, Text: "a", Width: 1}}}}
		},
		"overflow": func(f *proto.ScreenFrame) {
			f.Lines = []proto.ScreenRow{{Runs: []proto.ScreenRun{{Text: "abcde", Width: 1}}}}
		},
		"wide overflow": func(f *proto.ScreenFrame) {
			f.Lines = []proto.ScreenRow{{Runs: []proto.ScreenRun{{Text: "漢漢a", Width: 2}}}}
		},
		"blanks": func(f *proto.ScreenFrame) {
			f.Lines = []proto.ScreenRow{{Runs: []proto.ScreenRun{{Blanks: 5, Width: 1}}}}
		},
	}
	for name, mod := range bad {
		f := good
		mod(&f)
		var m Mirror
		if err := m.Apply(&f); err == nil {
			t.Errorf("%s: applied", name)
		}
	}
	var m Mirror
	if err := m.Apply(&good); err != nil {
		t.Fatal(err)
	}
	d := good
	d.Full, d.Seq, d.Cols = false, 2, 5
	if err := m.Apply(&d); err == nil {
		t.Error("a delta of another size applied")
	}
}

func TestRunJSON(t *testing.T) {
	for _, s := range []string{`[0,"ab"]`, `[1,"漢",2]`, `[2,["e\u0301",""],1]`, `[0,3]`, `[0,1,0]`, `[3,"x",-2]`} {
		var r proto.ScreenRun
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		b, _ := json.Marshal(r)
		var back proto.ScreenRun
		if err := json.Unmarshal(b, &back); err != nil || fmt.Sprint(back) != fmt.Sprint(r) {
			t.Errorf("%s → %s → %+v, want %+v", s, b, back, r)
		}
	}
	for _, s := range []string{`[0]`, `[0,""]`, `[0,-1]`, `[0,"a",3]`, `{}`, `[0,"a",1,2]`} {
		var r proto.ScreenRun
		if json.Unmarshal([]byte(s), &r) == nil {
			t.Errorf("%s decoded", s)
		}
	}
}

// TestFramesSplit: a screen whose frame would exceed the cap arrives in
// several frames that rebuild it exactly.
func TestFramesSplit(t *testing.T) {
	emu := terminal.NewEmulator(100, 40, terminal.EmulatorOptions{})
	for y := range 40 {
		for x := range 100 {
			fmt.Fprintf(emu, "\x1b[38;2;%d;%d;0m%c", x, y, 'a'+rune(x%26))
		}
	}
	enc := NewEncoder(3)
	frames := enc.Frames(emu, 16<<10, nil)
	if len(frames) < 2 {
		t.Fatalf("%d frames, want a split", len(frames))
	}
	var m Mirror
	for i, b := range frames {
		if len(b) > 16<<10 {
			t.Errorf("frame %d has %d bytes", i, len(b))
		}
		var f proto.ScreenFrame
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		if f.Full != (i == 0) || f.Seq != uint64(i+1) {
			t.Errorf("frame %d: full %v seq %d", i, f.Full, f.Seq)
		}
		if err := m.Apply(&f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	var snap terminal.Snapshot
	emu.Snapshot(&snap)
	sameScreen(t, &m.Screen, &snap)
}
