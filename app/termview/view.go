package termview

import (
	"image"
	"image/color"
	"io"
	"math"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/internal/outline"
	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

// BlinkMode says when the cursor blinks. The zero value, [BlinkProgram],
// lets the program decide (DECSCUSR / DECSET 12), the "terminal
// controlled" setting.
type BlinkMode uint8

// The blink modes.
const (
	BlinkProgram BlinkMode = iota // blink when the program asks for a blinking cursor
	BlinkOn                       // always blink
	BlinkOff                      // never blink
)

// Options configure a [View]. Every field is optional; the zero value gives
// Fyne's monospace font at 13 pt, the dark palette, a scroll multiplier of
// 1, no application keybindings, links opened by the Fyne app, no probe and
// a program-controlled cursor blink.
type Options struct {
	// Fonts draws the cells. It must be built at the canvas scale
	// (FontConfig.Scale = the window canvas's Scale()), since the View
	// draws in device pixels; nil means the View builds its own from Fyne's
	// bundled monospace font at 13 pt and rebuilds it when the scale
	// changes. Share one FontSet between views of the same window.
	Fonts *render.FontSet
	// Palette colours the screen; the zero value means render.DarkPalette().
	Palette render.Palette
	// ScrollMultiplier scales wheel scrolling (3 lines per notch times
	// this); 0 means 1. Values are clamped to [0.1, 10].
	ScrollMultiplier float64
	// Keys sees every key press first (see [KeyHandler]); nil means none.
	Keys KeyHandler
	// OpenURL opens a link the user Ctrl+clicked (Cmd on macOS); nil means
	// fyne.CurrentApp().OpenURL. Only http, https, file (on this host) and
	// mailto links are ever passed, file and mailto ones only once the
	// user confirmed them. It runs on the UI goroutine.
	OpenURL func(*url.URL) error
	// ConfirmOpen asks the user whether to open a link that is not http or
	// https, showing its target, and calls open if they agree; nil means a
	// confirmation dialog on the View's window. It runs on the UI
	// goroutine.
	ConfirmOpen func(u *url.URL, open func())
	// OnFocus is called on the UI goroutine when the View gains keyboard
	// focus (the app marks the pane active); nil means nothing.
	OnFocus func()
	// Menu returns items the app adds to the View's context menu (split,
	// close, ...), shown below the View's own; nil means none. It is
	// called on the UI goroutine each time the menu opens.
	Menu func() []*fyne.MenuItem
	// OnInput is called on the UI goroutine at each key press and mouse
	// button press the View receives, before it handles them (the app
	// keeps its UI loop awake after input); nil means nothing.
	OnInput func()
	// Post runs work on the UI goroutine; nil means fyne.Do. The desktop
	// app passes one that drops the work once Fyne's loop has ended (when
	// fyne.Do would run it on the calling goroutine).
	Post func(func())
	// Probe, when non-nil, receives one "render-probe" line per second
	// while frames are drawn (the app sets it for PANEFLOW_RENDER_PROBE=1).
	// Writes happen on a timer goroutine, never concurrently with each
	// other for one View.
	Probe io.Writer
	// ProbeName names the pane in probe lines (pane=<ProbeName>); "" means "?".
	ProbeName string
	// PaintNow paints the window at once, on the UI goroutine, instead of
	// at the toolkit's next frame tick; nil means frames wait for the tick.
	// The View calls it after drawing the first output that follows input
	// (a key's echo), never for output that merely keeps coming, which
	// stays paced (render on input).
	PaintNow func()
	// PaintRegion, when not nil, puts each frame the View draws on screen
	// at once and alone, the echo's (before PaintNow) and those of output
	// that merely comes alike: the View has drawn r (pixels of img.Image,
	// in its coordinates) and not refreshed img. PaintRegion puts those
	// pixels on screen without repainting the rest of the window and
	// reports true, or does nothing and reports false (the toolkit offers
	// no way); the View then refreshes img, and calls PaintNow for an
	// echo. A pane flooding output thus paints only itself, so a key's
	// echo in another pane is not queued behind paints of the whole
	// window (issue 28). It runs on the UI goroutine.
	PaintRegion func(img *canvas.Image, r image.Rectangle) bool
	// Typing, when not nil, is shared by the Views of one window: while
	// keys are typed into one of them, the others' paced frames slow down
	// (see [Typing]); nil means each View paces on its own.
	Typing *Typing
	// CursorBlink says when the cursor blinks. Blinking runs only while
	// the View is focused and stops (cursor shown) after 10 s without
	// input.
	CursorBlink BlinkMode
	// CursorShape is the cursor drawn while the program has not chosen one
	// with DECSCUSR (the config's terminal.cursor_shape); the zero value,
	// terminal.CursorDefault, draws a block.
	CursorShape terminal.CursorShape
	// Inset is the gap, in window units, between each edge of the View
	// and its text, in the screen's background colour; 0 means none (the
	// text touches the edges). The broadcast stripe ([View.SetStripe],
	// StripeWidth wide) is drawn in the left inset: with an inset under
	// StripeWidth it covers the start of the first column.
	Inset float32
}

// Timing constants.
const (
	minFrameInterval = time.Second / 60       // frame pacing
	flashDuration    = 150 * time.Millisecond // visual bell
	blinkInterval    = 500 * time.Millisecond
	blinkIdleStop    = 10 * time.Second
	multiClickDelay  = 400 * time.Millisecond
)

// wheelNotch is the scroll delta Fyne's GLFW driver reports for one wheel
// notch (its scrollSpeed: 10 on macOS, 25 elsewhere).
var wheelNotch = func() float32 {
	if runtime.GOOS == "darwin" {
		return 10
	}
	return 25
}()

// syncHoldMax is the longest a DECSET 2026 update holds frames (a
// variable for tests).
var syncHoldMax = 150 * time.Millisecond

// View is a Fyne widget that shows one [Pane] and drives it: it draws the
// pane's screen through an app/render Renderer into one image, sends keys,
// text, pastes, focus changes and mouse reports to the program, and offers
// selection and copy, scrollback, find in pane, links, the visual bell and
// an attention ring. Create it with [New]; stop it with [View.Close].
//
// # Concurrency
//
// All of the View's state is owned by the Fyne UI goroutine: Fyne calls its
// event methods there, and the app calls its exported methods there. The
// only other goroutines are the View's watcher (which waits on
// [Pane.Watch]) and short-lived timers (bell, blink, sync hold, probe);
// they never touch the state directly but post work with fyne.Do. Because
// Fyne's test driver runs fyne.Do callbacks on the calling goroutine, every
// entry point additionally takes an internal mutex, so the View is also
// race-free under the test driver. Callbacks (Options.Keys, OnFocus,
// OpenURL) run without that mutex held and may call back into the View.
type View struct {
	widget.BaseWidget

	pane Pane
	opts Options

	// post runs a function on the UI goroutine (fyne.Do).
	post func(func())

	// Frame pacing, shared with the watcher goroutine: atomics and
	// channels, not guarded by mu.
	pending   atomic.Bool   // a frame is posted and has not started
	frameDone chan struct{} // a posted frame finished (buffered, 1)
	drawnGen  atomic.Uint64 // output generation of the last snapshot drawn
	lastFrame atomic.Int64  // unix nanos of the last frame start
	// inputAt is the unix nanos of the last input sent to the program;
	// output after it is drawn and painted at once (render on input).
	inputAt atomic.Int64
	// inputFrame says the pending frame draws output that followed input.
	inputFrame atomic.Bool
	stop       chan struct{} // closed by Close
	done       chan struct{} // closed when the watcher exits
	// hidden says the View is off screen (SetHidden): the watcher then
	// requests no frames; wake (buffered, 1) tells it the View is shown
	// again.
	hidden atomic.Bool
	wake   chan struct{}

	mu sync.Mutex // guards everything below; see the type doc

	closed bool

	// Drawing.
	rend     *render.Renderer
	fonts    *render.FontSet
	ownFonts bool    // fonts were built by the View (Options.Fonts nil)
	scale    float32 // canvas scale the buffer and own fonts were built for
	inset    int     // Options.Inset in device pixels, as last given to rend
	buf      *image.RGBA
	img      *canvas.Image
	ring     *outline.Outline
	stripe   *canvas.Rectangle // the broadcast group's colour at the left edge; hidden when none
	indBg    *canvas.Rectangle
	indText  *canvas.Text
	snap     terminal.Snapshot
	ov       render.Overlay
	matchBuf []render.Span
	// deferRefresh: drawLocked leaves img unrefreshed (a frame that tries
	// Options.PaintRegion); damage is what the last drawLocked drew.
	deferRefresh bool
	damage       image.Rectangle
	size         fyne.Size // widget size at the last layout
	cols         int       // grid the pane was last resized to
	rows         int
	// resizePending: cols×rows changed and the pane is to be resized
	// once v.mu is released (see unlockResize).
	resizePending bool

	// Scrollback: offset lines scrolled back, anchored on content.
	offset    int
	lastTotal int // dropped+history at the last anchoring
	histLen   int

	syncSince time.Time   // first held frame of a DECSET 2026 update
	syncTimer *time.Timer // forces a frame after syncHoldMax

	// Bell.
	bells      int
	flashUntil time.Time
	flashTimer *time.Timer

	// Cursor blink.
	focused    bool
	blinkOff   bool // blink phase: cursor hidden
	blinkTimer *time.Timer
	lastInput  time.Time

	attention bool

	// Keyboard.
	mods         fyne.KeyModifier // tracked from KeyDown/KeyUp
	lastKeyDown  fyne.KeyName
	suppressRune bool // Keys consumed a printable key: drop its TypedRune

	// Mouse.
	sel          selection
	pressed      terminal.MouseButton // button held, for reporting
	reporting    bool                 // the current press is reported to the program
	lastReport   render.Point         // last reported cell (motion dedupe)
	clicks       int
	lastClick    time.Time
	lastClickPos render.Point
	sawDown      bool // a MouseDown preceded the current Tapped/DoubleTapped
	selecting    bool // the left button is down for a selection
	dragMoved    bool
	wheelAcc     float32
	hover        render.Point
	hoverIn      bool
	link         render.Span
	linkURL      string

	// Find.
	find *findBar
	// copy is the keyboard copy mode, nil when off.
	copy *copyMode
	// mark is the line Reveal showed, highlighted until the next input.
	mark revealMark

	probe *probe
	// echo times keys to the screen (Options.Probe); nil without a probe.
	echo *echoProbe

	// gate holds the pane's output back while a drawn frame is painted,
	// when the pane supports it (outputGater).
	gate paintGate
}

var (
	_ fyne.Widget         = (*View)(nil)
	_ fyne.Focusable      = (*View)(nil)
	_ fyne.Tabbable       = (*View)(nil)
	_ fyne.Shortcutable   = (*View)(nil)
	_ desktop.Keyable     = (*View)(nil)
	_ desktop.Mouseable   = (*View)(nil)
	_ desktop.Hoverable   = (*View)(nil)
	_ desktop.Cursorable  = (*View)(nil)
	_ fyne.Draggable      = (*View)(nil)
	_ fyne.Scrollable     = (*View)(nil)
	_ fyne.Tappable       = (*View)(nil)
	_ fyne.DoubleTappable = (*View)(nil)
)

// New returns a View showing p and starts its watcher goroutine; call
// [View.Close] when the View is discarded. It must be called on the UI
// goroutine (or before the app runs).
func New(p Pane, o Options) *View {
	post := o.Post
	if post == nil {
		post = fyne.Do
	}
	return newView(p, o, post)
}

// newView is New with the function that runs work on the UI goroutine
// (tests record it instead).
func newView(p Pane, o Options, post func(func())) *View {
	if o.ScrollMultiplier == 0 {
		o.ScrollMultiplier = 1
	}
	o.ScrollMultiplier = min(max(o.ScrollMultiplier, 0.1), 10)
	if o.Palette == (render.Palette{}) {
		o.Palette = render.DarkPalette()
	}
	v := &View{
		pane:      p,
		opts:      o,
		post:      post,
		frameDone: make(chan struct{}, 1),
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		bells:     p.Bells(),
		scale:     1,
	}
	v.fonts = o.Fonts
	if v.fonts == nil {
		v.ownFonts = true
		v.fonts = defaultFonts(1)
	}
	v.rend = render.NewRenderer(v.fonts, o.Palette)
	v.img = canvas.NewImageFromImage(nil)
	v.img.FillMode = canvas.ImageFillStretch
	v.img.ScaleMode = canvas.ImageScalePixels
	v.ring = outline.New(2, color.NRGBA{R: 0xf5, G: 0xa5, B: 0x24, A: 0xff})
	v.ring.Hide()
	v.stripe = canvas.NewRectangle(color.Transparent)
	v.stripe.Hide()
	v.indBg = canvas.NewRectangle(color.Transparent)
	v.indText = canvas.NewText("", color.White)
	v.indText.TextStyle = fyne.TextStyle{Monospace: true}
	v.indText.TextSize = theme.CaptionTextSize()
	v.indBg.Hide()
	v.indText.Hide()
	v.find = newFindBar(v)
	if o.Probe != nil {
		v.probe = newProbe(o.Probe, o.ProbeName)
		v.echo = newEchoProbe(o.Probe, o.ProbeName)
	}
	if g, ok := p.(outputGater); ok {
		g.SetOutputGate(&v.gate)
	}
	v.ExtendBaseWidget(v)
	go v.watch()
	return v
}

// defaultFonts builds the View's own font set at canvas scale s.
func defaultFonts(s float32) *render.FontSet {
	c := render.DefaultFontConfig()
	c.Regular = theme.DefaultTextMonospaceFont().Content()
	c.Scale = float64(s)
	f, err := render.NewFontSet(c)
	if err != nil {
		// Fyne's bundled font always parses; anything else is a broken build.
		panic("termview: bundled monospace font: " + err.Error())
	}
	return f
}

// CreateRenderer implements fyne.Widget.
func (v *View) CreateRenderer() fyne.WidgetRenderer {
	return &viewRenderer{v: v}
}

// Close stops the View's watcher and timers and waits for the watcher to
// exit. The View draws nothing afterwards. Close is idempotent.
func (v *View) Close() {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.closed = true
	for _, t := range []*time.Timer{v.syncTimer, v.flashTimer, v.blinkTimer} {
		if t != nil {
			t.Stop()
		}
	}
	v.mu.Unlock()
	close(v.stop)
	<-v.done
	if g, ok := v.pane.(outputGater); ok {
		g.ClearOutputGate(&v.gate)
	}
	v.gate.stop()
	if v.probe != nil {
		v.probe.close()
	}
}

// SetHidden tells the View whether it is off screen (its pane is in a
// workspace not shown, or another pane is zoomed). A hidden View draws no
// frames: output only advances the pane; the View catches up with one
// frame when it is shown again. Safe from any goroutine.
func (v *View) SetHidden(hidden bool) {
	if v.hidden.Swap(hidden) == hidden || hidden {
		return
	}
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// SetFonts switches the font set (nil: the View's own default) and
// re-lays out the grid, resizing the pane when the cell count changes.
func (v *View) SetFonts(f *render.FontSet) {
	v.mu.Lock()
	v.ownFonts = f == nil
	if f == nil {
		f = defaultFonts(v.scale)
	}
	v.fonts = f
	v.rend.SetFontSet(f)
	v.layoutLocked(v.size)
	v.unlockResize()
}

// SetPalette switches colours and redraws.
func (v *View) SetPalette(p render.Palette) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.opts.Palette = p
	v.rend.SetPalette(p)
	v.styleIndicatorLocked()
	v.drawLocked()
}

// SetCursor changes the default cursor shape and the blink mode (a
// configuration reload) and redraws.
func (v *View) SetCursor(shape terminal.CursorShape, blink BlinkMode) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.opts.CursorShape, v.opts.CursorBlink = shape, blink
	v.drawLocked()
}

