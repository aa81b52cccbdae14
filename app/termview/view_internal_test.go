package termview

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

func TestFind(t *testing.T) {
	h := newHarness(t, 30, 5, Options{})
	h.p.write("first Foo\r\n")
	for i := range 10 {
		h.p.write(fmt.Sprintf("filler %d\r\n", i))
	}
	h.p.write("a foo and FOO\r\nlast")
	h.settle()

	h.v.Find()
	if !h.v.find.visible() {
		t.Fatal("find bar not shown")
	}
	if h.w.Canvas().Focused() != fyne.Focusable(h.v.find.entry) {
		t.Error("find entry not focused")
	}
	test.Type(h.v.find.entry, "foo")
	count := func() string {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return h.v.find.count.Text
	}
	if got := count(); got != "3/3" {
		t.Errorf("count = %q, want 3/3 (newest match current)", got)
	}
	h.v.mu.Lock()
	matches, cur := append([]render.Span(nil), h.v.ov.Matches...), h.v.ov.Current
	h.v.mu.Unlock()
	want := []render.Span{{Row: 3, Col0: 2, Col1: 5}, {Row: 3, Col0: 10, Col1: 13}}
	if fmt.Sprint(matches) != fmt.Sprint(want) || cur != 1 {
		t.Errorf("visible matches = %v current %d, want %v current 1", matches, cur, want)
	}

	// Shift+Enter goes up to the match in the scrollback.
	e := h.v.find.entry
	e.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	if got := count(); got != "1/3" {
		t.Errorf("count after two previous = %q, want 1/3", got)
	}
	if h.v.Offset() == 0 {
		t.Error("view did not scroll to the match in the scrollback")
	}
	h.v.mu.Lock()
	top := h.v.topLineLocked()
	h.v.mu.Unlock()
	if line := h.v.find.matches[0].line; line < top || line >= top+5 {
		t.Errorf("match line %d not visible (top %d)", line, top)
	}
	// Enter goes down and wraps.
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if got := count(); got != "1/3" {
		t.Errorf("count after wrapping = %q, want 1/3", got)
	}

	// New output is found on the next step.
	h.output("\r\nfoo again")
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if got := count(); got != "2/4" {
		t.Errorf("count after new output = %q, want 2/4", got)
	}

	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.v.find.visible() {
		t.Error("Escape did not close the bar")
	}
	h.v.mu.Lock()
	n := len(h.v.ov.Matches)
	h.v.mu.Unlock()
	if n != 0 {
		t.Errorf("%d matches still highlighted after closing", n)
	}
	if h.w.Canvas().Focused() != fyne.Focusable(h.v) {
		t.Error("focus did not return to the view")
	}
}

func TestIndexFold(t *testing.T) {
	tests := []struct {
		s, q   string
		b0, b1 int
		ok     bool
	}{
		{"Hello World", "world", 6, 11, true},
		{"ÉCOLE école", "école", 0, 6, true},
		{"straße", "STRASSE", 0, 0, false},
		{"ab", "abc", 0, 0, false},
		{"xxÄÖü", "öü", 4, 8, true},
	}
	for _, tc := range tests {
		b0, b1, ok := indexFold(tc.s, strings.ToLower(tc.q))
		if ok != tc.ok || ok && (b0 != tc.b0 || b1 != tc.b1) {
			t.Errorf("indexFold(%q, %q) = %d, %d, %v; want %d, %d, %v", tc.s, tc.q, b0, b1, ok, tc.b0, tc.b1, tc.ok)
		}
	}
}

func TestResize(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	h.w.Resize(fyne.NewSize(33*h.cw+3, 12*h.ch+1))
	if got := h.p.lastResize(); got != [2]int{33, 12} {
		t.Errorf("pane resized to %v, want [33 12]", got)
	}
	if c, r := h.v.Cells(); c != 33 || r != 12 {
		t.Errorf("Cells = %d, %d; want 33, 12", c, r)
	}
	n := len(h.p.resizes)
	h.w.Resize(fyne.NewSize(33*h.cw+5, 12*h.ch+2)) // same grid
	if len(h.p.resizes) != n {
		t.Errorf("resize within the same grid resized the pane again")
	}
	// At canvas scale 2 the View's own fonts are rebuilt at scale 2: twice
	// the pixels, the same grid.
	h.w.Canvas().(interface{ SetScale(float32) }).SetScale(2)
	h.v.Refresh()
	if c, r := h.v.Cells(); c != 33 || r != 12 {
		t.Errorf("Cells at scale 2 = %d, %d; want 33, 12", c, r)
	}
	h.v.mu.Lock()
	w, cw := h.v.buf.Rect.Dx(), 0
	cw, _ = h.v.fonts.CellSize()
	h.v.mu.Unlock()
	if want := int(2 * (33*h.cw + 5)); w != want {
		t.Errorf("buffer width at scale 2 = %d, want %d", w, want)
	}
	if d := cw - 2*int(h.cw); d < -1 || d > 1 {
		t.Errorf("cell width at scale 2 = %d, want about %d", cw, 2*int(h.cw))
	}
}

