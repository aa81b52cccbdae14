package app

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
)

// keyDialog is one of the shell's dialogs that the keyboard answers
// (showDialogLocked).
type keyDialog struct {
	over          fyne.CanvasObject // the dialog's overlay on the window's canvas
	enter, escape func()            // what Enter and Escape do; nil: nothing
}

// showDialogLocked shows d and lets the keyboard answer it, as a click on
// its buttons does: Enter runs enter and Escape runs escape (nil: the key
// does nothing). Fyne's dialogs take no keys themselves, and focus no
// field. field, when not nil, gets the keyboard, and its Enter and Escape
// answer the dialog; when no widget has the keyboard (a click on the
// dialog's background or a button leaves none focused) the keys reach the
// window's canvas, whose handler asks dialogKeyLocked. enter and escape
// are called without the shell's lock (they may hide d, whose callback
// may take it).
func (s *shell) showDialogLocked(d dialog.Dialog, field *keyEntry, enter, escape func()) {
	d.Show()
	c := s.w.Canvas()
	s.kb.dialogs = append(s.kb.dialogs, keyDialog{over: c.Overlays().Top(), enter: enter, escape: escape})
	if field != nil {
		field.onKey = func(ev *fyne.KeyEvent) bool {
			if f := dialogAnswer(ev.Name, enter, escape); f != nil {
				f()
				return true
			}
			return false
		}
		c.Focus(field)
	}
}

// dialogKeyLocked is what key does to the shell's dialog on top of the
// window: nil when the top overlay is no such dialog or the key does not
// answer it. Dialogs closed since they were shown are forgotten.
func (s *shell) dialogKeyLocked(key fyne.KeyName) func() {
	ov := s.w.Canvas().Overlays()
	open := ov.List()
	s.kb.dialogs = slices.DeleteFunc(s.kb.dialogs, func(d keyDialog) bool { return !slices.Contains(open, d.over) })
	if len(s.kb.dialogs) == 0 {
		return nil
	}
	d := s.kb.dialogs[len(s.kb.dialogs)-1]
	if d.over != ov.Top() {
		return nil
	}
	return dialogAnswer(key, d.enter, d.escape)
}

// dialogAnswer is enter for Return and Enter, escape for Escape, and nil
// for other keys.
func dialogAnswer(key fyne.KeyName, enter, escape func()) func() {
	switch key {
	case fyne.KeyReturn, fyne.KeyEnter:
		return enter
	case fyne.KeyEscape:
		return escape
	}
	return nil
}

// escapeLocked closes the shell's overlay on top (see [overlay]), the
// agents overview or the composer, and
// reports whether one was open. It is what Escape does when it reaches
// the window's canvas, which happens once a click left no widget with
// the keyboard (the views' own fields take Escape while they have it).
func (s *shell) escapeLocked() bool {
	switch {
	case s.views.top != nil:
		s.closeOverlayLocked()
	case s.chrome.ov != nil:
		s.closeOverviewLocked()
	case s.chrome.comp != nil && s.chrome.comp.pane != 0:
		s.chrome.comp.close()
	default:
		return false
	}
	return true
}