// SetScrollMultiplier changes how far one wheel notch scrolls (3 lines
// times m, clamped to 0.1–10; 0 means 1).
func (v *View) SetScrollMultiplier(m float64) {
	if m == 0 {
		m = 1
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.opts.ScrollMultiplier = min(max(m, 0.1), 10)
}

// SetAttention shows or hides the attention ring (an agent in the pane
// waits for input).
func (v *View) SetAttention(on bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.attention = on
	if on {
		v.ring.Show()
	} else {
		v.ring.Hide()
	}
}

// StripeWidth is the width of the broadcast group stripe, in window units.
const StripeWidth = 4

// SetStripe shows a stripe of colour c along the View's left edge (the
// pane's broadcast group), or hides it when c is nil.
func (v *View) SetStripe(c color.Color) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if c == nil {
		v.stripe.Hide()
		return
	}
	v.stripe.FillColor = c
	v.stripe.Show()
	v.stripe.Refresh()
}

// Cells reports the grid size the View last resized the pane to (0, 0
// before its first layout).
func (v *View) Cells() (cols, rows int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cols, v.rows
}

// ScrollPages scrolls the view by n pages: n < 0 up into the scrollback
// (Shift+PageUp is ScrollPages(-1)), n > 0 down towards the live screen.
// A page is the screen height minus one line. It does nothing on the
// alternate screen.
func (v *View) ScrollPages(n int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.scrollByLocked(-n * max(1, v.rows-1))
}

