package termview

import (
	"image"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2/canvas"
)

// TestRenderOnInput: output that follows a typed key is painted at once
// (Options.PaintNow), output that merely comes is not.
func TestRenderOnInput(t *testing.T) {
	var paints atomic.Int32
	h := newHarness(t, 20, 4, Options{PaintNow: func() { paints.Add(1) }})
	h.output("plain output\r\n")
	if n := paints.Load(); n != 0 {
		t.Fatalf("output without input painted at once %d times, want 0", n)
	}
	h.v.TypedRune('x')
	if got := h.p.takeInput(); got != "x" {
		t.Fatalf("sent %q, want x", got)
	}
	h.output("x") // the echo
	waitFor(t, "the echo painted at once", func() bool { return paints.Load() == 1 })
	h.output("more\r\n")
	if n := paints.Load(); n != 1 {
		t.Errorf("output after the echo's frame painted at once: %d paints, want 1", n)
	}
}

// TestEchoProbe: with a probe, a key's way to the screen is one
// echo-probe line once the paint is over.
func TestEchoProbe(t *testing.T) {
	var out lockedBuffer
	h := newHarness(t, 20, 4, Options{Probe: &out, ProbeName: "7"})
	p := h.v.echo
	p.key()
	p.sent()
	p.output()
	p.frame()
	p.drawn()
	if !p.painting() {
		t.Fatal("painting: no drawn echo waiting")
	}
	if p.painting() {
		t.Error("painting twice for one echo")
	}
	p.painted()
	re := regexp.MustCompile(`^echo-probe pane=7 key=\d+ sent=\d+ output=\d+ frame=\d+ drawn=\d+ paint=\d+ painted=\d+ region=0\n$`)
	if got := out.String(); !re.MatchString(got) {
		t.Errorf("probe wrote %q, want one echo-probe line", got)
	}
	// An echo painted alone says so.
	before := len(out.String())
	p.key()
	p.sent()
	p.output()
	p.frame()
	p.drawn()
	p.region()
	p.painting()
	p.painted()
	if got := out.String()[before:]; !strings.HasSuffix(got, " region=1\n") {
		t.Errorf("probe wrote %q for an echo painted alone, want region=1", got)
	}
	// Steps out of order record nothing.
	p.key()
	p.drawn()
	if p.painting() {
		t.Error("a key without output is painted")
	}
}

// TestPaintRegion: a typed key's echo goes to Options.PaintRegion with the
// band of the row it changed; when PaintRegion declines, the View paints
// the whole window (PaintNow). Output that follows no input goes to
// PaintRegion too (a flooding pane paints only itself), never to PaintNow,
// and is refreshed for the toolkit's next paint when PaintRegion declines.
func TestPaintRegion(t *testing.T) {
	var paints atomic.Int32
	var mu sync.Mutex
	var regions []image.Rectangle
	accept := atomic.Bool{}
	accept.Store(true)
	h := newHarness(t, 20, 4, Options{
		PaintNow: func() { paints.Add(1) },
		PaintRegion: func(img *canvas.Image, r image.Rectangle) bool {
			mu.Lock()
			regions = append(regions, r)
			mu.Unlock()
			return accept.Load()
		},
	})
	// since returns the regions painted after the first n.
	since := func(n int) []image.Rectangle {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(regions[n:])
	}
	count := func() int { return len(since(0)) }
	bufW := h.v.buf.Rect.Dx()
	ch := int(h.ch * h.v.scale)
	in := h.v.inset
	// Output that follows no input: painted alone too, never at once
	// through PaintNow. Once drawn, no frame of the setup is left.
	n := count()
	h.output("$ ")
	waitFor(t, "the output's region", func() bool { return count() > n })
	if want := image.Rect(0, in, bufW, in+ch); since(n)[0] != want {
		t.Errorf("output's region %v, want row 0's band %v", since(n)[0], want)
	}
	n = count()
	h.v.TypedRune('x')
	h.p.takeInput()
	h.output("x")
	waitFor(t, "the echo's region", func() bool { return count() > n })
	if want := image.Rect(0, in, bufW, in+ch); since(n)[0] != want {
		t.Errorf("echo's region %v, want row 0's band %v", since(n)[0], want)
	}
	if n := paints.Load(); n != 0 {
		t.Errorf("PaintNow called %d times after PaintRegion painted, want 0", n)
	}
	accept.Store(false)
	n = count()
	h.v.TypedRune('y')
	h.p.takeInput()
	h.output("y\r\nnext")
	waitFor(t, "the whole paint", func() bool { return paints.Load() == 1 })
	if want := image.Rect(0, in, bufW, in+2*ch); since(n)[0] != want {
		t.Errorf("declined echo's region %v, want rows 0-1 %v", since(n)[0], want)
	}
	// Declined output that follows no input: refreshed, but no whole
	// paint at once.
	n = count()
	h.output("\r\nmore")
	waitFor(t, "the output's declined region", func() bool { return count() > n })
	if n := paints.Load(); n != 1 {
		t.Errorf("declined output without input painted the window at once: %d paints, want 1", n)
	}
}

// TestTypingPace: a key typed into one View slows the paced frames of the
// other Views sharing its Typing (typingFrameInterval, none within
// typingQuiet of the key) for typingFor, not its own; a View without
// Typing, or after typingFor, paces at minFrameInterval.
func TestTypingPace(t *testing.T) {
	var typing Typing
	h := newHarness(t, 20, 4, Options{Typing: &typing})
	other := &View{opts: Options{Typing: &typing}}
	alone := &View{}
	h.v.TypedRune('x')
	if got := h.p.takeInput(); got != "x" {
		t.Fatalf("sent %q, want x", got)
	}
	if by := typing.by.Load(); by != h.v {
		t.Fatalf("Typing names %p as typed into, want the View %p", by, h.v)
	}
	key := time.Unix(0, typing.at.Load())
	const before = 10 * time.Millisecond // each View's last frame, before the key
	for _, v := range []*View{h.v, other, alone} {
		v.lastFrame.Store(key.Add(-before).UnixNano())
	}
	cases := []struct {
		name  string
		v     *View
		after time.Duration // since the key
		want  time.Duration
	}{
		{"other View at the key", other, 0, typingFrameInterval - before},
		{"other View 50 ms after", other, 50 * time.Millisecond, typingFrameInterval - before - 50*time.Millisecond},
		{"other View 200 ms after", other, 200 * time.Millisecond, typingFrameInterval - before - 200*time.Millisecond},
		{"typed View", h.v, 0, minFrameInterval - before},
		{"View without Typing", alone, 0, minFrameInterval - before},
		{"other View after typingFor", other, typingFor, minFrameInterval - before - typingFor},
	}
	for _, c := range cases {
		if got := c.v.paceWait(key.Add(c.after)); got != c.want {
			t.Errorf("%s: paceWait = %v, want %v", c.name, got, c.want)
		}
	}
	// A frame just before the key: typingQuiet decides.
	other.lastFrame.Store(key.Add(-typingFrameInterval).UnixNano())
	if got, want := other.paceWait(key.Add(20*time.Millisecond)), typingQuiet-20*time.Millisecond; got != want {
		t.Errorf("other View 20 ms after a key, its last frame long before: paceWait = %v, want %v", got, want)
	}
}
