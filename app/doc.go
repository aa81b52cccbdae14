// Package app is Paneflow's desktop window: a Fyne shell around the same
// headless core `paneflow serve` runs, hosted in-process, so every CLI verb
// and socket method works against a running window.
//
// The window has a sidebar with one card per workspace (its panes, their
// working directories, commands, exit codes, agent states and what their
// agents used, and the workspace's total) and, on the
// right, the active workspace's split tree: one terminal view
// (app/termview) per pane, with draggable dividers, zoom, keyboard focus
// moves, layout presets and splits. Keys go through the keymap
// (app/keymap) before a view encodes them. The shell follows the model
// through the event bus (never by polling, except a slow refresh of
// working directories and commands, which no event carries), sends
// desktop notifications when an agent needs the user while the window is
// unfocused, reloads the configuration file when it changes, and keeps
// the session file (package session) up to date.
//
// The package does not draw terminals (app/termview and app/render do),
// does not know key names (app/keymap) and does not parse configuration
// (config). Only cmd/paneflow's GUI entry creates the Fyne app (the GLFW
// driver needs cgo); this package works with any fyne.App, including the
// test driver.
//
// # Concurrency
//
// [Run] runs on the main goroutine. UI state is touched only on Fyne's UI
// goroutine; model changes run on a worker goroutine so the UI never
// waits for a program to start, and model reads that probe /proc run on
// the bus reader goroutine. Every goroutine the package starts is stopped
// and waited for before Run returns.
package app