func TestBellFlash(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	flash := func() bool {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return h.v.ov.Flash
	}
	h.output("quiet")
	if flash() {
		t.Fatal("flash without a bell")
	}
	h.output("\a")
	if !flash() {
		t.Fatal("no flash after a bell")
	}
	waitFor(t, "flash to end", func() bool { return !flash() })
}

func TestSyncOutputHoldsFrames(t *testing.T) {
	old := syncHoldMax
	syncHoldMax = time.Hour
	t.Cleanup(func() { syncHoldMax = old })
	h := newHarness(t, 20, 5, Options{})
	h.output("before")
	pixels := func() []byte {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return append([]byte(nil), h.v.buf.Pix...)
	}
	p0 := pixels()
	h.output("\x1b[?2026h\r\nduring the update")
	if !bytes.Equal(pixels(), p0) {
		t.Error("frame drawn during a synchronized update")
	}
	h.output("\x1b[?2026l")
	if bytes.Equal(pixels(), p0) {
		t.Error("no frame after the synchronized update ended")
	}

	// A hold that is never released ends after syncHoldMax.
	h.v.mu.Lock()
	syncHoldMax = time.Millisecond
	h.v.mu.Unlock()
	p1 := pixels()
	h.output("\x1b[?2026hmore")
	waitFor(t, "held frame", func() bool { return !bytes.Equal(pixels(), p1) })
}

// lockedBuffer is a bytes.Buffer safe for the probe's timer goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestRenderProbe(t *testing.T) {
	var out lockedBuffer
	h := newHarness(t, 20, 5, Options{Probe: &out, ProbeName: "p7"})
	h.output("hello")
	re := regexp.MustCompile(`^render-probe pane=p7 fps=[0-9.]+ frames=[1-9][0-9]* rows=[0-9.]+ cost_ms=[0-9.]+ max_ms=[0-9.]+ alone=0\n`)
	waitFor(t, "probe line", func() bool { return out.String() != "" })
	if got := out.String(); !re.MatchString(got) {
		t.Errorf("probe printed %q", got)
	}
}

func TestCursorBlinkTimer(t *testing.T) {
	h := newHarness(t, 20, 5, Options{CursorBlink: BlinkOn})
	running := func() bool {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return h.v.blinkTimer != nil
	}
	if running() {
		t.Error("blink timer runs while unfocused")
	}
	h.w.Canvas().Focus(h.v)
	if !running() {
		t.Error("blink timer not started on focus")
	}
	h.w.Canvas().Unfocus()
	if running() {
		t.Error("blink timer still runs after focus loss")
	}

	h2 := newHarness(t, 20, 5, Options{})
	h2.w.Canvas().Focus(h2.v)
	h2.v.mu.Lock()
	steady := h2.v.blinkTimer == nil
	h2.v.mu.Unlock()
	if !steady {
		t.Error("BlinkProgram blinks a steady cursor")
	}
	h2.output("\x1b[1 q") // blinking block
	h2.v.mu.Lock()
	steady = h2.v.blinkTimer == nil
	h2.v.mu.Unlock()
	if steady {
		t.Error("BlinkProgram does not blink when the program asks")
	}
}

func TestAttentionRing(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	h.v.SetAttention(true)
	if !h.v.ring.Visible() {
		t.Error("ring hidden after SetAttention(true)")
	}
	h.v.SetAttention(false)
	if h.v.ring.Visible() {
		t.Error("ring shown after SetAttention(false)")
	}
}

