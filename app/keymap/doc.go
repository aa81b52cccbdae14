// Package keymap maps keystrokes to the desktop app's actions (spec gui.md
// §2): the default bindings for an operating system, the user's
// [shortcuts] overrides from paneflow.toml layered over them, lookup of
// the keys the toolkit delivers, and labels for menus and tooltips.
//
// It is plain data over Fyne's key names and modifier bits (fyne.KeyName,
// fyne.KeyModifier); it uses no driver and runs no action. The app
// decides what an action does and in which context (a terminal-only
// action such as terminal_copy does nothing when no pane has the focus).
//
// "secondary" in a keystroke is the platform's primary shortcut modifier:
// Cmd (Super) on macOS, Ctrl elsewhere. Plain Ctrl+C is never bound on any
// platform: it belongs to the program in the pane.
//
// # Keystroke syntax
//
// A keystroke is modifiers and one key joined by "+" or "-", in any case:
// "ctrl+shift+d", "secondary-shift-d", "cmd+=", "alt+left",
// "shift+pageup", "f5". Modifiers are ctrl (control), shift, alt (option,
// opt), super (cmd, command, win) and secondary. Keys are letters, digits,
// f1–f12, named keys (left, right, up, down, home, end, pageup, pagedown,
// tab, enter, escape, space, backspace, delete, insert) and punctuation,
// written as the character or by name ("=" or "equal", "-" or "minus",
// "+" or "plus", …). See [ParseBinding].
//
// # Scopes
//
// Most actions act wherever the keyboard is ([Window]); the Diff view's
// ([DiffView]) are looked up only by that view ([Map.LookupIn]), so
// their plain-letter keys never reach a pane's program. A keystroke may
// be bound in both scopes at once.
//
// # Concurrency
//
// A [Map] is not safe for concurrent mutation: build it (Default,
// Override) on one goroutine, then share it read-only or Clone it.
package keymap
