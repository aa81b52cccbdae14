package termview

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

func (h *harness) mouseDown(col, row int, btn desktop.MouseButton, mods fyne.KeyModifier) {
	h.v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(col, row)}, Button: btn, Modifier: mods})
}

func (h *harness) mouseUp(col, row int, btn desktop.MouseButton, mods fyne.KeyModifier) {
	h.v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(col, row)}, Button: btn, Modifier: mods})
}

// drag presses the primary button at one cell, drags to another and
// releases, as the GLFW driver reports it (Dragged positions are the
// pointer's current position).
func (h *harness) drag(c0, r0, c1, r1 int, mods fyne.KeyModifier) {
	h.mouseDown(c0, r0, desktop.MouseButtonPrimary, mods)
	h.v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: h.pos(c1, r1)}})
	h.v.DragEnd()
	h.mouseUp(c1, r1, desktop.MouseButtonPrimary, mods)
}

// fixClock makes click timing deterministic for the test.
func fixClock(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	timeNow = func() time.Time { return now }
	t.Cleanup(func() { timeNow = time.Now })
}

func TestDragSelectionCopies(t *testing.T) {
	tests := []struct {
		name           string
		c0, r0, c1, r1 int
		mods           fyne.KeyModifier
		want           string
	}{
		{"one row", 0, 0, 4, 0, 0, "hello"},
		{"backwards", 10, 0, 6, 0, 0, "world"},
		{"across rows", 6, 0, 5, 1, 0, "world\nsecond"},
		{"trailing blanks trimmed", 0, 1, 19, 1, 0, "second line"},
		{"wrapped rows joined", 0, 2, 9, 3, 0, "abcdefghijklmnopqrstuvwxyz0123"},
		{"block", 1, 0, 3, 1, fyne.KeyModifierAlt, "ell\neco"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 20, 5, Options{})
			h.output("hello world\r\nsecond line\r\nabcdefghijklmnopqrstuvwxyz0123")
			fyne.CurrentApp().Clipboard().SetContent("")
			h.drag(tc.c0, tc.r0, tc.c1, tc.r1, tc.mods)
			if got := clipboardText(); got != tc.want {
				t.Errorf("clipboard = %q, want %q", got, tc.want)
			}
			if got := h.v.SelectedText(); got != tc.want {
				t.Errorf("SelectedText = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestClickClearsSelection(t *testing.T) {
	fixClock(t)
	h := newHarness(t, 20, 5, Options{})
	h.output("hello world")
	h.drag(0, 0, 4, 0, 0)
	h.mouseDown(8, 2, desktop.MouseButtonPrimary, 0)
	h.mouseUp(8, 2, desktop.MouseButtonPrimary, 0)
	if got := h.v.SelectedText(); got != "" {
		t.Errorf("selection after a click = %q, want none", got)
	}
	h.v.Tapped(&fyne.PointEvent{Position: h.pos(8, 2)}) // the click's own tap: ignored

	// A tap without a MouseDown (touch, test driver) clears and focuses.
	h.drag(0, 0, 4, 0, 0)
	h.w.Canvas().Unfocus()
	test.Tap(h.v)
	if got := h.v.SelectedText(); got != "" {
		t.Errorf("selection after a tap = %q, want none", got)
	}
	if h.w.Canvas().Focused() != fyne.Focusable(h.v) {
		t.Error("tap did not focus the view")
	}
}

func TestDoubleAndTripleClick(t *testing.T) {
	fixClock(t)
	h := newHarness(t, 30, 5, Options{})
	h.output("hello wide/path.txt (x)\r\nnext")

	test.DoubleTap(h.v) // at (1, 1): the first cell
	if got := clipboardText(); got != "hello" {
		t.Errorf("double tap copied %q, want %q", got, "hello")
	}

	click := func(col int) {
		h.mouseDown(col, 0, desktop.MouseButtonPrimary, 0)
		h.mouseUp(col, 0, desktop.MouseButtonPrimary, 0)
	}
	click(9)
	click(9)
	if got := clipboardText(); got != "wide/path.txt" {
		t.Errorf("double click copied %q, want %q", got, "wide/path.txt")
	}
	click(9)
	if got := clipboardText(); got != "hello wide/path.txt (x)" {
		t.Errorf("triple click copied %q, want the line", got)
	}
	// A fourth click starts over.
	click(9)
	if got := h.v.SelectedText(); got != "" {
		t.Errorf("fourth click left selection %q", got)
	}
}

func TestSelectionSurvivesOutput(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	h.output("keep me\r\n")
	h.drag(0, 0, 6, 0, 0)
	for i := range 12 {
		h.p.write(fmt.Sprintf("out %d\r\n", i))
	}
	h.settle()
	// The selected line is in the scrollback now.
	if got := h.v.SelectedText(); got != "keep me" {
		t.Errorf("selection after output = %q, want %q", got, "keep me")
	}
	h.v.mu.Lock()
	sel := h.v.ov.Selection
	h.v.mu.Unlock()
	if sel {
		t.Error("selection scrolled off the screen is still drawn")
	}
}

func TestMouseReporting(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	h.output("\x1b[?1002h\x1b[?1006h")
	h.mouseDown(2, 3, desktop.MouseButtonPrimary, 0)
	h.v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: h.pos(3, 3)}})
	h.v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: h.pos(3, 3)}}) // same cell: no report
	h.v.DragEnd()                                                                    // releases: the MouseUp may go elsewhere
	h.mouseUp(3, 3, desktop.MouseButtonPrimary, 0)
	h.mouseDown(0, 0, desktop.MouseButtonSecondary, fyne.KeyModifierControl)
	h.mouseUp(0, 0, desktop.MouseButtonSecondary, fyne.KeyModifierControl)
	test.Scroll(h.w.Canvas(), h.pos(1, 1), 0, wheelNotch)
	test.Scroll(h.w.Canvas(), h.pos(1, 1), 0, -2*wheelNotch)
	want := "\x1b[<0;3;4M" + "\x1b[<32;4;4M" + "\x1b[<0;4;4m" +
		"\x1b[<18;1;1M" + "\x1b[<18;1;1m" +
		"\x1b[<64;1;1M" + "\x1b[<65;1;1M\x1b[<65;1;1M"
	if got := h.p.takeInput(); got != want {
		t.Errorf("reports:\n got %q\nwant %q", got, want)
	}
	if got := h.v.Offset(); got != 0 {
		t.Errorf("reported wheel scrolled the view to %d", got)
	}

	// Shift bypasses reporting and selects.
	h.output("\rshifted")
	h.drag(0, 0, 6, 0, fyne.KeyModifierShift)
	if got := h.p.takeInput(); got != "" {
		t.Errorf("shift drag reported %q", got)
	}
	if got := clipboardText(); got != "shifted" {
		t.Errorf("shift drag copied %q, want %q", got, "shifted")
	}
}

