//go:build !nogui && !client && !gles && !arm && !arm64 && !wayland

package main

/*
#cgo pkg-config: gl
#include <GL/glx.h>
#include <string.h>

typedef void (*pfCopySubBuffer)(Display *, GLXDrawable, int, int, int, int);

static pfCopySubBuffer pf_copy_sub_buffer;

// pf_copy_sub_init finds glXCopySubBufferMESA for the current GLX
// context; 0 when the context is not GLX's or lacks the extension.
static int pf_copy_sub_init(void) {
	Display *d = glXGetCurrentDisplay();
	if (d == NULL || glXGetCurrentDrawable() == 0) return 0;
	const char *ext = glXQueryExtensionsString(d, DefaultScreen(d));
	if (ext == NULL || strstr(ext, "GLX_MESA_copy_sub_buffer") == NULL) return 0;
	pf_copy_sub_buffer = (pfCopySubBuffer)glXGetProcAddress((const GLubyte *)"glXCopySubBufferMESA");
	return pf_copy_sub_buffer != NULL;
}

// pf_copy_sub copies a rectangle of the current drawable's back buffer
// to its front (window coordinates, origin bottom left); 0 when there is
// no current GLX drawable.
static int pf_copy_sub(int x, int y, int w, int h) {
	Display *d = glXGetCurrentDisplay();
	GLXDrawable dr = glXGetCurrentDrawable();
	if (d == NULL || dr == 0 || pf_copy_sub_buffer == NULL) return 0;
	pf_copy_sub_buffer(d, dr, x, y, w, h);
	return 1;
}
*/
import "C"

import (
	"image"
	"math"
	"os"
	"reflect"
	"strings"
	"unsafe"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/go-gl/gl/v2.1/gl"
)

// The pieces of Fyne 2.7.1's GLFW driver that a partial paint takes
// (PaintRegion): the canvas's paint walk, which draws every object of the
// window in order through Fyne's GL painter, and the texture Fyne keeps
// for a canvas object. A Fyne upgrade that drops them fails the link
// (undefined linkname targets); one that changes their signatures would go
// unnoticed, so go.mod pins the version and test/gui's TestPartialPaint
// checks the result on screen.
//
//go:linkname fyneCanvasPaint fyne.io/fyne/v2/internal/driver/glfw.(*glCanvas).paint
func fyneCanvasPaint(c unsafe.Pointer, size fyne.Size)

//go:linkname fyneObjectTexture fyne.io/fyne/v2/internal/cache.GetTexture
func fyneObjectTexture(obj fyne.CanvasObject) (uint32, bool)

// fynePainter is the method set of Fyne 2.7.1's GL painter
// (internal/painter/gl.Painter), which each window's canvas draws with.
type fynePainter interface {
	Init()
	Capture(fyne.Canvas) image.Image
	Clear()
	Free(fyne.CanvasObject)
	Paint(fyne.CanvasObject, fyne.Position, fyne.Size)
	SetFrameBufferScale(float32)
	SetOutputSize(int, int)
	StartClipping(fyne.Position, fyne.Size)
	StopClipping()
}

// scissorPainter is a canvas's painter, wrapped so that Fyne's clipping
// keeps within a partial paint's rectangle: Fyne clips the objects of a
// scrollable (every terminal view is one) by replacing the GL scissor, and
// stops clipping by turning the scissor off, which without the wrapper
// drew the whole pane and everything after a clip again. Outside a partial
// paint it only passes the calls on.
type scissorPainter struct {
	fynePainter
	on  bool     // a partial paint is running
	box [4]int32 // its rectangle: x, y, width, height (GL's origin, bottom left)
}

func (p *scissorPainter) StartClipping(pos fyne.Position, size fyne.Size) {
	p.fynePainter.StartClipping(pos, size)
	if !p.on {
		return
	}
	var b [4]int32
	gl.GetIntegerv(gl.SCISSOR_BOX, &b[0])
	x0, y0 := max(b[0], p.box[0]), max(b[1], p.box[1])
	x1, y1 := min(b[0]+b[2], p.box[0]+p.box[2]), min(b[1]+b[3], p.box[1]+p.box[3])
	gl.Scissor(x0, y0, max(x1-x0, 0), max(y1-y0, 0))
}

