// Package attach is the client side of screen streaming: a window (or any
// other client) attaches to a Paneflow server's panes over its socket and
// keeps a mirror of each pane's screen from the server's screen.attach
// frames, instead of reading the program's bytes.
//
// [Dial] opens one attachment (a screen.attach stream plus an ipc.Mux for
// the on-demand calls); [Client.Pane] gives each pane as a [Pane], which has
// the method set of the window's termview.Pane: Snapshot draws from the
// mirror, scrollback and text are fetched on demand (screen.rows,
// screen.lines) and cached, input and resize are calls. The [Encoder] is the
// server's half: per client and pane it diffs the current snapshot against
// what that client was last sent and encodes only the changed rows; api's
// screen.attach paces and sends its frames. ARCHITECTURE.md's "Screen
// streaming" section has the protocol, pacing and backpressure.
//
// A Client and its Panes are safe for concurrent use. The package does not
// import Fyne, so the CLI-only build can link it.
package attach
