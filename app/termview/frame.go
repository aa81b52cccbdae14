package termview

import (
	"fmt"
	"image"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/terminal"
)

// droppedCounter is an optional Pane capability: the number of lines that
// left the scrollback for good (terminal.Emulator.DroppedLines). With it
// the View keeps a scrolled view and the selection anchored on their
// content even when the scrollback is full and every new line evicts one.
type droppedCounter interface {
	DroppedLines() uint64
}

// watch is the watcher goroutine: it waits for output and posts at most
// one pending frame at a time, at most one per minFrameInterval, none
// while the View is hidden. Output that follows input sent since the last
// frame started is not paced: its frame is posted at once and painted at
// once (Options.PaintNow), so a typed key's echo never waits for a tick;
// output that keeps coming after it is paced again. It never touches the
// View's state except through atomics and v.post.
func (v *View) watch() {
	defer close(v.done)
	for {
		if v.hidden.Load() {
			select {
			case <-v.wake:
				continue
			case <-v.stop:
				return
			}
		}
		gen, changed := v.pane.Watch()
		if gen == v.drawnGen.Load() {
			select {
			case <-changed:
				continue
			case <-v.wake:
				continue
			case <-v.stop:
				return
			}
		}
		v.echo.output()
		if v.inputAt.Load() > v.lastFrame.Load() {
			v.inputFrame.Store(true)
		} else {
			// Paced; a key typed into another View meanwhile can
			// lengthen the wait, so it is computed again after it.
			for wait := v.paceWait(time.Now()); wait > 0; wait = v.paceWait(time.Now()) {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-v.stop:
					t.Stop()
					return
				}
			}
		}
		v.requestFrame()
		select {
		case <-v.frameDone:
		case <-v.stop:
			return
		}
	}
}

// Pacing while keys go to another View of the window (Options.Typing).
const (
	// typingFor is how long after a key into another View the paced
	// frames slow down.
	typingFor = time.Second
	// typingFrameInterval paces frames meanwhile: 4 a second.
	typingFrameInterval = time.Second / 4
	// typingQuiet: no paced frame starts this soon after such a key, the
	// time its echo takes to the screen on a loaded machine.
	typingQuiet = 100 * time.Millisecond
)

// Typing is the last key typed into one of a window's Views, which they
// share (Options.Typing). While keys go to one View, the others' paced
// frames (output that follows no key of theirs) come at most 4 times a
// second and none within 100 ms of a key: on a machine with few cores and
// software OpenGL a pane flooding output beside the typed one otherwise
// has the UI thread render and paint it 60 times a second, and the key
// waits behind those frames to be handled at all (issue 28; the server
// paces an attached window's other panes the same way). Its zero value is
// ready; it is safe for concurrent use.
type Typing struct {
	at atomic.Int64         // unix nanos of the last key
	by atomic.Pointer[View] // the View it was typed into
}

// typed notes a key typed into v now.
func (t *Typing) typed(v *View, now time.Time) {
	t.by.Store(v)
	t.at.Store(now.UnixNano())
}

// paceWait returns how long v's next paced frame waits from now: the
// rest of minFrameInterval since its last frame, or while keys go to
// another View (Options.Typing) of typingFrameInterval, and at least
// until typingQuiet after the last key.
func (v *View) paceWait(now time.Time) time.Duration {
	since := time.Duration(now.UnixNano() - v.lastFrame.Load())
	wait := minFrameInterval - since
	if t := v.opts.Typing; t != nil {
		if by := t.by.Load(); by != nil && by != v {
			if ago := time.Duration(now.UnixNano() - t.at.Load()); ago < typingFor {
				wait = max(wait, typingFrameInterval-since, typingQuiet-ago)
			}
		}
	}
	return wait
}

// requestFrame posts a frame unless one is pending already. Safe from any
// goroutine.
func (v *View) requestFrame() {
	// A pending frame snapshots after it starts, so it draws whatever
	// arrived before it runs; it signals frameDone when it is done.
	if v.pending.CompareAndSwap(false, true) {
		v.post(v.frame)
	}
}

