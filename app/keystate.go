package app

import (
	"sync/atomic"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/termview"
)

// keyState is what the shell knows of the keyboard beyond its widgets:
// the modifiers held while keys reach the canvas (the desktop driver
// reports modifiers only as key presses, so they are tracked), whether
// the window has the keyboard focus (notifications are sent only when it
// has not), and the pane whose view the shell is focusing right now (its
// OnFocus must not ask the model to focus it again), and the dialogs the
// keyboard answers, oldest first (showDialogLocked).
//
// Its zero value holds no modifier, says the window is not focused and
// focuses no pane.
//
// # Concurrency
//
// held and dialogs are guarded by shell.mu. stale, windowFocused and focusing are
// atomics: Fyne's lifecycle hooks set the first two without mu (the GLFW
// driver runs them inside its Quit, which the shell calls holding mu),
// and a view's OnFocus reads the last while the shell may hold mu.
type keyState struct {
	held          fyne.KeyModifier
	dialogs       []keyDialog
	stale         atomic.Bool // held must be forgotten at the next key: the focus moved
	windowFocused atomic.Bool
	focusing      atomic.Uint64
}

// mods returns the modifiers held, after forgetting them if the focus
// moved since the last key (forget). shell.mu must be held.
func (k *keyState) mods() fyne.KeyModifier {
	if k.stale.Swap(false) {
		k.held = 0
	}
	return k.held
}

// down notes a key pressed on the canvas and reports whether it is a
// modifier (then held until up). shell.mu must be held.
func (k *keyState) down(name fyne.KeyName) bool {
	m := termview.ModifierOf(name)
	k.held |= m
	return m != 0
}

// up notes a key released on the canvas. shell.mu must be held.
func (k *keyState) up(name fyne.KeyName) { k.held &^= termview.ModifierOf(name) }

// forget says the keyboard focus left the canvas (modifiers released
// meanwhile never reach it): mods forgets what is held at the next key.
// Any goroutine.
func (k *keyState) forget() { k.stale.Store(true) }

// setWindowFocused records whether the window has the keyboard focus;
// either way the held modifiers are forgotten. Any goroutine.
func (k *keyState) setWindowFocused(focused bool) {
	k.windowFocused.Store(focused)
	k.stale.Store(true)
}

// focus runs f (which focuses pane id's view) with id noted as the pane
// the shell focuses, for selfFocused.
func (k *keyState) focus(id uint64, f func()) {
	k.focusing.Store(id)
	f()
	k.focusing.Store(0)
}

// selfFocused reports whether pane id's view is being focused by the
// shell itself (inside focus). Any goroutine, without shell.mu.
func (k *keyState) selfFocused(id uint64) bool { return k.focusing.Load() == id }
