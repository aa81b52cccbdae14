package keyecho

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// Keysyms of the keys [Conn.Type] and [Conn.Chord] press by name.
const (
	KeyReturn    = 0xff0d
	KeyBackSpace = 0xff08
	KeyTab       = 0xff09
	KeyEscape    = 0xff1b
	keyShiftL    = 0xffe1
	keyControlL  = 0xffe3
)

// Window is an X window id.
type Window = xproto.Window

// event is one event or error from the server, stamped when the reader
// received it.
type event struct {
	ev  xgb.Event
	err xgb.Error
	at  time.Time
}

// keyLoc is where a keysym is on the keyboard: its keycode and whether
// Shift selects it.
type keyLoc struct {
	code  xproto.Keycode
	shift bool
}

// Conn is a connection to an X server with the XTest and DAMAGE
// extensions. Make one with [Dial]; see the package doc for its
// concurrency rules.
type Conn struct {
	x      *xgb.Conn
	root   xproto.Window
	self   xproto.Window // an unmapped window of ours: marks go to it
	keys   map[xproto.Keysym]keyLoc
	events chan event
	held   []event // read from events but not yet consumed, in order
	marks  uint32
}

// xgb logs the absence of an ~/.Xauthority (the tests' servers need
// none) and lost connections, which Dial and Key return as errors anyway.
func init() { xgb.Logger.SetOutput(io.Discard) }

// Dial connects to display (":N"; "" means $DISPLAY) and checks that the
// server has XTest and DAMAGE.
func Dial(display string) (*Conn, error) {
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("keyecho: connect to %q: %w", display, err)
	}
	c := &Conn{x: x, events: make(chan event, 4096)}
	if err := c.init(); err != nil {
		x.Close()
		return nil, err
	}
	go c.read()
	return c, nil
}

func (c *Conn) init() error {
	if err := xtest.Init(c.x); err != nil {
		return fmt.Errorf("keyecho: the X server has no XTEST: %w", err)
	}
	if err := damage.Init(c.x); err != nil {
		return fmt.Errorf("keyecho: the X server has no DAMAGE: %w", err)
	}
	if _, err := damage.QueryVersion(c.x, 1, 1).Reply(); err != nil {
		return fmt.Errorf("keyecho: DAMAGE version: %w", err)
	}
	setup := xproto.Setup(c.x)
	c.root = setup.DefaultScreen(c.x).Root
	self, err := xproto.NewWindowId(c.x)
	if err != nil {
		return fmt.Errorf("keyecho: %w", err)
	}
	if err := xproto.CreateWindowChecked(c.x, 0, self, c.root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, 0, nil).Check(); err != nil {
		return fmt.Errorf("keyecho: create window: %w", err)
	}
	c.self = self
	return c.loadKeymap(setup)
}

// loadKeymap finds, for every keysym on the keyboard's first two columns,
// the keycode that types it (Shift for the second column).
func (c *Conn) loadKeymap(setup *xproto.SetupInfo) error {
	first, n := setup.MinKeycode, int(setup.MaxKeycode)-int(setup.MinKeycode)+1
	m, err := xproto.GetKeyboardMapping(c.x, first, byte(n)).Reply()
	if err != nil {
		return fmt.Errorf("keyecho: keyboard mapping: %w", err)
	}
	per := int(m.KeysymsPerKeycode)
	c.keys = map[xproto.Keysym]keyLoc{}
	for col := range min(per, 2) {
		for i := range n {
			ks := m.Keysyms[i*per+col]
			if _, ok := c.keys[ks]; ks != 0 && !ok {
				c.keys[ks] = keyLoc{code: first + xproto.Keycode(i), shift: col == 1}
			}
		}
	}
	for _, ks := range []xproto.Keysym{keyShiftL, keyControlL, KeyReturn} {
		if _, ok := c.keys[ks]; !ok {
			return fmt.Errorf("keyecho: the keyboard has no keysym %#x", ks)
		}
	}
	return nil
}

// read forwards the server's events, stamped, until the connection ends.
func (c *Conn) read() {
	defer close(c.events)
	for {
		ev, err := c.x.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		c.events <- event{ev: ev, err: err, at: time.Now()}
	}
}

// Close ends the connection.
func (c *Conn) Close() error {
	c.x.Close()
	return nil
}

// next returns the next event, waiting until deadline; ok is false when
// the deadline passed or the connection ended.
func (c *Conn) next(deadline time.Time) (event, bool) {
	if len(c.held) > 0 {
		e := c.held[0]
		c.held = c.held[1:]
		return e, true
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case e, ok := <-c.events:
		return e, ok
	case <-t.C:
		return event{}, false
	}
}