// frame runs on the UI goroutine for a posted frame. It paints the rows it
// drew alone when it can (Options.PaintRegion), whether they follow input
// or not.
func (v *View) frame() {
	v.echo.frame()
	v.pending.Store(false)
	v.lastFrame.Store(time.Now().UnixNano())
	input := v.inputFrame.Swap(false)
	shown := !v.hidden.Load()
	now := input && v.opts.PaintNow != nil && shown
	region := v.opts.PaintRegion != nil && shown
	rows := 0
	var damage image.Rectangle
	v.mu.Lock()
	if !v.closed {
		if v.buf == nil {
			// Not laid out yet: nothing to draw, but the output is seen.
			g, _ := v.pane.Watch()
			v.drawnGen.Store(g)
		} else {
			v.deferRefresh = region
			rows = v.drawLocked()
			v.deferRefresh = false
			damage = v.damage
		}
	}
	img := v.img
	v.mu.Unlock()
	if rows > 0 {
		// Only the rows drawn go to the screen when the toolkit can
		// paint them alone; else the image is refreshed, and the whole
		// window painted at once for an echo, at the toolkit's next
		// tick otherwise.
		switch {
		case region && v.opts.PaintRegion(img, damage):
			if input {
				v.echo.region()
			}
			if v.probe != nil {
				v.probe.paintedAlone()
			}
		case region:
			img.Refresh()
			if now {
				v.opts.PaintNow()
			}
		case now:
			v.opts.PaintNow()
		}
	}
	select {
	case v.frameDone <- struct{}{}:
	default:
	}
}

// totalLocked returns the absolute line number of the top row of the live
// screen (lines dropped from the scrollback plus the scrollback length)
// and the scrollback length.
func (v *View) totalLocked() (total, hist int) {
	hist = v.pane.HistoryLen()
	total = hist
	if d, ok := v.pane.(droppedCounter); ok {
		total += int(d.DroppedLines())
	}
	return total, hist
}

// anchorLocked keeps a scrolled-back view on the same content as output
// moves lines into (or out of) the scrollback, as tmux copy mode does.
func (v *View) anchorLocked() {
	total, hist := v.totalLocked()
	if v.offset > 0 || v.copy != nil {
		// Copy mode holds even the live screen still, as tmux's does.
		v.offset += total - v.lastTotal
	}
	v.offset = min(max(v.offset, 0), hist)
	v.lastTotal, v.histLen = total, hist
}

// topLineLocked is the absolute line number of the snapshot's top row.
func (v *View) topLineLocked() int { return v.lastTotal - v.offset }

// scrollByLocked scrolls n lines back (n < 0: forward) and redraws.
func (v *View) scrollByLocked(n int) {
	v.anchorLocked()
	if v.snap.AltScreen {
		n = -v.offset
	}
	off := min(max(v.offset+n, 0), v.histLen)
	if off == v.offset {
		return
	}
	v.offset = off
	v.drawLocked()
}