func (p *scissorPainter) StopClipping() {
	p.fynePainter.StopClipping()
	if p.on {
		gl.Scissor(p.box[0], p.box[1], p.box[2], p.box[3])
		gl.Enable(gl.SCISSOR_TEST)
	}
}

// scissorPainters are the wrapped painters by canvas; a canvas whose
// painter cannot be wrapped maps to nil. UI thread only.
var scissorPainters = map[fyne.Canvas]*scissorPainter{}

// scissorPainterOf wraps c's painter once (Fyne's exported
// Painter/SetPainter of its common canvas, through reflect since the
// painter's interface type is internal); nil when c has no such methods or
// the wrapper does not fit the painter's interface (a Fyne upgrade).
func scissorPainterOf(c fyne.Canvas) *scissorPainter {
	if p, ok := scissorPainters[c]; ok {
		return p
	}
	scissorPainters[c] = nil
	v := reflect.ValueOf(c)
	get, set := v.MethodByName("Painter"), v.MethodByName("SetPainter")
	if !get.IsValid() || !set.IsValid() || get.Type().NumIn() != 0 || get.Type().NumOut() != 1 ||
		set.Type().NumIn() != 1 || set.Type().NumOut() != 0 {
		return nil
	}
	inner, ok := get.Call(nil)[0].Interface().(fynePainter)
	if !ok {
		return nil
	}
	p := &scissorPainter{fynePainter: inner}
	if !reflect.TypeOf(p).Implements(set.Type().In(0)) {
		return nil
	}
	set.Call([]reflect.Value{reflect.ValueOf(p)})
	scissorPainters[c] = p
	return p
}

// partialPaint says whether PaintRegion may paint a part of a window:
// decided on its first call, in a current GL context, once for the process.
var partialPaint struct {
	decided, ok bool
}

// partialPaintOK decides partialPaint; it runs with a window's context
// current. A part of a frame is painted only with a software rasteriser
// (llvmpipe, softpipe: VMs, CI, remote desktops, where painting the whole
// window costs 13-15 ms of CPU) and GLX_MESA_copy_sub_buffer, which shows
// a rectangle of the back buffer whatever the rest of it holds.
// PANEFLOW_PARTIAL_PAINT=0 turns it off.
func partialPaintOK() bool {
	if partialPaint.decided {
		return partialPaint.ok
	}
	partialPaint.decided = true
	if os.Getenv("PANEFLOW_PARTIAL_PAINT") == "0" {
		return false
	}
	p := gl.GetString(gl.RENDERER)
	if p == nil {
		return false
	}
	r := strings.ToLower(gl.GoStr(p))
	if !strings.Contains(r, "llvmpipe") && !strings.Contains(r, "softpipe") {
		return false
	}
	partialPaint.ok = C.pf_copy_sub_init() == 1
	return partialPaint.ok
}

// PaintRegion paints the rows r of img's image alone: it uploads them into
// the texture Fyne made of the image (glTexSubImage2D; a Refresh would
// have Fyne create and upload a new texture of the whole image), runs
// Fyne's paint walk with the GL scissor on the rectangle of the window
// they cover, and copies that rectangle of the back buffer to the screen
// (glXCopySubBufferMESA). The walk draws everything in the rectangle in
// Fyne's order, overlays included, so the rectangle is what a whole paint
// would show there; the pixels outside it that the walk draws (Fyne's
// clipping replaces the scissor) stay in the back buffer, which the next
// whole paint clears. When the canvas has other changes too, they are left
// to the whole paint at Fyne's next tick (the canvas stays dirty): the
// rectangle is shown first, with whatever else in it changed as Fyne last
// drew it, for at most a tick. It paints nothing and reports false when
// Fyne has no texture of the image's size, or when partialPaintOK says no.
// UI thread only.
func (*glfwEvents) PaintRegion(img *canvas.Image, r image.Rectangle) bool {
	src, ok := img.Image.(*image.RGBA)
	if !ok || src.Stride != 4*src.Rect.Dx() {
		return false
	}
	r = r.Intersect(src.Rect)
	if r.Empty() {
		return false
	}
	d := fyne.CurrentApp().Driver()
	c := d.CanvasForObject(img)
	if c == nil {
		return false
	}
	var win fyne.Window
	for _, w := range d.AllWindows() {
		if w.Canvas() == c {
			win = w
			break
		}
	}
	ctx, ok := win.(interface{ RunWithContext(func()) })
	if !ok {
		return false
	}
	dirty, ok := c.(interface {
		CheckDirtyAndClear() bool
		SetDirty()
	})
	if !ok {
		return false
	}
	// Other changes wait for the whole paint at Fyne's next tick (the
	// canvas stays dirty); the rows are shown first.
	if dirty.CheckDirtyAndClear() {
		defer dirty.SetDirty()
	}
	tex, ok := fyneObjectTexture(img)
	if !ok {
		return false
	}
	sp := scissorPainterOf(c)
	if sp == nil {
		return false
	}
	pos, size, csize := d.AbsolutePositionForObject(img), img.Size(), c.Size()
	painted := false
	ctx.RunWithContext(func() {
		if !partialPaintOK() {
			return
		}
		painted = paintRows(sp, (*[2]unsafe.Pointer)(unsafe.Pointer(&c))[1], csize, tex, src, r, pos, size)
	})
	return painted
}