func TestMouseReportingX10Normal(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	h.output("\x1b[?1000h")
	h.mouseDown(0, 1, desktop.MouseButtonPrimary, 0)
	h.v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: h.pos(2, 1)}}) // 1000: no motion
	h.mouseUp(2, 1, desktop.MouseButtonPrimary, 0)
	h.output("\x1b[?1003h")
	h.v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(5, 2)}})
	want := "\x1b[M !\"" + "\x1b[M#\x23\"" + "\x1b[MC&#"
	if got := h.p.takeInput(); got != want {
		t.Errorf("reports:\n got %q\nwant %q", got, want)
	}
}

func TestWheelScrollAndAnchor(t *testing.T) {
	h := newHarness(t, 20, 5, Options{ScrollMultiplier: 2})
	for i := range 40 {
		h.p.write(fmt.Sprintf("line %d\r\n", i))
	}
	h.settle()
	top := func() string {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		return h.v.snap.RowText(0)
	}
	test.Scroll(h.w.Canvas(), h.pos(1, 1), 0, wheelNotch) // one notch up: 3 lines × 2
	if got := h.v.Offset(); got != 6 {
		t.Fatalf("offset after one notch = %d, want 6", got)
	}
	if got := top(); got != "line 30" {
		t.Fatalf("top row = %q, want %q", got, "line 30")
	}
	h.v.mu.Lock()
	ind := h.v.indText.Text
	h.v.mu.Unlock()
	if ind != "[6/36]" {
		t.Errorf("indicator = %q, want [6/36]", ind)
	}
	for i := range 5 {
		h.p.write(fmt.Sprintf("more %d\r\n", i))
	}
	h.settle()
	if got := h.v.Offset(); got != 11 {
		t.Errorf("offset after 5 new lines = %d, want 11", got)
	}
	if got := top(); got != "line 30" {
		t.Errorf("top row after output = %q, want it anchored at %q", got, "line 30")
	}
	test.Scroll(h.w.Canvas(), h.pos(1, 1), 0, -wheelNotch/2) // half a notch: 3 lines
	if got := h.v.Offset(); got != 8 {
		t.Errorf("offset after half a notch down = %d, want 8", got)
	}
	h.v.ScrollToBottom()
	if got := h.v.Offset(); got != 0 {
		t.Errorf("offset after ScrollToBottom = %d", got)
	}
	h.v.ScrollPages(-100)
	if got := h.v.Offset(); got != 41 {
		t.Errorf("offset after scrolling far = %d, want the history length 41", got)
	}
}

