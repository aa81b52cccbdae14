//go:build !nogui && !client

package main

import (
	"time"
	"unsafe"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/paneflow-go/paneflow/app"
)

// glfwEvents is GLFW's event wait, which Fyne's desktop driver is built on:
// with it the app sleeps while idle instead of polling 60 times a second.
// Only Linux uses it: on Windows and macOS it is untested.
type glfwEvents struct{}

// WaitEvents waits for events on the main thread, where the app calls it.
func (glfwEvents) WaitEvents(timeout time.Duration) { glfw.WaitEventsTimeout(timeout.Seconds()) }

// Wake posts an empty event, which GLFW allows from any thread.
//
// go-gl hands GLFW errors over through one process-wide channel, so this
// call, made off the UI thread, can take an error that a GLFW call on the
// UI thread raised at the same moment (a clipboard read inside the wait)
// and panic with it. That error is not Wake's: it is dropped, and the
// call that raised it sees none, which go-gl's callers treat as success.
func (glfwEvents) Wake() {
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
func eventWaiter() app.EventWaiter { return glfwEvents{} }

// fyneDrawFrame is the body of one tick of Fyne's desktop loop after its
// event poll: every window whose canvas is dirty is painted and its
// buffers swapped (glfw.(*gLDriver).drawSingleFrame in Fyne 2.7.1).
//
//go:linkname fyneDrawFrame fyne.io/fyne/v2/internal/driver/glfw.(*gLDriver).drawSingleFrame
func fyneDrawFrame(d unsafe.Pointer)

// PaintNow paints the dirty windows at once instead of at Fyne's next
// tick. It runs on the UI thread only.
func (glfwEvents) PaintNow() {
	d := fyne.CurrentApp().Driver()
	fyneDrawFrame((*[2]unsafe.Pointer)(unsafe.Pointer(&d))[1])
}
