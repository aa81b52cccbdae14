package termview

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// echoProbe times the way of one key to the screen, step by step, and
// prints one "echo-probe" line per key whose echo was painted (with
// Options.Probe, PANEFLOW_RENDER_PROBE=1). test/gui's BenchmarkKeyEcho
// joins the lines with the X server's times of the key and of the frame
// (package test/internal/keyecho) to show where the time goes.
//
// The steps, as offsets in microseconds from the key's arrival in the View
// (key=, wall clock in Unix nanoseconds):
//
//	sent     the bytes were queued for the program (encoding, SendInput)
//	output   the watcher saw output after them (the write to the PTY, the
//	         program's echo, the read and the parse)
//	frame    the frame started on the UI goroutine (pacing, posting)
//	drawn    the renderer drew the changed rows into the pane's image
//	paint    the window's paint reached the View (waiting for the paint)
//	painted  the paint was over (upload, drawing, buffer swap)
//
// and region=1 when the echo was painted alone (Options.PaintRegion), 0
// when the whole window was.
//
// A key whose output is not drawn (a key the app consumed, a program that
// echoes nothing) is dropped at the next key. Its methods are safe for
// concurrent use: the watcher records output, the UI goroutine the rest.
type echoProbe struct {
	w    io.Writer
	name string

	mu sync.Mutex
	t  echoTrace
}

// echoTrace is one key's times in Unix nanoseconds; 0 is not yet.
type echoTrace struct {
	key, sent, output, frame, drawn, paint, painted int64
	region                                          bool
}

func newEchoProbe(w io.Writer, name string) *echoProbe {
	if name == "" {
		name = "?"
	}
	return &echoProbe{w: w, name: name}
}

// now is the probe's clock: wall time, comparable with other processes'.
func (p *echoProbe) now() int64 { return time.Now().UnixNano() }

// step records the time of one step when the one before it is recorded
// and it is not; prev and cur point into p.t.
func (p *echoProbe) step(prev func(*echoTrace) *int64, cur func(*echoTrace) *int64) {
	if p == nil {
		return
	}
	at := p.now()
	p.mu.Lock()
	if *prev(&p.t) != 0 && *cur(&p.t) == 0 {
		*cur(&p.t) = at
	}
	p.mu.Unlock()
}

// key starts tracing a key that arrived now.
func (p *echoProbe) key() {
	if p == nil {
		return
	}
	at := p.now()
	p.mu.Lock()
	p.t = echoTrace{key: at}
	p.mu.Unlock()
}

func (p *echoProbe) sent() {
	p.step(func(t *echoTrace) *int64 { return &t.key }, func(t *echoTrace) *int64 { return &t.sent })
}

func (p *echoProbe) output() {
	p.step(func(t *echoTrace) *int64 { return &t.sent }, func(t *echoTrace) *int64 { return &t.output })
}

func (p *echoProbe) frame() {
	p.step(func(t *echoTrace) *int64 { return &t.output }, func(t *echoTrace) *int64 { return &t.frame })
}

// drawn records a frame that drew rows.
func (p *echoProbe) drawn() {
	p.step(func(t *echoTrace) *int64 { return &t.frame }, func(t *echoTrace) *int64 { return &t.drawn })
}

// region records that the drawn echo was painted alone.
func (p *echoProbe) region() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.t.drawn != 0 {
		p.t.region = true
	}
	p.mu.Unlock()
}

// painting reports whether a drawn echo waits for this paint, and records
// its start.
func (p *echoProbe) painting() bool {
	if p == nil {
		return false
	}
	at := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.t.drawn == 0 || p.t.paint != 0 {
		return false
	}
	p.t.paint = at
	return true
}

// painted records the end of the paint and prints the key's line.
func (p *echoProbe) painted() {
	if p == nil {
		return
	}
	at := p.now()
	p.mu.Lock()
	t := p.t
	if t.paint == 0 || t.painted != 0 {
		p.mu.Unlock()
		return
	}
	t.painted = at
	p.t = echoTrace{}
	p.mu.Unlock()
	us := func(v int64) int64 { return (v - t.key) / 1000 }
	region := 0
	if t.region {
		region = 1
	}
	fmt.Fprintf(p.w, "echo-probe pane=%s key=%d sent=%d output=%d frame=%d drawn=%d paint=%d painted=%d region=%d\n",
		p.name, t.key, us(t.sent), us(t.output), us(t.frame), us(t.drawn), us(t.paint), us(t.painted), region)
}
