//go:build !nogui && !client && !wayland

package main

/*
#cgo pkg-config: x11
#include <X11/Xlib.h>

// pf_x_pending flushes the connection's output and returns how many events
// are queued, reading what the server sent (XPending).
static int pf_x_pending(void *d) { return XPending((Display *)d); }

// pf_x_fd returns the connection's file descriptor.
static int pf_x_fd(void *d) { return ConnectionNumber((Display *)d); }
*/
import "C"

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
	"golang.org/x/sys/unix"

	"github.com/paneflow-go/paneflow/app"
)

// glfwEvents is the event wait of GLFW, which Fyne's desktop driver is
// built on: with it the app sleeps while idle instead of polling 60 times
// a second. Only Linux uses it: on Windows and macOS it is untested.
//
// The wait itself is Go's, not GLFW's: the X connection is waited for
// through Go's network poller (a duplicate of its descriptor), then GLFW
// handles what arrived. GLFW's own wait (glfwWaitEventsTimeout: ppoll in C)
// is a cgo call, and a goroutine in a cgo call keeps its P in the runtime's
// syscall state: the runtime's sysmon thread then does not rest but checks
// every 20 µs, and retakes that P after 10 ms, which starts it over. The
// app waits this way between all of Fyne's ticks for a second after any
// input (the idler's short naps), so while the user typed, the window's
// sysmon thread woke ~2,700 times a second, half of the window's CPU
// (25-33 ms per key on this project's 2-core VM, where a context switch is
// dear: `perf record` of the window, `strace -f`: 3,725 nanosleep(20 µs)
// of sysmon in 2 s of typing). Waiting in the poller parks the goroutine
// and frees its P; sysmon sleeps until the next timer.
//
// The zero value is ready to use; x is set by the first WaitEvents, on the
// UI thread. Wake is safe for concurrent use.
type glfwEvents struct {
	x atomic.Pointer[xWait] // nil until the first WaitEvents; see xWait.failed
	// once guards setting x up.
	once sync.Once
	// woken is set by Wake before it ends a wait, so that a Wake that
	// comes before the wait began (or before x was set up) is not lost.
	woken atomic.Bool
}

// xWait is the X connection as Go's poller sees it.
type xWait struct {
	// failed: no X connection could be waited for (no X11 display, as
	// under Wayland, or the descriptor would not go in the poller):
	// GLFW's own wait and wake are used.
	failed  bool
	display unsafe.Pointer // the Xlib Display GLFW opened
	file    *os.File       // a duplicate of the connection's descriptor, in Go's poller
	raw     syscall.RawConn
}

// setup finds GLFW's X connection and puts a duplicate of its descriptor
// (already non-blocking: XCB keeps it so) in Go's poller. It runs on the
// UI thread, after GLFW was initialised.
func (e *glfwEvents) setup() {
	e.once.Do(func() {
		w := &xWait{failed: true}
		defer func() { e.x.Store(w) }()
		d := unsafe.Pointer(glfw.GetX11Display())
		if d == nil {
			return
		}
		fd, err := syscall.Dup(int(C.pf_x_fd(d)))
		if err != nil {
			return
		}
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			syscall.Close(fd)
			return
		}
		f := os.NewFile(uintptr(fd), "x11-connection")
		raw, err := f.SyscallConn()
		if err != nil || f.SetReadDeadline(time.Time{}) != nil { // not in the poller
			f.Close()
			return
		}
		*w = xWait{display: d, file: f, raw: raw}
	})
}

// WaitEvents waits for events on the main thread, where the app calls it,
// and handles them.
func (e *glfwEvents) WaitEvents(timeout time.Duration) {
	e.setup()
	w := e.x.Load()
	switch {
	case e.woken.Swap(false):
		// Woken before the wait: a Wake that saw no x set up yet, or
		// the deadline of one that came after the last wait ended.
	case w.failed:
		glfw.WaitEventsTimeout(timeout.Seconds())
		return
	case C.pf_x_pending(w.display) == 0:
		e.wait(w, timeout)
	}
	glfw.PollEvents()
}

// wait returns once the X connection has something to read, Wake was
// called, or timeout passed.
func (e *glfwEvents) wait(w *xWait, timeout time.Duration) {
	if w.file.SetReadDeadline(time.Now().Add(timeout)) != nil {
		return
	}
	if e.woken.Swap(false) { // Wake's deadline may have come before ours
		return
	}
	first := true
	err := w.raw.Read(func(fd uintptr) bool {
		// The first call looks whether the connection is readable now:
		// the poller forgot readiness it saw before this read began, so
		// what arrived since pf_x_pending is found here, and what comes
		// later wakes the poller. Not readable: "not yet", and the
		// poller waits; its next call is that moment. The data is left
		// for Xlib to read.
		if first {
			first = false
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(p, 0)
			return err != nil || n > 0
		}
		return true
	})
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		// The poller cannot wait on it after all: do not spin.
		time.Sleep(min(timeout, time.Millisecond))
	}
	e.woken.Store(false)
}

// Wake ends a WaitEvents in progress. It may be called from any goroutine.
func (e *glfwEvents) Wake() {
	e.woken.Store(true)
	switch w := e.x.Load(); {
	case w == nil:
		// Not set up yet: WaitEvents finds woken.
	case w.failed:
		postEmptyEvent()
	default:
		w.file.SetReadDeadline(time.Unix(1, 0)) // in the past: the wait returns
	}
}

// postEmptyEvent wakes GLFW's own wait, which GLFW allows from any
// thread.
//
// go-gl hands GLFW errors over through one process-wide channel, so this
// call, made off the UI thread, can take an error that a GLFW call on the
// UI thread raised at the same moment (a clipboard read inside the wait)
// and panic with it. That error is not Wake's: it is dropped, and the
// call that raised it sees none, which go-gl's callers treat as success.
func postEmptyEvent() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(*glfw.Error); !ok {
				panic(r)
			}
		}
	}()
	glfw.PostEmptyEvent()
}

// eventWaiter returns the event wait the app sleeps in when idle.
func eventWaiter() app.EventWaiter { return &glfwEvents{} }

// fyneDrawFrame is the body of one tick of Fyne's desktop loop after its
// event poll: every window whose canvas is dirty is painted and its
// buffers swapped (glfw.(*gLDriver).drawSingleFrame in Fyne 2.7.1).
//
//go:linkname fyneDrawFrame fyne.io/fyne/v2/internal/driver/glfw.(*gLDriver).drawSingleFrame
func fyneDrawFrame(d unsafe.Pointer)

// PaintNow paints the dirty windows at once instead of at Fyne's next
// tick. It runs on the UI thread only.
func (*glfwEvents) PaintNow() {
	d := fyne.CurrentApp().Driver()
	fyneDrawFrame((*[2]unsafe.Pointer)(unsafe.Pointer(&d))[1])
}