// drawLocked takes a snapshot and renders the changed rows into the
// buffer, honouring DECSET 2026 holds. It returns the rows drawn.
func (v *View) drawLocked() int {
	if v.closed || v.buf == nil {
		return 0
	}
	start := time.Now()
	v.anchorLocked()
	v.pane.Snapshot(&v.snap, v.offset)
	if v.snap.AltScreen && v.offset > 0 {
		// The alternate screen has no scrollback of its own.
		v.offset = 0
		v.pane.Snapshot(&v.snap, 0)
	}
	v.drawnGen.Store(v.snap.Generation)
	if v.snap.Cursor.Shape == terminal.CursorDefault {
		v.snap.Cursor.Shape = v.opts.CursorShape
	}
	if v.copy != nil {
		v.copyCursorLocked()
	}

	if v.snap.SyncOutput {
		if v.syncSince.IsZero() {
			v.syncSince = start
		}
		if held := start.Sub(v.syncSince); held < syncHoldMax {
			if v.syncTimer == nil {
				v.syncTimer = time.AfterFunc(syncHoldMax-held, v.syncExpired)
			}
			return 0
		}
		v.syncSince = start // drew a frame; hold the next ones again
	} else {
		v.syncSince = time.Time{}
		if v.syncTimer != nil {
			v.syncTimer.Stop()
			v.syncTimer = nil
		}
	}

	if b := v.pane.Bells(); b != v.bells {
		if b > v.bells {
			v.flashUntil = start.Add(flashDuration)
			if v.flashTimer != nil {
				v.flashTimer.Stop()
			}
			v.flashTimer = time.AfterFunc(flashDuration, v.requestFrame)
		}
		v.bells = b
	}

	v.buildOverlayLocked(start)
	rows := v.rend.Render(v.buf, &v.snap, &v.ov)
	if rows > 0 {
		v.echo.drawn()
		v.damage = v.rend.Damage()
		if !v.deferRefresh {
			v.img.Refresh()
		}
		v.gate.drawn() // output is held while the window paints it
	}
	v.updateIndicatorLocked()
	if v.probe != nil {
		v.probe.record(rows, time.Since(start))
	}
	return rows
}

// syncExpired runs on a timer goroutine when a DECSET 2026 hold reached
// its limit.
func (v *View) syncExpired() {
	v.post(func() {
		v.mu.Lock()
		v.syncTimer = nil
		v.drawLocked()
		v.mu.Unlock()
	})
}

// buildOverlayLocked fills v.ov for the current snapshot.
func (v *View) buildOverlayLocked(now time.Time) {
	ov := &v.ov
	top := v.topLineLocked()
	ov.Selection, ov.Block = false, v.sel.block
	if s, e, ok := v.sel.bounds(v.snap.Cols); ok {
		s.line -= top
		e.line -= top
		if e.line >= 0 && s.line < v.snap.Rows {
			if s.line < 0 {
				s = absPoint{0, 0}
				if v.sel.block {
					s.col = v.sel.blockCols().c0
				}
			}
			if e.line >= v.snap.Rows {
				e = absPoint{v.snap.Rows - 1, v.snap.Cols}
				if v.sel.block {
					e.col = v.sel.blockCols().c1
				}
			}
			ov.Selection = true
			ov.SelStart = render.Point{Row: s.line, Col: s.col}
			ov.SelEnd = render.Point{Row: e.line, Col: e.col}
		}
	}
	ov.Matches, ov.Current = v.find.visibleMatchesLocked(v.matchBuf[:0], top, &v.snap)
	ov.Matches, ov.Current = v.markSpansLocked(ov.Matches, ov.Current, top)
	v.matchBuf = ov.Matches
	ov.Link = render.Span{}
	if v.linkURL != "" {
		ov.Link = v.link
	}
	ov.CursorOff = v.scrolledCursorOffLocked() || v.blinkOff
	ov.Unfocused = !v.focused
	ov.Flash = now.Before(v.flashUntil)
	v.manageBlinkLocked(now)
}

// scrolledCursorOffLocked reports whether the cursor is hidden for being
// scrolled back (copy mode draws its own cursor there).
func (v *View) scrolledCursorOffLocked() bool { return v.offset > 0 && v.copy == nil }

// blinking reports whether the cursor should blink now.
func (v *View) blinkingLocked(now time.Time) bool {
	if !v.focused || v.offset > 0 || v.copy != nil || !v.snap.Cursor.Visible {
		return false
	}
	switch v.opts.CursorBlink {
	case BlinkOff:
		return false
	case BlinkProgram:
		if !v.snap.Cursor.Blink {
			return false
		}
	}
	return now.Sub(v.lastInput) < blinkIdleStop
}

