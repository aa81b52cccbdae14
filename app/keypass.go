package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// canvasKeys are the window's handlers of keys that no widget takes: the
// canvas calls them while nothing has the keyboard focus, and a
// passButton calls them for the keys it has no use for.
type canvasKeys struct {
	typed, down, up func(*fyne.KeyEvent)
}

// passButton is a button that passes on the keys it has no use for. Fyne
// gives every key to the widget that has the keyboard focus, and to the
// canvas only when none has; a plain widget.Button focused by Tab uses
// Space and drops every other key, so a view's keys, which the canvas
// handles (the Diff view's hunk keys, Escape), were dead until a click
// took its focus away. Space presses it, as a plain button's; every
// other key, and the presses and releases of each (the held modifiers
// the canvas tracks), go on to the canvas's handlers.
type passButton struct {
	widget.Button
	keys *canvasKeys
}

func newPassButton(text string, icon fyne.Resource, tapped func(), keys *canvasKeys) *passButton {
	b := &passButton{Button: widget.Button{Text: text, Icon: icon, OnTapped: tapped}, keys: keys}
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey presses the button on Space and passes any other key on.
func (b *passButton) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeySpace {
		b.Button.TypedKey(ev)
		return
	}
	if b.keys != nil && b.keys.typed != nil {
		b.keys.typed(ev)
	}
}

// KeyDown passes the press on (desktop.Keyable).
func (b *passButton) KeyDown(ev *fyne.KeyEvent) {
	if b.keys != nil && b.keys.down != nil {
		b.keys.down(ev)
	}
}

// KeyUp passes the release on (desktop.Keyable).
func (b *passButton) KeyUp(ev *fyne.KeyEvent) {
	if b.keys != nil && b.keys.up != nil {
		b.keys.up(ev)
	}
}
