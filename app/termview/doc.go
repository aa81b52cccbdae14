// Package termview is the Fyne widget that shows one Paneflow pane: it
// renders the pane's emulator screen (through app/render), encodes keys,
// text, mouse and paste for the program with the terminal package's
// encoders, and handles selection, copy, scrollback, find, links and the
// bell.
//
// # Usage
//
// The app adapts a pane to [Pane] and creates a [View] with [New]; the View
// is an ordinary fyne.Widget to put in a container. The app calls
// [View.Close] when the pane goes away, and drives the rest through
// methods: [View.SetFonts], [View.SetPalette], [View.ScrollPages],
// [View.ScrollToBottom], [View.Find], [View.Copy], [View.Paste],
// [View.Cells], [View.SetAttention] and Refresh. [Options.Keys] sees every
// key press first, so application keybindings win over the program.
//
// Built-in bindings (after Options.Keys): Ctrl+Shift+C / Ctrl+Shift+V (Cmd+C
// / Cmd+V on macOS), Ctrl+Insert and Shift+Insert copy and paste;
// Shift+PageUp/PageDown scroll on the main screen. Ctrl+C and every other
// chord reach the program. Mouse: drag selects (Alt+drag a block), double
// click a word, triple click the line; selections are copied to the
// clipboard when made. Ctrl+click (Cmd+click) opens an OSC 8 hyperlink or
// a plain http, https or file URL, underlined while hovered with the
// modifier held. When the program enabled mouse reporting, the mouse goes
// to it and Shift selects instead. The wheel scrolls the scrollback, sends
// arrow keys on the alternate screen, or is reported.
//
// # Copy mode
//
// [View.EnterCopyMode] starts a keyboard copy mode like tmux's vi mode:
// a block cursor moved with vi keys over the screen and the scrollback
// (moving past the top scrolls back), v / V / Ctrl+V selections, y to
// yank to the clipboard, / and ? searching with the find bar's search, n
// and N; the mode shows at the top right. Its keys never reach the
// program, and the view holds still while output arrives. The state
// machine (copymode.go) reads lines through a small interface, the View
// implementing it over pane snapshots, so an attached window fetches only
// the scrollback lines the cursor reaches.
//
// # What it does not do
//
// It has no primary selection (Fyne has none). The search runs over the
// text of the scrollback and the screen again when the query changes or
// new output arrived; matches do not follow lines that the emulator
// reflows on a width change until the next search.
//
// # Frames
//
// A watcher goroutine per View waits on [Pane.Watch] and posts at most one
// frame at a time with fyne.Do, at most 60 per second; an idle pane costs
// no wake-ups. A frame snapshots the pane, lets the renderer redraw the
// rows that changed into one RGBA image (a canvas.Image at device pixel
// size) and refreshes the image only when rows changed. Synchronized
// updates (DECSET 2026) hold frames for up to 150 ms. The visual bell,
// cursor blink (only while focused, stopping after 10 s without input) and
// the probe use one-shot timers.
//
// # Concurrency
//
// The View's state is owned by the Fyne UI goroutine; see [View] for the
// details. Pane implementations must be safe for concurrent use.
package termview