func TestAnchorWithFullScrollback(t *testing.T) {
	h := newHarnessSB(t, 20, 5, 50, Options{})
	for i := range 100 {
		h.p.write(fmt.Sprintf("line %d\r\n", i))
	}
	h.settle()
	h.v.ScrollPages(-2)
	h.v.mu.Lock()
	before := h.v.snap.RowText(0)
	h.v.mu.Unlock()
	for i := range 10 {
		h.p.write(fmt.Sprintf("more %d\r\n", i))
	}
	h.settle()
	h.v.mu.Lock()
	after := h.v.snap.RowText(0)
	h.v.mu.Unlock()
	if after != before {
		t.Errorf("top row moved from %q to %q while the scrollback evicted lines", before, after)
	}
}

func TestAltScreenWheelSendsArrows(t *testing.T) {
	h := newHarness(t, 20, 5, Options{})
	for range 20 {
		h.p.write("x\r\n")
	}
	h.output("\x1b[?1049h\x1b[?1h")
	test.Scroll(h.w.Canvas(), h.pos(1, 1), 0, wheelNotch)
	if got, want := h.p.takeInput(), "\x1bOA\x1bOA\x1bOA"; got != want {
		t.Errorf("wheel on the alternate screen sent %q, want %q", got, want)
	}
	if got := h.v.Offset(); got != 0 {
		t.Errorf("alternate screen scrolled to %d", got)
	}
}

func TestLinks(t *testing.T) {
	var opened []string
	open := func(u *url.URL) error { opened = append(opened, u.String()); return nil }
	h := newHarness(t, 40, 5, Options{OpenURL: open})
	h.output("\x1b]8;;https://example.com/osc\x1b\\click here\x1b]8;;\x1b\\ x\r\n" +
		"see https://go.dev/doc. ok\r\n" +
		"\x1b]8;;javascript:alert(1)\x1b\\evil\x1b]8;;\x1b\\")

	// Hover with the secondary modifier underlines and shows a hand.
	h.holdSecondary()
	h.v.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(8, 1)}, Modifier: secondaryMod})
	h.v.mu.Lock()
	link := h.v.ov.Link
	h.v.mu.Unlock()
	if link.Row != 1 || link.Col0 != 4 || link.Col1 != 22 {
		t.Errorf("hovered link span = %+v, want row 1 cols 4-22", link)
	}
	if h.v.Cursor() != desktop.PointerCursor {
		t.Error("cursor over a link is not the pointer")
	}
	h.v.MouseOut()
	if h.v.Cursor() != desktop.TextCursor {
		t.Error("cursor after leaving is not the text cursor")
	}

	h.mouseDown(3, 0, desktop.MouseButtonPrimary, secondaryMod)
	h.mouseDown(10, 1, desktop.MouseButtonPrimary, secondaryMod)
	h.mouseDown(1, 2, desktop.MouseButtonPrimary, secondaryMod)  // unsafe: refused
	h.mouseDown(12, 0, desktop.MouseButtonPrimary, secondaryMod) // no link
	h.mouseDown(5, 1, desktop.MouseButtonPrimary, 0)             // no modifier
	want := []string{"https://example.com/osc", "https://go.dev/doc"}
	if strings.Join(opened, " ") != strings.Join(want, " ") {
		t.Errorf("opened %q, want %q", opened, want)
	}
}