func TestGoldens(t *testing.T) {
	styled := "\x1b[1mbold\x1b[0m \x1b[3mitalic\x1b[0m \x1b[4munder\x1b[0m \x1b[9mstrike\x1b[0m\r\n" +
		"\x1b[31mred \x1b[32mgreen \x1b[34mblue \x1b[38;5;208m208 \x1b[38;2;200;100;250mtrue\x1b[0m\r\n" +
		"\x1b[7m inverse \x1b[0m \x1b[44;97m bg \x1b[0m 中文 wide\r\n" +
		"┌──┬──┐ ▀▄█░▒▓\r\n" +
		"└──┴──┘ $ "
	t.Run("styled", func(t *testing.T) {
		h := newHarness(t, 32, 6, Options{})
		h.output(styled)
		h.w.Canvas().Focus(h.v)
		assertGolden(t, "styled", h.capture())
	})
	t.Run("selection", func(t *testing.T) {
		h := newHarness(t, 32, 6, Options{})
		h.output(styled)
		h.drag(5, 0, 8, 2, 0)
		assertGolden(t, "selection", h.capture())
	})
	t.Run("find", func(t *testing.T) {
		h := newHarness(t, 48, 6, Options{})
		h.output("find me\r\nand find me too\r\nnot here")
		h.v.Find()
		test.Type(h.v.find.entry, "find")
		assertGolden(t, "find", h.capture())
	})
	t.Run("scrolled", func(t *testing.T) {
		h := newHarness(t, 32, 6, Options{Palette: render.LightPalette()})
		for i := range 20 {
			h.p.write(fmt.Sprintf("line %d\r\n", i))
		}
		h.settle()
		h.v.ScrollPages(-1)
		h.v.SetAttention(true)
		assertGolden(t, "scrolled", h.capture())
	})
}

func TestCursorShapeDefault(t *testing.T) {
	h := newHarness(t, 20, 5, Options{CursorShape: terminal.CursorBar})
	h.output("$ ")
	shape := func() terminal.CursorShape {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return h.v.snap.Cursor.Shape
	}
	if got := shape(); got != terminal.CursorBar {
		t.Fatalf("configured bar cursor: drawn shape %v", got)
	}
	// The program's own choice (DECSCUSR 4: steady underline) wins.
	h.output("\x1b[4 q")
	if got := shape(); got != terminal.CursorUnderline {
		t.Fatalf("after DECSCUSR 4: drawn shape %v, want underline", got)
	}
	// Back to the user's default (DECSCUSR 0), now changed by a reload.
	h.v.SetCursor(terminal.CursorBlock, BlinkOff)
	h.output("\x1b[0 q")
	if got := shape(); got != terminal.CursorBlock {
		t.Fatalf("after DECSCUSR 0 and SetCursor(block): drawn shape %v", got)
	}
	h.v.SetScrollMultiplier(50)
	h.v.mu.Lock()
	m := h.v.opts.ScrollMultiplier
	h.v.mu.Unlock()
	if m != 10 {
		t.Errorf("SetScrollMultiplier(50) kept %v, want the 10 cap", m)
	}
}

func TestFindRegex(t *testing.T) {
	h := newHarness(t, 30, 5, Options{})
	h.p.write("id=12 ID=345\r\nnone here\r\nid=6789")
	h.settle()
	h.v.Find()
	e := h.v.find.entry
	count := func() string {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return h.v.find.count.Text
	}
	test.Type(e, `id=\d+`)
	if got := count(); got != "0/0" {
		t.Errorf("substring mode: count = %q, want 0/0 (the query is literal)", got)
	}

	// Alt+R turns regex mode on; the search runs again, ignoring case.
	e.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: fyne.KeyModifierAlt})
	if got := count(); got != "3/3" {
		t.Errorf("regex mode: count = %q, want 3/3", got)
	}
	h.v.mu.Lock()
	got := fmt.Sprint(h.v.find.matches)
	h.v.mu.Unlock()
	if want := "[{0 0 5} {0 6 12} {2 0 7}]"; got != want {
		t.Errorf("regex matches (line, byte range) = %s, want %s", got, want)
	}
	if e.PlaceHolder != "Find (regex)" {
		t.Errorf("placeholder %q in regex mode, want %q", e.PlaceHolder, "Find (regex)")
	}

	// A pattern that does not compile finds nothing and says so; one that
	// only matches empty strings finds nothing.
	e.SetText("(id")
	if got := count(); got != "bad regex" {
		t.Errorf("count for %q = %q, want %q", "(id", got, "bad regex")
	}
	e.SetText("x*")
	if got := count(); got != "0/0" {
		t.Errorf("count for x* = %q, want 0/0 (empty matches skipped)", got)
	}

	// The ".*" button turns it off again.
	e.SetText("id=1")
	test.Tap(h.v.find.regexB)
	if got := count(); got != "1/1" {
		t.Errorf("back to substring mode: count = %q, want 1/1", got)
	}
	if e.PlaceHolder != "Find" {
		t.Errorf("placeholder %q in substring mode, want Find", e.PlaceHolder)
	}
}

