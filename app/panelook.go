package app

import (
	"fmt"
	"image"
	"io"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"github.com/paneflow-go/paneflow/app/fontfind"
	"github.com/paneflow-go/paneflow/app/render"
	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/config"
)

// paneLook is how the window draws its panes, shared by every pane view:
// the font set (built for the zoomed size, the configured family and line
// height and the canvas scale), the installed fallback fonts, the colour
// palette, the painting hooks of the window's event loop and the last key
// typed into a pane. The shell hands each view its part
// (viewOptions) and hands every view a new font set or palette when
// they change.
//
// Its zero value has no fonts; build makes them. paintNow, paintRegion
// and probe are set before the shell's goroutines start and only read
// afterwards; typing is the views' (termview.Typing's own rule); the
// rest is guarded by shell.mu and used on the UI goroutine.
type paneLook struct {
	fonts      *render.FontSet
	size       float64 // the zoomed size; config.Config.FontSize is the reset size
	scaleBuilt float32 // the canvas scale fonts were built for
	fallbacks  [][]byte
	palette    render.Palette

	// paintNow paints the window at once (FramePainter); nil without one.
	paintNow func()
	// paintRegion paints a part of a view's image (RegionPainter); nil
	// without one.
	paintRegion func(*canvas.Image, image.Rectangle) bool
	// typing is the window's last key into a pane, shared by its views
	// (termview.Options.Typing).
	typing termview.Typing
	// probe is where frame probes write (PANEFLOW_RENDER_PROBE=1,
	// frameProbe); nil = none.
	probe io.Writer
}

// setTheme picks the dark or the light palette.
func (l *paneLook) setTheme(dark bool) {
	if dark {
		l.palette = render.DarkPalette()
	} else {
		l.palette = render.LightPalette()
	}
}

// build builds the font set for cfg's family and line height at the
// zoomed size, for canvas scale. A family that cannot be found falls back
// to Fyne's bundled monospace font, with an error saying so; the fonts
// are then still built. Only when even the bundled font fails are the
// old fonts kept, with an error.
func (l *paneLook) build(cfg config.Config, scale float32) error {
	fc := render.DefaultFontConfig()
	fc.Size = l.size
	fc.LineHeight = cfg.LineHeight
	fc.Scale = float64(scale)
	var problem error
	if cfg.FontFamily != "" {
		ff, err := fontfind.Family(cfg.FontFamily)
		if err != nil {
			problem = fmt.Errorf("font_family %q: %v; using the bundled monospace font", cfg.FontFamily, err)
		} else if fc.Regular, fc.Bold, fc.Italic, fc.BoldItalic, err = ff.Read(); err != nil {
			problem = fmt.Errorf("font_family %q: %v; using the bundled monospace font", cfg.FontFamily, err)
			fc.Regular, fc.Bold, fc.Italic, fc.BoldItalic = nil, nil, nil, nil
		}
	}
	if fc.Regular == nil {
		fc.Regular = theme.DefaultTextMonospaceFont().Content()
	}
	fc.Fallbacks = l.fallbackFonts()
	fs, err := render.NewFontSet(fc)
	if err != nil {
		// The family's fonts were read but cannot be used: say why (err,
		// not the bundled font's retry, which succeeded with no error).
		problem = fmt.Errorf("font_family %q: %v; using the bundled monospace font", cfg.FontFamily, err)
		fc.Regular, fc.Bold, fc.Italic, fc.BoldItalic = theme.DefaultTextMonospaceFont().Content(), nil, nil, nil
		if fs, err = render.NewFontSet(fc); err != nil {
			return fmt.Errorf("fonts: %v", err)
		}
	}
	l.fonts = fs
	l.scaleBuilt = scale
	return problem
}

// fallbackFonts returns the installed fonts tried for characters the
// terminal font lacks (CJK, symbols), read once.
func (l *paneLook) fallbackFonts() [][]byte {
	if l.fallbacks != nil {
		return l.fallbacks
	}
	l.fallbacks = [][]byte{}
	for _, p := range fontfind.Fallbacks() {
		if b, err := fontfind.MapFace(p, 0); err == nil {
			l.fallbacks = append(l.fallbacks, b)
		}
	}
	return l.fallbacks
}

// viewOptions fills in o what a new pane view takes from the look.
func (l *paneLook) viewOptions(o *termview.Options) {
	o.Fonts = l.fonts
	o.Palette = l.palette
	o.PaintNow = l.paintNow
	o.PaintRegion = l.paintRegion
	o.Typing = &l.typing
}