// paintRows is PaintRegion's GL part, in the window's current context: cv
// is Fyne's canvas, csize its size; img's texture tex shows src at pos,
// size (canvas coordinates); r are the rows of src to put on screen.
func paintRows(sp *scissorPainter, cv unsafe.Pointer, csize fyne.Size, tex uint32, src *image.RGBA, r image.Rectangle, pos fyne.Position, size fyne.Size) bool {
	var vp [4]int32
	gl.GetIntegerv(gl.VIEWPORT, &vp[0])
	fbW, fbH := vp[2], vp[3]
	if fbW <= 0 || fbH <= 0 || csize.Width <= 0 || size.Width <= 0 || size.Height <= 0 {
		return false
	}
	w, h := src.Rect.Dx(), src.Rect.Dy()
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, tex)
	var tw, th int32
	gl.GetTexLevelParameteriv(gl.TEXTURE_2D, 0, gl.TEXTURE_WIDTH, &tw)
	gl.GetTexLevelParameteriv(gl.TEXTURE_2D, 0, gl.TEXTURE_HEIGHT, &th)
	if int(tw) != w || int(th) != h {
		return false // Fyne scaled the image, or the texture is another's
	}
	top := r.Min.Y - src.Rect.Min.Y
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, int32(top), tw, int32(r.Dy()), gl.RGBA, gl.UNSIGNED_BYTE,
		unsafe.Pointer(&src.Pix[src.PixOffset(src.Rect.Min.X, r.Min.Y)]))
	if gl.GetError() != gl.NO_ERROR {
		return false
	}

	// The rows' rectangle in framebuffer pixels, a pixel wider on each
	// side for Fyne's rounding; GL's y axis points up.
	px := float64(fbW) / float64(csize.Width) // framebuffer pixels per canvas unit
	sx, sy := float64(size.Width)/float64(w), float64(size.Height)/float64(h)
	x0 := int32(math.Floor((float64(pos.X)+float64(r.Min.X-src.Rect.Min.X)*sx)*px)) - 1
	x1 := int32(math.Ceil((float64(pos.X)+float64(r.Max.X-src.Rect.Min.X)*sx)*px)) + 1
	y0 := int32(math.Floor((float64(pos.Y)+float64(top)*sy)*px)) - 1
	y1 := int32(math.Ceil((float64(pos.Y)+float64(top+r.Dy())*sy)*px)) + 1
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, fbW), min(y1, fbH)
	if x0 >= x1 || y0 >= y1 {
		return false
	}
	sp.box = [4]int32{x0, fbH - y1, x1 - x0, y1 - y0}
	sp.on = true
	gl.Scissor(x0, fbH-y1, x1-x0, y1-y0)
	gl.Enable(gl.SCISSOR_TEST)
	fyneCanvasPaint(cv, csize)
	sp.on = false
	gl.Disable(gl.SCISSOR_TEST)
	return C.pf_copy_sub(C.int(x0), C.int(fbH-y1), C.int(x1-x0), C.int(y1-y0)) == 1
}