// TestHiddenViewDrawsNothing checks that a hidden View (its pane in a
// workspace not shown) takes no snapshot and draws no frame while its
// program prints, and draws the latest screen once shown again.
func TestHiddenViewDrawsNothing(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	h.output("before")
	h.v.SetHidden(true)
	n := h.p.snapshots.Load()
	for i := range 20 {
		h.p.write(fmt.Sprintf("\r\nhidden %d", i))
		time.Sleep(5 * time.Millisecond) // room for a (wrong) frame between writes
	}
	time.Sleep(100 * time.Millisecond)
	if got := h.p.snapshots.Load() - n; got != 0 {
		t.Errorf("the hidden view took %d snapshots while its pane printed", got)
	}
	if g, _ := h.p.emu.Watch(); h.v.drawnGen.Load() == g {
		t.Error("the hidden view drew the output printed while hidden")
	}
	h.v.SetHidden(false)
	h.settle()
	h.v.mu.Lock()
	var drawn []rune
	for _, c := range h.v.snap.Row(h.v.snap.Cursor.Y) {
		drawn = append(drawn, c.Char)
	}
	h.v.mu.Unlock()
	if got := strings.TrimRight(string(drawn), "\x00 "); got != "hidden 19" {
		t.Errorf("the cursor's row drawn after showing the view: %q", got)
	}
}

// TestGridWiderThanView: a program that switched to 132 columns
// (DECCOLM) gives the View a grid wider than its own; the View clips it,
// keeps working on the cells it shows and does not resize the pane back
// (only a layout change does).
func TestGridWiderThanView(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	n := len(h.p.resizes)
	h.output("\x1b[?40h\x1b[?3hhello world" + strings.Repeat(".", 100) + "END")
	if cols, _ := h.p.emu.Size(); cols != 132 {
		t.Fatalf("emulator width = %d, want 132", cols)
	}
	if len(h.p.resizes) != n {
		t.Errorf("the View resized the pane to %v after the program's DECCOLM", h.p.resizes[n:])
	}
	if img := h.capture(); img.Bounds().Dx() != int(20*h.cw) {
		t.Errorf("window image %d wide, want %d", img.Bounds().Dx(), int(20*h.cw))
	}
	// A drag past the View's right edge selects up to the cell under the
	// pointer (column 30), which the View does not show.
	h.drag(6, 0, 30, 0, 0)
	if got, want := h.v.SelectedText(), "world"+strings.Repeat(".", 20); got != want {
		t.Errorf("SelectedText = %q, want %q", got, want)
	}
	// Text beyond the edge is still found.
	h.v.mu.Lock()
	h.v.find.query = "END"
	h.v.find.searchLocked()
	found := len(h.v.find.matches)
	h.v.mu.Unlock()
	if found != 1 {
		t.Errorf("find END: %d matches, want 1", found)
	}
	// A layout change gives the pane the View's width again.
	h.w.Resize(fyne.NewSize(25*h.cw, 5*h.ch))
	if cols, _ := h.p.emu.Size(); cols != 25 {
		t.Errorf("emulator width after a layout change = %d, want 25", cols)
	}
}

// TestInset: Options.Inset leaves a gap around the grid: the pane gets
// the cells that fit inside it, and positions map to cells from its
// inner edge.
func TestInset(t *testing.T) {
	test.NewTempApp(t)
	const cols, rows, in = 20, 5, 6
	p := newFakePane(cols, rows, 100)
	v := New(p, Options{Inset: in})
	t.Cleanup(v.Close)
	w := test.NewTempWindow(t, v)
	w.SetPadded(false)
	cw, ch := v.fonts.CellSize()
	w.Resize(fyne.NewSize(float32(cols*cw+2*in), float32(rows*ch+2*in)))
	if got := p.lastResize(); got != [2]int{cols, rows} {
		t.Fatalf("pane resized to %v, want %dx%d inside the inset", got, cols, rows)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, tc := range []struct {
		x, y float32
		want render.Point
	}{
		{1, 1, render.Point{}},
		{in + 0.5*float32(cw), in + 0.5*float32(ch), render.Point{}},
		{in + 1.5*float32(cw), in + 2.5*float32(ch), render.Point{Row: 2, Col: 1}},
		{in - 1 + float32(cw), in, render.Point{}},
	} {
		if got := v.cellAtLocked(fyne.NewPos(tc.x, tc.y)); got != tc.want {
			t.Errorf("cell at (%v, %v) = %+v, want %+v", tc.x, tc.y, got, tc.want)
		}
	}
}