// ScrollToBottom shows the live screen.
func (v *View) ScrollToBottom() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.scrollByLocked(-v.offset)
}

// Offset reports how many lines the view is scrolled back (0: the live
// screen).
func (v *View) Offset() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.offset
}

// Copy copies the selection to the clipboard; it does nothing without one.
func (v *View) Copy() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.copyLocked()
}

// Paste sends the clipboard's text to the program as a paste (bracketed
// when the program enabled it) and scrolls to the live screen.
func (v *View) Paste() {
	cb := clipboard()
	if cb == nil {
		return
	}
	text := cb.Content()
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pasteLocked(text)
}

// SelectedText returns the selected text as Copy would put it on the
// clipboard ("" without a selection).
func (v *View) SelectedText() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.selectedTextLocked()
}

// Find opens the find bar and focuses its entry.
func (v *View) Find() {
	v.find.open()
}

// ClearScrollback drops the pane's scrollback ("clear scroll history") and
// shows the live screen.
func (v *View) ClearScrollback() {
	v.pane.ClearScrollback()
	v.afterWipe()
}

// ResetTerminal resets the pane's terminal to its power-on state (screen,
// scrollback, modes, title), for when a program left it garbled; the
// program keeps running and is not told.
func (v *View) ResetTerminal() {
	v.pane.Reset()
	v.afterWipe()
}

