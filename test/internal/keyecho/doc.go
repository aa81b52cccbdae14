// Package keyecho measures how long a window on an X server takes to show a
// typed key: the time from an XTest key event to the first frame that
// changes the window's pixels, as the X server's DAMAGE extension reports
// it. It is the harness of the key-echo benchmarks (test/gui
// BenchmarkKeyEcho runs it against the desktop app, alacritty and kitty
// under one Xvfb) and of any test that needs keys typed into a real window
// at the X server's level rather than through a tool process.
//
// # What is measured
//
// [Watch.Key] stamps the clock, sends the key press and release through
// XTest (the same path a keyboard takes in the server: the focused
// client receives an ordinary KeyPress), then reads DAMAGE notifications
// for the window. For each notification that touches the region of
// interest it reads that region back (GetImage) and compares it with the
// image taken before the key; the first notification after which the
// region differs ends the sample. When more than one notification arrived
// before the read-back could be made, the change is attributed to the
// last of them, so a sample is never shorter than the truth. A software
// OpenGL client (Mesa llvmpipe) presents a frame with a PutImage into the
// window, which is what DAMAGE reports: the time includes the client's
// event handling, the program's echo, drawing and presenting, and not the
// scan-out of a real display, which Xvfb does not have.
//
// What it does not do: it never decides that a sample is an echo by its
// content; a window that changes on its own (a blinking cursor, a clock)
// must be quiet before each key, which [Watch.Quiet] waits for, and the
// program under test must not blink.
//
// # Concurrency
//
// A [Conn] and the [Watch] values made from it are used by one goroutine
// at a time. Close the Conn when done; it ends its event reader.
package keyecho
