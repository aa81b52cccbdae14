//go:build linux

package gui

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"syscall"
)

// framebuffer is Xvfb's screen, read straight from the file Xvfb maps its
// framebuffer to (-fbdir), with no X round trip: fast enough to poll for
// the first changed pixel after a key press.
type framebuffer struct {
	data []byte // the whole mapped file
	off  int    // where the pixels start
	bpl  int    // bytes per line
	w, h int
}

// openFB maps screen 0 of x read-only.
func openFB(x *xserver) (*framebuffer, error) {
	f, err := os.Open(filepath.Join(x.fbdir, "Xvfb_screen0"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	// An XWD file: a header of big-endian 32-bit fields, the window name,
	// ncolors colour entries of 12 bytes, then the pixels.
	if len(data) < 100 {
		syscall.Munmap(data)
		return nil, fmt.Errorf("framebuffer file is %d bytes", len(data))
	}
	be := binary.BigEndian
	field := func(i int) int { return int(be.Uint32(data[4*i:])) }
	headerSize, w, h, bpp, bpl, ncolors := field(0), field(4), field(5), field(11), field(12), field(19)
	fb := &framebuffer{data: data, off: headerSize + 12*ncolors, bpl: bpl, w: w, h: h}
	if bpp != 32 || fb.off+bpl*h > len(data) || w*4 > bpl {
		syscall.Munmap(data)
		return nil, fmt.Errorf("unexpected framebuffer layout: %dx%d, %d bits per pixel, %d bytes per line, pixels at %d of %d bytes",
			w, h, bpp, bpl, fb.off, len(data))
	}
	return fb, nil
}

// close unmaps the framebuffer.
func (fb *framebuffer) close() { syscall.Munmap(fb.data) }

// copyRect appends the pixels of r (screen coordinates) to dst.
func (fb *framebuffer) copyRect(dst []byte, r image.Rectangle) []byte {
	r = r.Intersect(image.Rect(0, 0, fb.w, fb.h))
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := fb.off + y*fb.bpl
		dst = append(dst, fb.data[row+4*r.Min.X:row+4*r.Max.X]...)
	}
	return dst
}

// same reports whether the pixels of r still equal snap, a copyRect of r.
func (fb *framebuffer) same(snap []byte, r image.Rectangle) bool {
	r = r.Intersect(image.Rect(0, 0, fb.w, fb.h))
	n := 4 * r.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := fb.off + y*fb.bpl + 4*r.Min.X
		i := (y - r.Min.Y) * n
		if !bytes.Equal(fb.data[row:row+n], snap[i:i+n]) {
			return false
		}
	}
	return true
}