// mark sends an event to the Conn's own window and returns its number:
// once it is read back, every event the server generated before it has
// been read too.
func (c *Conn) mark() uint32 {
	c.marks++
	ev := xproto.ClientMessageEvent{
		Format: 32, Window: c.self, Type: xproto.AtomString,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{c.marks, 0, 0, 0, 0}),
	}
	xproto.SendEvent(c.x, false, c.self, 0, string(ev.Bytes()))
	return c.marks
}

// isMark reports whether e is mark n.
func (c *Conn) isMark(e event, n uint32) bool {
	m, ok := e.ev.(xproto.ClientMessageEvent)
	return ok && m.Window == c.self && m.Data.Data32[0] == n
}

// FindWindow returns the largest mapped top-level window whose
// _NET_WM_PID is pid (GLFW, winit and kitty set it), waiting up to timeout
// for one to appear.
func (c *Conn) FindWindow(pid int, timeout time.Duration) (Window, error) {
	atom, err := xproto.InternAtom(c.x, false, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply()
	if err != nil {
		return 0, fmt.Errorf("keyecho: %w", err)
	}
	deadline := time.Now().Add(timeout)
	for {
		tree, err := xproto.QueryTree(c.x, c.root).Reply()
		if err != nil {
			return 0, fmt.Errorf("keyecho: query tree: %w", err)
		}
		var best Window
		bestArea := 0
		for _, w := range tree.Children {
			p, err := xproto.GetProperty(c.x, false, w, atom.Atom, xproto.AtomCardinal, 0, 1).Reply()
			if err != nil || p.ValueLen != 1 || int(xgb.Get32(p.Value)) != pid {
				continue
			}
			a, err := xproto.GetWindowAttributes(c.x, w).Reply()
			if err != nil || a.MapState != xproto.MapStateViewable {
				continue
			}
			g, err := xproto.GetGeometry(c.x, xproto.Drawable(w)).Reply()
			if err != nil {
				continue
			}
			if area := int(g.Width) * int(g.Height); area > bestArea {
				best, bestArea = w, area
			}
		}
		if best != 0 {
			return best, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("keyecho: no mapped window of pid %d after %v", pid, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Geometry returns w's position on the screen and size.
func (c *Conn) Geometry(w Window) (image.Rectangle, error) {
	g, err := xproto.GetGeometry(c.x, xproto.Drawable(w)).Reply()
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("keyecho: geometry: %w", err)
	}
	t, err := xproto.TranslateCoordinates(c.x, w, c.root, 0, 0).Reply()
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("keyecho: geometry: %w", err)
	}
	return image.Rect(int(t.DstX), int(t.DstY), int(t.DstX)+int(g.Width), int(t.DstY)+int(g.Height)), nil
}

// Place moves and resizes w to r (screen coordinates). The tests' X
// servers run no window manager, so the request takes effect as made.
func (c *Conn) Place(w Window, r image.Rectangle) error {
	mask := uint16(xproto.ConfigWindowX | xproto.ConfigWindowY | xproto.ConfigWindowWidth | xproto.ConfigWindowHeight)
	vals := []uint32{uint32(int32(r.Min.X)), uint32(int32(r.Min.Y)), uint32(r.Dx()), uint32(r.Dy())}
	if err := xproto.ConfigureWindowChecked(c.x, w, mask, vals).Check(); err != nil {
		return fmt.Errorf("keyecho: configure window: %w", err)
	}
	return nil
}

// Focus gives w the keyboard focus and moves the pointer to (x, y) in it.
func (c *Conn) Focus(w Window, x, y int) error {
	if err := xproto.WarpPointerChecked(c.x, 0, w, 0, 0, 0, 0, int16(x), int16(y)).Check(); err != nil {
		return fmt.Errorf("keyecho: warp pointer: %w", err)
	}
	if err := xproto.SetInputFocusChecked(c.x, xproto.InputFocusParent, w, xproto.TimeCurrentTime).Check(); err != nil {
		return fmt.Errorf("keyecho: set focus: %w", err)
	}
	return nil
}

// keysym returns the keysym that types r.
func keysym(r rune) (xproto.Keysym, error) {
	switch {
	case r == '\n' || r == '\r':
		return KeyReturn, nil
	case r == '\t':
		return KeyTab, nil
	case r >= 0x20 && r < 0x7f:
		return xproto.Keysym(r), nil
	}
	return 0, fmt.Errorf("keyecho: no key types %q", r)
}

// locate returns where ks is on the keyboard.
func (c *Conn) locate(ks xproto.Keysym) (keyLoc, error) {
	loc, ok := c.keys[ks]
	if !ok {
		return keyLoc{}, fmt.Errorf("keyecho: the keyboard has no keysym %#x", uint32(ks))
	}
	return loc, nil
}

// press sends the key events of a chord: modifiers down, the key down and
// up, modifiers up. Nothing waits for the server.
func (c *Conn) press(loc keyLoc, mods ...xproto.Keysym) {
	var down []xproto.Keycode
	if loc.shift {
		mods = append(mods, keyShiftL)
	}
	for _, m := range mods {
		down = append(down, c.keys[m].code)
	}
	for _, k := range down {
		xtest.FakeInput(c.x, xproto.KeyPress, byte(k), 0, c.root, 0, 0, 0)
	}
	xtest.FakeInput(c.x, xproto.KeyPress, byte(loc.code), 0, c.root, 0, 0, 0)
	xtest.FakeInput(c.x, xproto.KeyRelease, byte(loc.code), 0, c.root, 0, 0, 0)
	for _, k := range slices.Backward(down) {
		xtest.FakeInput(c.x, xproto.KeyRelease, byte(k), 0, c.root, 0, 0, 0)
	}
}

// sync waits until the server has handled every request sent so far.
func (c *Conn) sync() error {
	if _, err := xproto.GetInputFocus(c.x).Reply(); err != nil {
		return fmt.Errorf("keyecho: %w", err)
	}
	return nil
}

// Type types text into the focused window (printable ASCII, newline as
// Return, tab) and waits until the server has handled the keys.
func (c *Conn) Type(text string) error {
	for _, r := range text {
		ks, err := keysym(r)
		if err != nil {
			return err
		}
		loc, err := c.locate(ks)
		if err != nil {
			return err
		}
		c.press(loc)
	}
	return c.sync()
}

// Chord types one key with modifiers, written as xdotool does: "ctrl+u",
// "Return", "ctrl+shift+a", "BackSpace".
func (c *Conn) Chord(spec string) error {
	parts := strings.Split(spec, "+")
	var mods []xproto.Keysym
	for _, m := range parts[:len(parts)-1] {
		switch strings.ToLower(m) {
		case "ctrl", "control":
			mods = append(mods, keyControlL)
		case "shift":
			mods = append(mods, keyShiftL)
		default:
			return fmt.Errorf("keyecho: unknown modifier %q in %q", m, spec)
		}
	}
	key := parts[len(parts)-1]
	var ks xproto.Keysym
	switch key {
	case "Return":
		ks = KeyReturn
	case "BackSpace":
		ks = KeyBackSpace
	case "Tab":
		ks = KeyTab
	case "Escape":
		ks = KeyEscape
	default:
		r := []rune(key)
		if len(r) != 1 {
			return fmt.Errorf("keyecho: unknown key %q in %q", key, spec)
		}
		var err error
		if ks, err = keysym(r[0]); err != nil {
			return err
		}
	}
	loc, err := c.locate(ks)
	if err != nil {
		return err
	}
	c.press(loc, mods...)
	return c.sync()
}

// Watch reports the drawing into one window's region of interest. Make
// one with [Conn.Watch]; it belongs to its Conn's goroutine.
type Watch struct {
	c    *Conn
	win  Window
	dmg  damage.Damage
	roi  image.Rectangle // in window coordinates
	base []byte          // the region before the key
}

// Watch starts reporting the drawing into roi (window coordinates; the
// empty rectangle means the whole window) of w.
func (c *Conn) Watch(w Window, roi image.Rectangle) (*Watch, error) {
	g, err := xproto.GetGeometry(c.x, xproto.Drawable(w)).Reply()
	if err != nil {
		return nil, fmt.Errorf("keyecho: geometry: %w", err)
	}
	whole := image.Rect(0, 0, int(g.Width), int(g.Height))
	if roi.Empty() {
		roi = whole
	}
	roi = roi.Intersect(whole)
	if roi.Empty() {
		return nil, errors.New("keyecho: the region of interest is outside the window")
	}
	id, err := damage.NewDamageId(c.x)
	if err != nil {
		return nil, fmt.Errorf("keyecho: %w", err)
	}
	if err := damage.CreateChecked(c.x, id, xproto.Drawable(w), damage.ReportLevelRawRectangles).Check(); err != nil {
		return nil, fmt.Errorf("keyecho: create damage: %w", err)
	}
	return &Watch{c: c, win: w, dmg: id, roi: roi}, nil
}

// Close stops the reports.
func (w *Watch) Close() error {
	return damage.DestroyChecked(w.c.x, w.dmg).Check()
}

// touches reports whether e is a damage notification of w on its region.
func (w *Watch) touches(e event) bool {
	d, ok := e.ev.(damage.NotifyEvent)
	if !ok || d.Damage != w.dmg {
		return false
	}
	a := image.Rect(int(d.Area.X), int(d.Area.Y), int(d.Area.X)+int(d.Area.Width), int(d.Area.Y)+int(d.Area.Height))
	return a.Overlaps(w.roi)
}

// grab reads the region back and returns its pixels and the request's
// sequence number.
func (w *Watch) grab() ([]byte, uint16, error) {
	ck := xproto.GetImage(w.c.x, xproto.ImageFormatZPixmap, xproto.Drawable(w.win),
		int16(w.roi.Min.X), int16(w.roi.Min.Y), uint16(w.roi.Dx()), uint16(w.roi.Dy()), 0xffffffff)
	r, err := ck.Reply()
	if err != nil {
		return nil, 0, fmt.Errorf("keyecho: get image: %w", err)
	}
	return r.Data, ck.Sequence, nil
}

// Quiet waits until the region's pixels have not changed for still, at
// most timeout, and keeps that image for the next [Watch.Key] to compare
// with. Frames that leave the region as it was (another pane of the
// window flooding) do not count. It returns how many frames changed the
// region while it waited.
func (w *Watch) Quiet(still, timeout time.Duration) (int, error) {
	changes := 0
	deadline := time.Now().Add(timeout)
	cur, _, err := w.grab()
	if err != nil {
		return 0, err
	}
	quietUntil := time.Now().Add(still)
	for {
		if quietUntil.After(deadline) {
			return changes, fmt.Errorf("keyecho: the window was still changing after %v (%d frames)", timeout, changes)
		}
		e, ok := w.c.next(quietUntil)
		if !ok {
			break
		}
		if e.err != nil {
			return changes, fmt.Errorf("keyecho: X error: %v", e.err)
		}
		if !w.touches(e) {
			continue
		}
		img, _, err := w.grab()
		if err != nil {
			return changes, err
		}
		if !bytes.Equal(img, cur) {
			changes++
			cur = img
			quietUntil = time.Now().Add(still)
		}
	}
	w.base = cur
	return changes, nil
}

// Sample is one key's measurement: wall-clock times (comparable with a
// program's own timestamps on the same machine).
type Sample struct {
	Sent time.Time // just before the key press was sent
	Seen time.Time // the DAMAGE report of the first frame that changed the region arrived
}

// Latency is Seen - Sent.
func (s Sample) Latency() time.Duration { return s.Seen.Sub(s.Sent) }

// Key types the key for r (see [Conn.Type]) and returns the time until the
// first frame that changed the region, waiting at most timeout. Call
// [Watch.Quiet] before each Key.
func (w *Watch) Key(r rune, timeout time.Duration) (time.Duration, error) {
	s, err := w.KeySample(r, timeout)
	return s.Latency(), err
}

// KeySample is [Watch.Key] returning the times themselves.
func (w *Watch) KeySample(r rune, timeout time.Duration) (Sample, error) {
	if w.base == nil {
		return Sample{}, errors.New("keyecho: Key without a Quiet before it")
	}
	ks, err := keysym(r)
	if err != nil {
		return Sample{}, err
	}
	loc, err := w.c.locate(ks)
	if err != nil {
		return Sample{}, err
	}
	base := w.base
	w.base = nil
	start := time.Now()
	w.c.press(loc)
	deadline := start.Add(timeout)
	for {
		e, ok := w.c.next(deadline)
		if !ok {
			return Sample{}, fmt.Errorf("keyecho: no frame changed the window within %v of the key %q", timeout, r)
		}
		if e.err != nil {
			return Sample{}, fmt.Errorf("keyecho: X error: %v", e.err)
		}
		if !w.touches(e) {
			continue
		}
		last := e.at
		img, seq, err := w.grab()
		if err != nil {
			return Sample{}, err
		}
		// Notifications generated before the read-back carry a sequence
		// number below its request's: the change may be theirs. Read up to
		// a mark sent after the read-back so that all of them are seen.
		n := w.c.mark()
		var later []event
		for {
			f, ok := w.c.next(time.Now().Add(timeout))
			if !ok {
				return Sample{}, errors.New("keyecho: the server did not return a mark")
			}
			if w.c.isMark(f, n) {
				break
			}
			if d, ok := f.ev.(damage.NotifyEvent); ok && w.touches(f) && int16(seq-d.Sequence) > 0 {
				last = f.at
				continue
			}
			later = append(later, f)
		}
		w.c.held = append(later, w.c.held...)
		if !bytes.Equal(img, base) {
			return Sample{Sent: start, Seen: last}, nil
		}
	}
}

// Stats summarises samples: their count, median, 99th percentile (the
// nearest rank) and maximum.
type Stats struct {
	N                int
	Median, P99, Max time.Duration
}

// Summarize returns the Stats of samples (the zero Stats for none).
func Summarize(samples []time.Duration) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	s := slices.Sorted(slices.Values(samples))
	rank := (99*len(s) + 99) / 100 // ceil(0.99 n), 1-based
	return Stats{N: len(s), Median: s[len(s)/2], P99: s[rank-1], Max: s[len(s)-1]}
}
