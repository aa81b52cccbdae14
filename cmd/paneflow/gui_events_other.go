//go:build !nogui && !client && (!linux || wayland)

package main

import "github.com/paneflow-go/paneflow/app"

// eventWaiter returns nil: outside Linux, Fyne's loop polls as it does by
// default (the event wait is untested there).
func eventWaiter() app.EventWaiter { return nil }
