// Package terminal runs programs on pseudo-terminals and models their screen.
//
// It is the part of Paneflow every other subsystem stands on: the headless
// server, the GUI's terminal widget and the socket API all read panes
// through it. It has three layers:
//
//   - [PTY] starts a program on a pseudo-terminal (creack/pty on Unix,
//     ConPTY on Windows), resizes it, kills its process group and reports
//     its foreground process.
//   - [Emulator] is an xterm-compatible screen model built on the x/ansi
//     parser: cells with colours and attributes, wide characters and
//     grapheme clusters, scroll regions, the alternate screen, modes, and a
//     compact scrollback that reflows on resize. It answers snapshots, text
//     reads and searches, and notifies waiters of new output.
//   - [Terminal] joins the two: a reader goroutine feeds program output to
//     the emulator and a writer goroutine delivers input and query replies,
//     so neither side can block the other.
//
// The input encoders ([EncodeKey], [EncodePaste], [EncodeMouse]) turn key,
// paste and mouse events into the bytes a program expects under the modes
// it enabled ([InputModes]).
//
// The package does not render anything and does not import Fyne or any
// other Paneflow package.
//
// # Concurrency
//
// Emulator and Terminal methods are safe for concurrent use. Emulator.Write
// holds the emulator's lock while it parses one chunk; read methods hold it
// only long enough to copy what they return. Callbacks in
// [EmulatorOptions] run after the lock is released.
package terminal
