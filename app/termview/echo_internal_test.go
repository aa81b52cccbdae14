package termview

import (
	"regexp"
	"sync/atomic"
	"testing"
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
	re := regexp.MustCompile(`^echo-probe pane=7 key=\d+ sent=\d+ output=\d+ frame=\d+ drawn=\d+ paint=\d+ painted=\d+\n$`)
	if got := out.String(); !re.MatchString(got) {
		t.Errorf("probe wrote %q, want one echo-probe line", got)
	}
	// Steps out of order record nothing.
	p.key()
	p.drawn()
	if p.painting() {
		t.Error("a key without output is painted")
	}
}
