//go:build !nogui && !client && !windows

package main

import "fyne.io/fyne/v2"

// guiApp returns the app the window runs on: a itself (Fyne's
// notifications pass their text as D-Bus arguments, or in an AppleScript
// string with both its escapes applied, here).
func guiApp(a fyne.App, _ func(string, ...any)) (fyne.App, func()) { return a, func() {} }