// afterWipe shows the live screen, without a selection, after the
// scrollback went away.
func (v *View) afterWipe() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.offset = 0
	v.copy = nil
	v.clearSelectionLocked()
	v.mark = revealMark{}
	if v.find.visible() {
		v.find.restartLocked()
	}
	v.drawLocked()
}

// contextMenu is the menu a right click opens: the View's own items, then
// the app's (Options.Menu).
func (v *View) contextMenu() *fyne.Menu {
	copyItem := fyne.NewMenuItem("Copy", v.Copy)
	copyItem.Disabled = v.SelectedText() == ""
	items := []*fyne.MenuItem{
		copyItem,
		fyne.NewMenuItem("Paste", v.Paste),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Find…", v.Find),
		fyne.NewMenuItem("Clear Scrollback", v.ClearScrollback),
		fyne.NewMenuItem("Reset Terminal", v.ResetTerminal),
	}
	if v.opts.Menu != nil {
		if more := v.opts.Menu(); len(more) > 0 {
			items = append(append(items, fyne.NewMenuItemSeparator()), more...)
		}
	}
	return fyne.NewMenu("", items...)
}

// showContextMenu opens the context menu at pos (absolute, in the canvas).
func (v *View) showContextMenu(pos fyne.Position) {
	if c := v.canvas(); c != nil {
		widget.ShowPopUpMenuAtPosition(v.contextMenu(), c, pos)
	}
}