// manageBlinkLocked starts or stops the blink timer. The timer runs only
// while the cursor blinks, so an idle or unfocused View has no wake-ups.
func (v *View) manageBlinkLocked(now time.Time) {
	if !v.blinkingLocked(now) {
		v.blinkOff = false
		v.ov.CursorOff = v.scrolledCursorOffLocked()
		if v.blinkTimer != nil {
			v.blinkTimer.Stop()
			v.blinkTimer = nil
		}
		return
	}
	if v.blinkTimer == nil {
		v.blinkTimer = time.AfterFunc(blinkInterval, v.blinkTick)
	}
}

// blinkTick runs on a timer goroutine every blinkInterval while blinking.
func (v *View) blinkTick() {
	v.post(func() {
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.closed || v.blinkTimer == nil {
			return
		}
		v.blinkTimer = nil
		if v.blinkingLocked(time.Now()) {
			v.blinkOff = !v.blinkOff
		}
		v.drawLocked() // re-arms the timer while blinking
	})
}

// inputLocked notes user input: the cursor shows steadily and the blink
// idle timer restarts.
func (v *View) inputLocked() {
	v.lastInput = time.Now()
	if v.blinkOff {
		v.blinkOff = false
		v.drawLocked()
	}
}

// updateIndicatorLocked shows the target of the link under the pointer
// while the secondary modifier is held (before any click opens it), else
// "[offset/history]" while scrolled back.
func (v *View) updateIndicatorLocked() {
	var t string
	switch {
	case v.linkURL != "":
		t = "→ " + shortTarget(v.linkURL)
	case v.copy != nil:
		t = v.copyIndicatorLocked()
	case v.offset != 0:
		t = fmt.Sprintf("[%d/%d]", v.offset, v.histLen)
	default:
		if v.indText.Visible() {
			v.indText.Hide()
			v.indBg.Hide()
		}
		return
	}
	if t != v.indText.Text || !v.indText.Visible() {
		v.indText.Text = t
		v.indText.Show()
		v.indBg.Show()
		v.placeOverlaysLocked()
		// Through the View's canvas: the driver finds no canvas for an
		// object never painted yet (shown for the first time here), and
		// canvas.Refresh then does nothing.
		if c := v.canvas(); c != nil {
			c.Refresh(v.indText)
			c.Refresh(v.indBg)
		}
	}
}

// probe accumulates frame statistics and prints them once a second while
// frames happen; alone= counts the frames painted alone
// (Options.PaintRegion). Its own mutex guards it: record runs on the UI goroutine,
// flush on a timer goroutine.
type probe struct {
	w    io.Writer
	name string

	mu      sync.Mutex
	frames  int
	alone   int // frames painted alone
	rows    int
	cost    time.Duration
	maxCost time.Duration
	start   time.Time
	timer   *time.Timer
	closed  bool
}

func newProbe(w io.Writer, name string) *probe {
	if name == "" {
		name = "?"
	}
	return &probe{w: w, name: name}
}

// record adds one frame; the first frame of a window arms the flush.
func (p *probe) record(rows int, cost time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	if p.frames == 0 {
		p.start = time.Now()
		p.timer = time.AfterFunc(time.Second, p.flush)
	}
	p.frames++
	p.rows += rows
	p.cost += cost
	p.maxCost = max(p.maxCost, cost)
}

// paintedAlone counts a frame recorded before as painted alone.
func (p *probe) paintedAlone() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frames > 0 {
		p.alone++
	}
}

// flush prints and resets the window.
func (p *probe) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frames == 0 || p.closed {
		return
	}
	secs := time.Since(p.start).Seconds()
	n := float64(p.frames)
	fmt.Fprintf(p.w, "render-probe pane=%s fps=%.1f frames=%d rows=%.1f cost_ms=%.3f max_ms=%.3f alone=%d\n",
		p.name, n/secs, p.frames, float64(p.rows)/n,
		p.cost.Seconds()*1000/n, p.maxCost.Seconds()*1000, p.alone)
	p.frames, p.alone, p.rows, p.cost, p.maxCost = 0, 0, 0, 0, 0
}

// close stops the probe; a pending window is dropped.
func (p *probe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
	}
}
