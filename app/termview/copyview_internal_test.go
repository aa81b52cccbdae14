package termview

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// vi presses keys as the GLFW driver delivers them: characters (capitals
// and symbols with Shift), and <C-x> for Ctrl chords, <Esc> and <CR>.
func vi(v *View, s string) {
	for _, k := range keys(s) {
		switch {
		case k.ctrl:
			press(v, k.name, fyne.KeyModifierControl, 0)
		case k.name != "":
			press(v, k.name, 0, 0)
		case unicode.IsUpper(k.r) || strings.ContainsRune("$^?", k.r):
			press(v, fyne.KeyName(string(unicode.ToUpper(k.r))), fyne.KeyModifierShift, k.r)
		case k.r == ' ':
			press(v, fyne.KeySpace, 0, ' ')
		default:
			press(v, fyne.KeyName(string(unicode.ToUpper(k.r))), 0, k.r)
		}
	}
}

// copyCursor returns the copy cursor's cell in the drawn snapshot.
func (h *harness) copyCursor() (x, y int, visible bool) {
	h.v.mu.Lock()
	defer h.v.mu.Unlock()
	c := h.v.snap.Cursor
	return c.X, c.Y, c.Visible && !h.v.ov.CursorOff
}

func (h *harness) indicator() string {
	h.v.mu.Lock()
	defer h.v.mu.Unlock()
	if !h.v.indText.Visible() {
		return ""
	}
	return h.v.indText.Text
}

// newCopyHarness is a 20×4 View whose pane printed "line 00 word" to
// "line 29 word" and a "$ " prompt, with an empty clipboard.
func newCopyHarness(t *testing.T) *harness {
	h := newHarness(t, 20, 4, Options{})
	for i := range 30 {
		h.p.write(fmt.Sprintf("line %02d word\r\n", i))
	}
	h.output("$ ")
	fyne.CurrentApp().Clipboard().SetContent("")
	return h
}

func TestCopyModeView(t *testing.T) {
	h := newCopyHarness(t)

	h.v.EnterCopyMode()
	if !h.v.CopyMode() {
		t.Fatal("not in copy mode")
	}
	if x, y, ok := h.copyCursor(); x != 2 || y != 3 || !ok {
		t.Errorf("copy cursor at %d,%d shown %v, want the program's cursor 2,3 shown", x, y, ok)
	}
	if got := h.indicator(); got != "COPY [0/27]" {
		t.Errorf("indicator = %q, want COPY [0/27]", got)
	}

	// Up past the top scrolls into the scrollback; keys never reach the
	// program.
	vi(h.v, "5k")
	if got := h.v.Offset(); got != 2 {
		t.Errorf("offset after 5k = %d, want 2", got)
	}
	if x, y, ok := h.copyCursor(); x != 2 || y != 0 || !ok {
		t.Errorf("copy cursor at %d,%d shown %v, want 2,0", x, y, ok)
	}
	// Output does not move the view while in copy mode.
	h.output("\r\nmore\r\n")
	if got := h.v.Offset(); got != 4 {
		t.Errorf("offset after 2 new lines = %d, want 4 (view held)", got)
	}
	vi(h.v, "0wvey")
	if got := clipboardText(); got != "25" {
		t.Errorf("clipboard = %q, want 25 (line 25's second word)", got)
	}
	if h.v.CopyMode() || h.v.Offset() != 0 {
		t.Errorf("after y: copy mode %v offset %d, want left and the live screen", h.v.CopyMode(), h.v.Offset())
	}
	if in := h.p.takeInput(); in != "" {
		t.Errorf("program got %q from copy-mode keys", in)
	}

	// Line and block selections.
	h.v.EnterCopyMode()
	vi(h.v, "kkkVky")
	if got, want := clipboardText(), "line 28 word\nline 29 word"; got != want {
		t.Errorf("V yank = %q, want %q", got, want)
	}
	h.v.EnterCopyMode()
	vi(h.v, "kkk0w<C-v>kly")
	if got, want := clipboardText(), "28\n29"; got != want {
		t.Errorf("Ctrl+V yank = %q, want %q", got, want)
	}
	if in := h.p.takeInput(); in != "" {
		t.Errorf("program got %q (Ctrl+V is paste outside copy mode)", in)
	}

	// q and Escape leave without copying.
	for _, leave := range []string{"q", "<Esc>"} {
		h.v.EnterCopyMode()
		vi(h.v, "kv"+leave)
		if h.v.CopyMode() || h.v.SelectedText() != "" {
			t.Errorf("%s: copy mode %v selection %q, want neither", leave, h.v.CopyMode(), h.v.SelectedText())
		}
	}
	if h.indicator() != "" {
		t.Errorf("indicator %q shown after leaving", h.indicator())
	}

	// Entered on the live screen, the view holds still too.
	h.v.EnterCopyMode()
	_, y0, _ := h.copyCursor()
	h.output("\r\nnew")
	if got := h.v.Offset(); got != 1 {
		t.Errorf("offset after a line of output = %d, want 1 (view held)", got)
	}
	if _, y, ok := h.copyCursor(); y != y0 || !ok {
		t.Errorf("copy cursor row %d shown %v, want %d: it moved with the output", y, ok, y0)
	}
	vi(h.v, "q")
}

func TestCopyModeSearch(t *testing.T) {
	h := newCopyHarness(t)

	h.v.EnterCopyMode()
	vi(h.v, "?")
	if !h.v.find.visible() || h.w.Canvas().Focused() != fyne.Focusable(h.v.find.entry) {
		t.Fatal("? did not open the find bar with its entry focused")
	}
	test.Type(h.v.find.entry, "line 1")
	h.v.find.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if h.w.Canvas().Focused() != fyne.Focusable(h.v) {
		t.Fatal("Enter did not give the keyboard back to the view")
	}
	if !h.v.CopyMode() {
		t.Fatal("the search left copy mode")
	}
	// Backwards from the prompt: line 19 first, then n goes on up.
	at := func() string {
		h.v.mu.Lock()
		defer h.v.mu.Unlock()
		c := h.v.copy.cur
		return strings.Join(h.v.pane.Lines(c.line-h.v.lastTotal+h.v.histLen, c.line-h.v.lastTotal+h.v.histLen+1), "") + fmt.Sprintf("@%d", c.col)
	}
	if got := at(); got != "line 19 word@0" {
		t.Errorf("after ?line 1: cursor on %q, want line 19 word@0", got)
	}
	vi(h.v, "nn")
	if got := at(); got != "line 17 word@0" {
		t.Errorf("after nn: cursor on %q, want line 17 word@0", got)
	}
	vi(h.v, "N")
	if got := at(); got != "line 18 word@0" {
		t.Errorf("after N: cursor on %q, want line 18 word@0", got)
	}
	if got := h.indicator(); !strings.HasPrefix(got, "COPY [") {
		t.Errorf("indicator = %q, want COPY [..]", got)
	}
	vi(h.v, "v$y")
	if got := clipboardText(); got != "line 18 word" {
		t.Errorf("clipboard = %q, want line 18 word", got)
	}

	// / searches forward from the cursor and wraps.
	h.v.EnterCopyMode()
	vi(h.v, "g/")
	test.Type(h.v.find.entry, "word")
	h.v.find.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if got := at(); !strings.HasSuffix(got, " word@8") {
		t.Errorf("after g/word: cursor on %q, want the first line's word at 8", got)
	}
	vi(h.v, "q")
}