// canvas returns the canvas showing v, nil when it is not shown (or there
// is no app).
func (v *View) canvas() fyne.Canvas {
	a := fyne.CurrentApp()
	if a == nil {
		return nil
	}
	return a.Driver().CanvasForObject(v)
}

// clipboard returns the app's clipboard, or nil without an app.
func clipboard() fyne.Clipboard {
	a := fyne.CurrentApp()
	if a == nil {
		return nil
	}
	return a.Clipboard()
}

// canvasScale returns the scale of the canvas showing v, 1 when it is not
// shown yet.
func (v *View) canvasScale() float32 {
	if c := v.canvas(); c != nil && c.Scale() > 0 {
		return c.Scale()
	}
	return 1
}

// layoutLocked sizes the pixel buffer for widget size s at the canvas
// scale, resizes the pane when the grid changes, places the overlays and
// redraws.
func (v *View) layoutLocked(s fyne.Size) {
	v.size = s
	sc := v.canvasScale()
	if sc != v.scale {
		v.scale = sc
		if v.ownFonts {
			v.fonts = defaultFonts(sc)
			v.rend.SetFontSet(v.fonts)
		}
	}
	if in := v.insetPx(); in != v.inset {
		v.inset = in
		v.rend.SetInset(in)
	}
	w := int(math.Round(float64(s.Width * sc)))
	h := int(math.Round(float64(s.Height * sc)))
	if w <= 0 || h <= 0 {
		return
	}
	if v.buf == nil || v.buf.Rect.Dx() != w || v.buf.Rect.Dy() != h {
		v.buf = image.NewRGBA(image.Rect(0, 0, w, h))
		v.img.Image = v.buf
		v.rend.Invalidate()
	}
	v.img.Resize(s)
	v.img.Move(fyne.Position{})
	v.ring.Resize(s)
	v.ring.Move(fyne.Position{})
	v.stripe.Resize(fyne.NewSize(StripeWidth, s.Height))
	v.stripe.Move(fyne.Position{})
	cols, rows := v.rend.Grid(w, h)
	if cols != v.cols || rows != v.rows {
		v.cols, v.rows = cols, rows
		v.resizePending = true
		// The emulator reflows its lines: positions found before no
		// longer point at the same text.
		v.sel = selection{}
		v.selecting = false
		if v.find.visible() && v.find.query != "" {
			v.find.searchLocked()
			v.find.current = min(v.find.current, len(v.find.matches)-1)
		}
	}
	v.placeOverlaysLocked()
	v.drawLocked()
}

