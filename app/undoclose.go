package app

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/workspace"
)

// reopenLocked is the reopen_closed action (undo close): the server puts
// back the pane or workspace closed last, with its programs; the window
// follows from the server's events.
func (s *shell) reopenLocked() {
	s.chrome.toast.hide()
	s.work.mutate("reopen", s.b.Reopen)
}

// closedToast shows "<what> closed — Undo" after a close that succeeded
// (err nil), for the server's undo window, and returns err. It runs on
// the worker goroutine (inside mutate).
func (s *shell) closedToast(what string, err error) error {
	if err != nil {
		return err
	}
	s.do(func() {
		msg := what + " closed"
		if k := s.conf.keys.Label(keymap.ReopenClosed); k != "" {
			msg += " (" + k + " reopens it)"
		}
		s.chrome.toast.show(msg, func() { s.guard(s.reopenLocked) }, workspace.DefaultUndoWindow, s.do)
	})
	return nil
}

// toast is a note with one button at the bottom right of the window,
// over the panes (it takes no room from them and no keyboard focus):
// undo close's "Pane closed — Undo". Its methods run on the UI goroutine
// holding the shell's lock, its timer's hiding too (through post).
type toast struct {
	layer *fyne.Container // what the window stacks over its panes
	box   *fyne.Container
	text  *widget.Label
	undo  *widget.Button
	shown int // counts show calls: an older one's timer hides nothing

	timer   *time.Timer // hides the toast shown last; nil before the first show
	stopped bool        // the window is closing: a timer that fired does nothing
}

func newToast() *toast {
	t := &toast{text: widget.NewLabel(""), undo: widget.NewButton("Undo", nil)}
	t.undo.Importance = widget.HighImportance
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = color.NRGBA{A: 0x60}
	bg.StrokeWidth = 1
	bg.CornerRadius = theme.InputRadiusSize()
	t.box = container.NewStack(bg, container.NewPadded(container.NewHBox(t.text, t.undo)))
	t.box.Hide()
	t.layer = container.New(cornerLayout{}, t.box)
	return t
}

// show shows msg with the Undo button running undo, for d; post runs the
// hiding on the UI goroutine once d passed (holding the shell's lock, as
// every method of toast runs). A later show replaces the timer.
func (t *toast) show(msg string, undo func(), d time.Duration, post func(func())) {
	t.shown++
	n := t.shown
	t.text.SetText(msg)
	t.undo.OnTapped = undo
	t.box.Show()
	t.layer.Refresh()
	if t.timer != nil {
		t.timer.Stop()
	}
	t.timer = time.AfterFunc(d, func() {
		post(func() {
			if t.shown == n && !t.stopped {
				t.hide()
			}
		})
	})
}

// stop ends the toast's timer when the window closes: a minute's timer
// must not touch the window (or, in tests, Fyne's shared state under
// another window's lock) after it is gone.
func (t *toast) stop() {
	t.stopped = true
	if t.timer != nil {
		t.timer.Stop()
	}
}

// hide hides the toast.
func (t *toast) hide() {
	t.box.Hide()
	t.undo.OnTapped = nil
	t.layer.Refresh()
}

// visible reports whether the toast shows.
func (t *toast) visible() bool { return t.box.Visible() }

// cornerLayout puts its objects at their minimum size in the bottom right
// corner; it asks for no room.
type cornerLayout struct{}

func (cornerLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := 2 * theme.Padding()
	for _, o := range objs {
		ms := o.MinSize()
		o.Resize(ms)
		o.Move(fyne.NewPos(size.Width-ms.Width-pad, size.Height-ms.Height-pad))
	}
}

func (cornerLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }
