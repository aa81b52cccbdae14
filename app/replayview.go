package app

import (
	"context"
	"fmt"
	"image/color"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// replayMark is a match to highlight in the replay: spans ([start, end)
// byte offsets) of row row of screen screen.
type replayMark struct {
	screen uint64
	row    int
	spans  [][2]int
}

// replayView is the open replay of a pane's screen history: the screens
// full-screen programs showed in it (surface.screens), one at a time,
// read-only, with Previous and Next (Left and Right, PageUp and PageDown)
// stepping through them in the order they were shown. Each is labelled
// with when it was shown and the agent turn it was shown in
// (ai.history). A search match in a history screen opens it at that
// screen with the match highlighted. It is a panel: screens are read on
// goroutines of their own (host.goCall), cancelled when the view is
// dismissed; its widgets are used holding the shell's lock (host.guard,
// host.do).
type replayView struct {
	widget.BaseWidget
	host    panelHost
	pane    uint64
	name    string
	screens []proto.HeldScreen // listed, without text; nil until read
	held    proto.SurfaceScreensResult
	turns   []proto.AITurn
	texts   map[uint64]string // the screens read so far, by number
	at      int               // index in screens of the one shown
	mark    *replayMark
	seq     uint64 // the newest read; older ones are dropped

	header *widget.Label
	grid   *widget.TextGrid
	scroll *container.Scroll
	prev   *widget.Button
	next   *widget.Button
	keys   *keySink
	body   fyne.CanvasObject
	calls
}

var _ panel = (*replayView)(nil)

// replaySize is the replay view's size.
var replaySize = fyne.NewSize(980, 680)

// replayHint is the keys line of the replay view. The arrows are in
// the theme's symbol font only, so no space may follow one: a space
// stays in the run of the rune before it, and the symbol font has no
// space glyph ("←/→ step" drew a missing-glyph box after →).
const replayHint = "Step: ←/→, Escape closes"

// newReplayView builds the replay of pane id (named name) over h, at
// screen (0: the newest), highlighting mark when it is not nil, and
// starts reading the screens. The caller holds the shell's lock.
func newReplayView(h panelHost, id uint64, name string, screen uint64, mark *replayMark) *replayView {
	v := &replayView{host: h, pane: id, name: name, mark: mark, texts: map[uint64]string{}, calls: newCalls()}
	v.ExtendBaseWidget(v)
	ctx := v.ctx
	v.header = widget.NewLabel("reading the screens of pane " + vis.String(name) + "…")
	v.header.Wrapping = fyne.TextWrapWord
	v.grid = widget.NewTextGrid()
	v.grid.Scroll = fyne.ScrollNone
	v.scroll = container.NewScroll(v.grid)
	v.prev = widget.NewButtonWithIcon("Previous", theme.NavigateBackIcon(), func() { h.guard(func() { v.step(-1) }) })
	v.next = widget.NewButtonWithIcon("Next", theme.NavigateNextIcon(), func() { h.guard(func() { v.step(1) }) })
	v.next.IconPlacement = widget.ButtonIconTrailingText
	v.prev.Disable()
	v.next.Disable()
	v.keys = newKeySink(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyLeft, fyne.KeyPageUp, fyne.KeyUp:
			h.guard(func() { v.step(-1) })
		case fyne.KeyRight, fyne.KeyPageDown, fyne.KeyDown:
			h.guard(func() { v.step(1) })
		case fyne.KeyHome:
			h.guard(func() { v.step(-len(v.screens)) })
		case fyne.KeyEnd:
			h.guard(func() { v.step(len(v.screens)) })
		case fyne.KeyEscape:
			h.closePanel(v)
		}
	})
	title := widget.NewLabelWithStyle("Replay: pane "+vis.String(name), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	hint := canvas.NewText(replayHint, theme.Color(theme.ColorNamePlaceHolder))
	hint.TextSize = nameSize
	top := container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(hint, v.keys), title), v.header)
	bottom := container.NewHBox(v.prev, layoutSpacer(), v.next)
	v.body = container.NewBorder(top, bottom, nil, nil, v.scroll)
	cl, lid := h.paneClient(id)
	h.goCall(func() {
		list, err := cl.SurfaceScreens(ctx, proto.SurfaceScreensParams{Target: proto.SurfaceTarget(lid)})
		if err != nil {
			v.failed(err)
			return
		}
		// The turns only label the screens: without them it still replays.
		hist, _ := cl.AIHistory(ctx, proto.AIHistoryParams{SurfaceID: lid})
		at := len(list.Screens) - 1
		for i, hs := range list.Screens {
			if hs.Screen == screen {
				at = i
			}
		}
		var text string
		if at >= 0 {
			if text, err = readScreen(ctx, cl, lid, list.Screens[at].Screen); err != nil {
				v.failed(err)
				return
			}
		}
		h.do(func() {
			if !h.shown(v) {
				return
			}
			v.held, v.screens, v.turns, v.at = list, list.Screens, hist.Turns, at
			if at >= 0 {
				v.texts[list.Screens[at].Screen] = text
			}
			v.show()
		})
	})
	return v
}

// CreateRenderer draws the view.
func (v *replayView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.body) }

// focusTarget is the invisible widget taking the view's keys.
func (v *replayView) focusTarget() fyne.Focusable { return v.keys }

// readScreen reads screen n of pane id (as cl's server knows it) with
// its text.
func readScreen(ctx context.Context, cl proto.Client, id, n uint64) (string, error) {
	text := true
	res, err := cl.SurfaceScreens(ctx, proto.SurfaceScreensParams{Target: proto.SurfaceTarget(id), Screen: &n, Text: &text})
	if err != nil {
		return "", err
	}
	if len(res.Screens) != 1 || res.Screens[0].Text == nil {
		return "", fmt.Errorf("screen %d of pane %d came back without its text", n, id)
	}
	return *res.Screens[0].Text, nil
}

// failed shows a failed read (a closed view shows nothing).
func (v *replayView) failed(err error) {
	if v.ctx.Err() != nil {
		return
	}
	v.host.do(func() {
		if v.host.shown(v) {
			v.header.SetText("pane " + vis.String(v.name) + ": " + err.Error())
		}
	})
}

// step shows the screen d places later (earlier when d < 0), stopping
// at the ends; a screen not read yet is read first. The caller holds the
// shell's lock.
func (v *replayView) step(d int) {
	if !v.host.shown(v) || len(v.screens) == 0 {
		return
	}
	at := min(max(v.at+d, 0), len(v.screens)-1)
	if at == v.at {
		return
	}
	n := v.screens[at].Screen
	if _, ok := v.texts[n]; ok {
		v.at = at
		v.show()
		return
	}
	v.seq++
	seq := v.seq
	cl, lid := v.host.paneClient(v.pane)
	v.host.goCall(func() {
		text, err := readScreen(v.ctx, cl, lid, n)
		if err != nil {
			v.failed(err)
			return
		}
		v.host.do(func() {
			if v.host.shown(v) && v.seq == seq {
				v.texts[n] = text
				v.at = at
				v.show()
			}
		})
	})
}

// show shows screen v.at with its label, and the mark when it is on it.
// The caller holds the shell's lock.
func (v *replayView) show() {
	if len(v.screens) == 0 {
		v.header.SetText(fmt.Sprintf("Pane %s holds no screens of full-screen programs (an agent's or an editor's full screen is kept once it settles).", vis.String(v.name)))
		v.grid.SetText("")
		return
	}
	hs := v.screens[v.at]
	v.header.SetText(replayLabel(hs, v.at, len(v.screens), v.held.Dropped, v.turns))
	rows := strings.Split(v.texts[hs.Screen], "\n")
	for i, r := range rows {
		rows[i] = printable(r)
	}
	v.grid.SetText(strings.Join(rows, "\n"))
	if m := v.mark; m != nil && m.screen == hs.Screen && m.row >= 0 && m.row < len(rows) {
		raw := strings.Split(v.texts[hs.Screen], "\n")[m.row]
		hl := &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameForegroundOnPrimary), BGColor: theme.Color(theme.ColorNamePrimary)}
		for _, sp := range m.spans {
			if sp[0] < 0 || sp[1] > len(raw) || sp[0] >= sp[1] {
				continue
			}
			c0 := utf8.RuneCountInString(raw[:sp[0]])
			c1 := utf8.RuneCountInString(raw[:sp[1]])
			v.grid.SetStyleRange(m.row, c0, m.row, c1-1, hl)
		}
		v.grid.Refresh()
		// The marked row in view, a few rows below the top when it can.
		y := v.grid.PositionForCursorLocation(max(m.row-3, 0), 0).Y
		v.scroll.ScrollToOffset(fyne.NewPos(0, y))
	} else {
		v.scroll.ScrollToTop()
	}
	if v.at > 0 {
		v.prev.Enable()
	} else {
		v.prev.Disable()
	}
	if v.at < len(v.screens)-1 {
		v.next.Enable()
	} else {
		v.next.Disable()
	}
}

// replayLabel is the header of screen hs, at index at of n held screens.
func replayLabel(hs proto.HeldScreen, at, n int, dropped uint64, turns []proto.AITurn) string {
	shown := hs.FirstShown
	if t, err := time.Parse(time.RFC3339Nano, hs.FirstShown); err == nil {
		shown = t.Local().Format("15:04:05")
	}
	s := fmt.Sprintf("Screen %d (%d of %d held", hs.Screen, at+1, n)
	if dropped > 0 {
		s += fmt.Sprintf(", %d older dropped", dropped)
	}
	s += fmt.Sprintf(") · first shown %s · shown %d×", shown, hs.Seen)
	if t, ok := proto.TurnShownIn(hs.FirstShown, turns); ok {
		s += fmt.Sprintf(" · turn %d (%s)", t.Turn, vis.String(t.Tool))
	}
	return s
}

// printable replaces each control character of s (screen text is
// terminal output, untrusted) with U+FFFD, one rune for one, so columns
// stay where they were.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

// keySink is an invisible focusable widget that hands the keys typed to
// it to onKey (on the UI goroutine, without the shell's lock): the
// keyboard of a view with no text field.
type keySink struct {
	widget.BaseWidget
	onKey func(*fyne.KeyEvent)
}

var _ fyne.Focusable = (*keySink)(nil)

func newKeySink(onKey func(*fyne.KeyEvent)) *keySink {
	k := &keySink{onKey: onKey}
	k.ExtendBaseWidget(k)
	return k
}

// CreateRenderer draws nothing.
func (k *keySink) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// FocusGained does nothing.
func (k *keySink) FocusGained() {}

// FocusLost does nothing.
func (k *keySink) FocusLost() {}

// TypedRune ignores text.
func (k *keySink) TypedRune(rune) {}

// TypedKey hands the key to onKey.
func (k *keySink) TypedKey(ev *fyne.KeyEvent) { k.onKey(ev) }