// insetPx is Options.Inset in device pixels at the View's scale.
func (v *View) insetPx() int {
	return int(math.Round(float64(max(v.opts.Inset, 0) * v.scale)))
}

// unlockResize releases v.mu and then resizes the pane if the last
// layout changed the grid. The pane is resized without the mutex held
// because an implementation may publish events that reach back into the
// View synchronously (fyne.Do runs inline under the test driver and
// before the app runs); the View redraws at the new size afterwards.
func (v *View) unlockResize() {
	if !v.resizePending || v.closed {
		v.mu.Unlock()
		return
	}
	v.resizePending = false
	cols, rows := v.cols, v.rows
	v.mu.Unlock()
	_ = v.pane.Resize(cols, rows) // a failing PTY resize leaves the old size; nothing to show
	v.mu.Lock()
	v.drawLocked()
	v.mu.Unlock()
}

// placeOverlaysLocked positions the find bar and the scroll indicator at
// the top right.
func (v *View) placeOverlaysLocked() {
	pad := theme.Padding()
	y := pad
	if v.find.visible() {
		ms := v.find.box.MinSize()
		ms.Width = max(min(max(ms.Width, 320), v.size.Width-2*pad), 0)
		v.find.box.Resize(ms)
		v.find.box.Move(fyne.NewPos(v.size.Width-ms.Width-pad, pad))
		y += ms.Height + pad
	}
	ts := v.indText.MinSize()
	v.indText.Resize(ts)
	v.indText.Move(fyne.NewPos(v.size.Width-ts.Width-2*pad, y))
	v.indBg.Resize(ts.AddWidthHeight(2*pad, 0))
	v.indBg.Move(fyne.NewPos(v.size.Width-ts.Width-3*pad, y))
}

// styleIndicatorLocked colours the scroll indicator from the palette.
func (v *View) styleIndicatorLocked() {
	p := v.opts.Palette
	v.indText.Color = p.Background
	fg := p.Foreground
	fg.A = 0xd0
	v.indBg.FillColor = fg
}

// viewRenderer lays out the View's canvas objects.
type viewRenderer struct{ v *View }

func (r *viewRenderer) Layout(s fyne.Size) {
	r.v.mu.Lock()
	r.v.styleIndicatorLocked()
	r.v.layoutLocked(s)
	r.v.unlockResize()
}

func (r *viewRenderer) MinSize() fyne.Size {
	r.v.mu.Lock()
	defer r.v.mu.Unlock()
	cw, ch := r.v.fonts.CellSize()
	in := 2 * r.v.opts.Inset
	return fyne.NewSize(float32(cw*2)/r.v.scale+in, float32(ch)/r.v.scale+in)
}

// Refresh redraws everything (after a theme or scale change).
func (r *viewRenderer) Refresh() {
	r.v.mu.Lock()
	if r.v.canvasScale() != r.v.scale {
		r.v.layoutLocked(r.v.size)
		r.v.unlockResize()
		return
	}
	r.v.rend.Invalidate()
	r.v.drawLocked()
	r.v.mu.Unlock()
}

func (r *viewRenderer) Objects() []fyne.CanvasObject {
	if h := r.v.gate.painting(time.Now()); h != nil {
		// Fyne walks the objects on its way to painting the window; a
		// function posted now runs after that paint.
		r.v.post(func() { r.v.gate.release(h) })
	}
	if r.v.echo.painting() {
		r.v.post(r.v.echo.painted)
	}
	return []fyne.CanvasObject{r.v.img, r.v.indBg, r.v.indText, r.v.find.box, r.v.ring, r.v.stripe}
}

func (r *viewRenderer) Destroy() {}

// Hidden reports what SetHidden last said.
func (v *View) Hidden() bool { return v.hidden.Load() }