func TestDetectURLs(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"see https://example.com/a.", []string{"https://example.com/a"}},
		{"(https://x.org/y)", []string{"https://x.org/y"}},
		{"https://en.wikipedia.org/wiki/Foo_(bar)", []string{"https://en.wikipedia.org/wiki/Foo_(bar)"}},
		{"file:///tmp/x.txt, then", []string{"file:///tmp/x.txt"}},
		{"HTTP://EXAMPLE.COM/Q?a=1&b=2!", []string{"HTTP://EXAMPLE.COM/Q?a=1&b=2"}},
		{"a http://a.b c https://d.e/f;", []string{"http://a.b", "https://d.e/f"}},
		{`"https://q.uo/te"`, []string{"https://q.uo/te"}},
		{"<https://angle.io/x>", []string{"https://angle.io/x"}},
		{"javascript:alert(1)", nil},
		{"ftp://files.example.com/x", nil},
		{"http:// nothing", nil},
		{"nohttps://x.y", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, m := range detectURLs(tc.text) {
			got = append(got, tc.text[m.start:m.end])
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("detectURLs(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestSafeURL(t *testing.T) {
	tests := []struct {
		raw string
		ok  bool
	}{
		{"https://example.com", true},
		{"http://localhost:3000/x", true},
		{"file:///home/u/a.txt", true},
		{"file://localhost/home/u/a.txt", true},
		{"file://evil.example/share/a.txt", false},
		{"file://192.0.2.1/c$/x", false},
		{"mailto:a@b.c", true},
		{"javascript:alert(1)", false},
		{"data:text/html,hi", false},
		{"vbscript:x", false},
		{"https:///nohost", false},
		{"ssh://host", false},
		{"", false},
	}
	for _, tc := range tests {
		if _, ok := safeURL(tc.raw); ok != tc.ok {
			t.Errorf("safeURL(%q) ok = %v, want %v", tc.raw, ok, tc.ok)
		}
	}
}

func TestContextMenu(t *testing.T) {
	var appItem int
	h := newHarness(t, 20, 3, Options{Menu: func() []*fyne.MenuItem {
		return []*fyne.MenuItem{fyne.NewMenuItem("App Item", func() { appItem++ })}
	}})
	h.output("one\r\ntwo\r\nthree\r\nfour\r\n\x1b]2;garbled\x07five")
	overlay := func() fyne.CanvasObject { return h.w.Canvas().Overlays().Top() }
	labels := func(m *fyne.Menu) []string {
		var out []string
		for _, it := range m.Items {
			out = append(out, it.Label)
		}
		return out
	}
	item := func(label string) *fyne.MenuItem {
		t.Helper()
		for _, it := range h.v.contextMenu().Items {
			if it.Label == label {
				return it
			}
		}
		t.Fatalf("no %q in the context menu %q", label, labels(h.v.contextMenu()))
		return nil
	}

	// A right click opens the menu; the app's items come last.
	h.mouseDown(1, 1, desktop.MouseButtonSecondary, 0)
	if overlay() == nil {
		t.Fatal("a right click opened no menu")
	}
	h.w.Canvas().Overlays().Remove(h.w.Canvas().Overlays().Top())
	want := []string{"Copy", "Paste", "", "Find…", "Clear Scrollback", "Reset Terminal", "", "App Item"}
	if got := labels(h.v.contextMenu()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("menu items %q, want %q", got, want)
	}
	if !item("Copy").Disabled {
		t.Error("Copy is enabled without a selection")
	}
	item("App Item").Action()
	if appItem != 1 {
		t.Errorf("the app's item ran %d times, want 1", appItem)
	}

	// Clear Scrollback drops the history and shows the live screen.
	h.v.ScrollPages(-1)
	if h.v.Offset() == 0 || h.p.HistoryLen() == 0 {
		t.Fatalf("setup: offset %d, history %d; want both > 0", h.v.Offset(), h.p.HistoryLen())
	}
	item("Clear Scrollback").Action()
	if n := h.p.HistoryLen(); n != 0 {
		t.Errorf("history after Clear Scrollback = %d lines, want 0", n)
	}
	if o := h.v.Offset(); o != 0 {
		t.Errorf("offset after Clear Scrollback = %d, want 0", o)
	}
	if got := strings.Join(h.p.emu.ScreenLines(), "|"); got != "three|four|five" {
		t.Errorf("screen after Clear Scrollback = %q, want it unchanged", got)
	}

	// Reset Terminal blanks the screen and forgets the title and modes;
	// the program is told nothing.
	h.output("\x1b[?1h")
	h.p.takeInput()
	item("Reset Terminal").Action()
	if got := strings.TrimRight(strings.Join(h.p.emu.ScreenLines(), ""), " "); got != "" || h.p.emu.Title() != "" || h.p.Modes().AppCursor {
		t.Errorf("after Reset Terminal: screen %q, title %q, app cursor %v; want blank, none, off", got, h.p.emu.Title(), h.p.Modes().AppCursor)
	}
	if in := h.p.takeInput(); in != "" {
		t.Errorf("Reset Terminal sent %q to the program, want nothing", in)
	}

	// With mouse reporting on, the right button goes to the program;
	// Shift+right click still opens the menu.
	h.output("\x1b[?1000h\x1b[?1006h")
	h.mouseDown(1, 1, desktop.MouseButtonSecondary, 0)
	if overlay() != nil {
		t.Error("a reported right click opened the menu")
	}
	if in := h.p.takeInput(); in != "\x1b[<2;2;2M" {
		t.Errorf("reported right click sent %q, want %q", in, "\x1b[<2;2;2M")
	}
	h.mouseDown(1, 1, desktop.MouseButtonSecondary, fyne.KeyModifierShift)
	if overlay() == nil {
		t.Error("Shift+right click opened no menu while the program reports the mouse")
	}
	if in := h.p.takeInput(); in != "" {
		t.Errorf("Shift+right click sent %q to the program", in)
	}
}

// TestLinkTargetShownAndConfirmed (issue 25): hovering a link with the
// secondary modifier shows its target (escaped) before any click; an
// http(s) link opens on the click, a file link only once the user
// confirms it, and a file link to another host is no link at all.
func TestLinkTargetShownAndConfirmed(t *testing.T) {
	var opened []string
	var asked []string
	var pending func()
	h := newHarness(t, 60, 4, Options{
		OpenURL: func(u *url.URL) error { opened = append(opened, u.String()); return nil },
		ConfirmOpen: func(u *url.URL, open func()) {
			asked = append(asked, u.String())
			pending = open
		},
	})
	h.output("\x1b]8;;file:///etc/passwd\x1b\\README.md\x1b]8;;\x1b\\\r\n" +
		"\x1b]8;;file://evil.example/share/x\x1b\\remote\x1b]8;;\x1b\\\r\n" +
		"\x1b]8;;https://example.com/%E2%80%AEgpj.exe\x1b\\site\x1b]8;;\x1b\\")
	h.holdSecondary()
	indicator := func() string {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		if !h.v.indText.Visible() {
			return ""
		}
		return h.v.indText.Text
	}
	h.v.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(2, 0)}, Modifier: secondaryMod})
	if got := indicator(); got != "→ file:///etc/passwd" {
		t.Errorf("hovering the file link shows %q; want its target", got)
	}
	h.v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(2, 1)}, Modifier: secondaryMod})
	if got := indicator(); got != "" {
		t.Errorf("hovering a file link to another host shows %q; want no link", got)
	}
	h.v.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: h.pos(2, 2)}, Modifier: secondaryMod})
	if got := indicator(); got != `→ https://example.com/%E2%80%AEgpj.exe` {
		t.Errorf("hovering the https link shows %q", got)
	}
	h.v.MouseOut()
	if got := indicator(); got != "" {
		t.Errorf("after leaving, the indicator shows %q", got)
	}

	h.mouseDown(2, 1, desktop.MouseButtonPrimary, secondaryMod) // remote file: no link
	h.mouseDown(2, 2, desktop.MouseButtonPrimary, secondaryMod) // https: opens
	h.mouseDown(2, 0, desktop.MouseButtonPrimary, secondaryMod) // file: asks first
	if want := []string{"https://example.com/%E2%80%AEgpj.exe"}; strings.Join(opened, " ") != strings.Join(want, " ") {
		t.Errorf("opened %q before any confirmation; want %q", opened, want)
	}
	if want := []string{"file:///etc/passwd"}; strings.Join(asked, " ") != strings.Join(want, " ") || pending == nil {
		t.Fatalf("asked about %q; want %q", asked, want)
	}
	pending()
	if len(opened) != 2 || opened[1] != "file:///etc/passwd" {
		t.Errorf("after confirming, opened %q", opened)
	}
	if got := shortTarget("file:///a\x1b[2J\u202e" + strings.Repeat("x", 300)); strings.ContainsAny(got, "\x1b\u202e") || len([]rune(got)) != maxShownTarget {
		t.Errorf("shortTarget = %q (%d runes)", got, len([]rune(got)))
	}
}

// holdSecondary presses the secondary modifier (Ctrl, Cmd on macOS).
func (h *harness) holdSecondary() {
	h.v.KeyDown(&fyne.KeyEvent{Name: desktop.KeyControlLeft})
	if secondaryMod != fyne.KeyModifierControl {
		h.v.KeyDown(&fyne.KeyEvent{Name: desktop.KeySuperLeft})
	}
}
