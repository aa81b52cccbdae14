// Package termview is the Fyne widget that shows one Paneflow pane: it
// renders the pane's emulator screen (through app/render), encodes keys,
// text, mouse and paste for the program with the terminal package's
// encoders, and handles selection, copy, scrollback, find, links and the
// bell.
package termview
