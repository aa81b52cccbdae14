package app

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
)

// maxBannerLines caps the messages the banner keeps.
const maxBannerLines = 6

// banner is a dismissable strip above everything that shows problems
// (bad configuration values, refused actions). Its methods run on the UI
// goroutine.
type banner struct {
	root  *fyne.Container
	text  *widget.Label
	lines []string
	// action is the banner's one button (the lost server's restart),
	// hidden when there is none.
	action *widget.Button
	// close dismisses the banner.
	close *widget.Button
	// relayout lays out the container the banner is in (nil: none yet).
	// Fyne's Show and a label's new text do not: a banner shown again
	// after a dismiss, with the size it had, kept the place it was last
	// given, drawn over the toolbar, and one that gained a line kept its
	// height, its last line cut off (the canvas lays out a parent only
	// when a child's minimum size changed since it last looked).
	relayout func()
}

func newBanner() *banner {
	b := &banner{text: widget.NewLabel(""), action: widget.NewButton("", nil)}
	b.text.Wrapping = fyne.TextWrapWord
	b.text.Importance = widget.WarningImportance
	b.action.Importance = widget.HighImportance
	b.action.Hide()
	b.close = widget.NewButtonWithIcon("", theme.CancelIcon(), b.dismiss)
	b.close.Importance = widget.LowImportance
	b.root = container.NewBorder(nil, nil, nil, container.NewHBox(b.action, b.close), b.text)
	b.root.Hide()
	return b
}

// showAction adds a message with the banner's button labelled label
// running f (replacing any earlier button); an empty label removes the
// button.
func (b *banner) showAction(msg, label string, f func()) {
	b.action.SetText(label)
	b.action.OnTapped = f
	if label == "" {
		b.action.Hide()
	} else {
		b.action.Show()
	}
	b.show(msg)
}

// show adds a message (repeats of the last one are not added twice).
func (b *banner) show(msg string) {
	if n := len(b.lines); n > 0 && b.lines[n-1] == msg {
		return
	}
	b.lines = append(b.lines, msg)
	if len(b.lines) > maxBannerLines {
		b.lines = b.lines[len(b.lines)-maxBannerLines:]
	}
	b.text.SetText(strings.Join(b.lines, "\n"))
	b.root.Show()
	b.changed()
}

// changed lays out the banner's container after the banner's text or
// visibility changed: twice when the first gave the text a new width at
// which it wraps onto another number of lines.
func (b *banner) changed() {
	if b.relayout == nil {
		return
	}
	h := b.root.MinSize().Height
	b.relayout()
	if b.root.Visible() && b.root.MinSize().Height != h {
		b.relayout()
	}
}

// drop forgets the messages that start with prefix (a configuration's
// problems once the file was read again), hiding the banner when none is
// left.
func (b *banner) drop(prefix string) {
	kept := slices.DeleteFunc(slices.Clone(b.lines), func(l string) bool { return strings.HasPrefix(l, prefix) })
	if len(kept) == len(b.lines) {
		return
	}
	if len(kept) == 0 {
		b.dismiss()
		return
	}
	b.lines = kept
	b.text.SetText(strings.Join(b.lines, "\n"))
	b.changed()
}

// dismiss hides the banner and forgets its messages.
func (b *banner) dismiss() {
	b.action.Hide()
	b.action.OnTapped = nil
	b.lines = nil
	b.text.SetText("")
	b.root.Hide()
	b.changed()
}

// toolbarLocked builds the row of buttons above the panes.
func (s *shell) toolbarLocked() fyne.CanvasObject {
	act := func(a keymap.Action) func() {
		return func() { s.guard(func() { s.runActionLocked(a) }) }
	}
	btn := func(label string, a keymap.Action) *widget.Button {
		b := widget.NewButton(label, act(a))
		b.Importance = widget.LowImportance
		return b
	}
	presets := widget.NewSelect([]string{"even horizontal", "even vertical", "main vertical", "tiled"}, nil)
	presets.PlaceHolder = "Layout"
	presets.OnChanged = func(v string) {
		actions := map[string]keymap.Action{
			"even horizontal": keymap.LayoutEvenHorizontal, "even vertical": keymap.LayoutEvenVertical,
			"main vertical": keymap.LayoutMainVertical, "tiled": keymap.LayoutTiled,
		}
		if a, ok := actions[v]; ok {
			s.guard(func() { s.runActionLocked(a) })
		}
		presets.ClearSelected()
	}
	return container.NewHBox(
		btn("Split →", keymap.SplitVertically),
		btn("Split ↓", keymap.SplitHorizontally),
		btn("Zoom", keymap.ToggleZoom),
		btn("Equalize", keymap.SplitEqualize),
		btn("Rename", keymap.RenamePane),
		btn("Close pane", keymap.ClosePane),
		presets,
	)
}

// closeRequestedLocked handles the window's close button: it asks first
// when programs other than shells run in panes that would end with the
// window (never when they outlive it: an attached window detaches; the
// quit action asks, quitRequestedLocked).
func (s *shell) closeRequestedLocked() {
	if s.b.OutlivesWindow() {
		s.quitLocked()
		return
	}
	busy := s.b.BusyPanes()
	if busy == 0 {
		s.quitLocked()
		return
	}
	msg := fmt.Sprintf("%d pane is running a program. Quit Paneflow and stop it?", busy)
	if busy > 1 {
		msg = fmt.Sprintf("%d panes are running programs. Quit Paneflow and stop them?", busy)
	}
	d := dialog.NewConfirm("Quit Paneflow?", msg, func(ok bool) {
		if ok {
			s.guard(s.quitLocked)
		}
	}, s.w)
	s.showDialogLocked(d, nil, d.Confirm, d.Hide)
}

// renameLocked asks for a new name for pane id.
func (s *shell) renameLocked(id uint64) {
	in, ok := s.b.SurfaceInfo(id)
	if !ok {
		return
	}
	entry := newKeyEntry(false)
	entry.SetText(in.CustomName)
	entry.SetPlaceHolder("automatic name")
	d := dialog.NewForm("Rename pane", "Rename", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", entry)}, func(ok bool) {
		if !ok {
			return
		}
		name := entry.Text
		s.mutate("rename", func() error { return s.b.Rename(id, name) })
	}, s.w)
	s.showDialogLocked(d, entry, d.Submit, d.Hide)
}
