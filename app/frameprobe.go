package app

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// frameProbe measures how many frames a second the window paints while a
// view without a pane of its own (the agents overview) is shown: a 1x1
// raster that asks for the next frame each time it is painted, so the
// window paints as often as it can (at most Fyne's 60 a second), and one
// "render-probe pane=<name> fps=… frames=…" line a second, the format of
// the terminal view's probe (termview.Options.Probe), is written to w.
// It exists for PANEFLOW_RENDER_PROBE=1 only (the GUI benchmarks). Its
// methods may be called from any goroutine.
type frameProbe struct {
	raster *canvas.Raster
	w      io.Writer
	name   string

	mu      sync.Mutex
	frames  int
	start   time.Time
	stopped bool
}

// newFrameProbe is a running probe named name writing to w; its raster is
// 1x1, in the background colour.
func newFrameProbe(name string, w io.Writer) *frameProbe {
	p := &frameProbe{w: w, name: name}
	bg := color.RGBAModel.Convert(theme.Color(theme.ColorNameBackground)).(color.RGBA)
	p.raster = canvas.NewRaster(func(int, int) image.Image {
		p.frame()
		img := image.NewRGBA(image.Rect(0, 0, 1, 1))
		img.SetRGBA(0, 0, bg)
		return img
	})
	p.raster.Resize(fyne.NewSize(1, 1))
	return p
}

// view is the probe's object to add to the shown view: it takes no room.
func (p *frameProbe) view() fyne.CanvasObject { return container.NewWithoutLayout(p.raster) }

// frame counts one painted frame, reports the last second's count when a
// second has passed, and asks for the next frame. It runs on the
// painting thread.
func (p *frameProbe) frame() {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	now := time.Now()
	if p.frames == 0 {
		p.start = now
	}
	p.frames++
	if d := now.Sub(p.start); d >= time.Second {
		n := p.frames - 1 // the frames before this one, which starts the next window
		fmt.Fprintf(p.w, "render-probe pane=%s fps=%.1f frames=%d rows=0.0 cost_ms=0.000 max_ms=0.000 alone=0\n",
			p.name, float64(n)/d.Seconds(), n)
		p.frames, p.start = 1, now
	}
	p.mu.Unlock()
	// Frees the raster's texture: the next frame paints it (and so the
	// window) again.
	canvas.Refresh(p.raster)
}

// stop ends the measurement; a partial second is not reported.
func (p *frameProbe) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// changeProbe writes a probe line each time it differs from the last one
// it wrote (the GUI tests read what the window shows from such lines).
// Its zero value is off: it writes nothing. Not safe for concurrent use:
// its user's lock guards it (the shell's mu for the hosts probe).
type changeProbe struct {
	w    io.Writer // where lines go; nil = off
	last string    // the last line written
}

// on reports whether the probe writes.
func (p *changeProbe) on() bool { return p.w != nil }

// write writes line unless the probe is off or line is the last written.
func (p *changeProbe) write(line string) {
	if p.w == nil || line == p.last {
		return
	}
	p.last = line
	fmt.Fprintln(p.w, line)
}

// uiProbes is what the shell's UI probes (PANEFLOW_UI_PROBE=1: the GUI
// tests read the lines) wrote last. Guarded by the shell's mu.
type uiProbes struct {
	// hosts writes the sidebar's hosts and cards when they change (with
	// hosts); off otherwise.
	hosts changeProbe
	// usage are the sidebar's and the overview's usage lines probed
	// last, by key (probeUsageLocked, the overview's fetchDay).
	usage map[string]fyne.CanvasObject
}
