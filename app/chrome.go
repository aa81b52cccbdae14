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

// chrome is the window's widgets around the panes: the split area and
// the place it stands in (the agents overview takes that place), the
// sidebar in its resizable panel, the workspace tabs, the banner, undo
// close's toast, the prompt composer under the panes and the first-start
// hint. The shell builds it
// (buildWindowLocked) and keeps it under its lock; the widgets' own
// methods run on the UI goroutine.
type chrome struct {
	area      *splitArea
	center    *fyne.Container // holds area, or the agents overview in its place
	ov        *overview       // the open agents overview (in center), nil when closed
	comp      *composer       // the prompt composer under the panes (hidden when closed)
	side      *sidebar
	sidePanel *sidePanel // side at its dragged width, or collapsed
	toast     *toast     // undo close's "Pane closed — Undo" (undoclose.go)
	tabs      *tabStrip  // the workspaces as tabs above the panes (tabstrip.go)
	banner    *banner
	hint      *hintBar // the first-start hint while shown, else nil (onboarding.go)
	// probes are what the UI probes (PANEFLOW_UI_PROBE=1) wrote last
	// about these widgets: the sidebar's hosts, its and the overview's
	// usage lines.
	probes uiProbes
	// pending are the messages for the banner found before it existed
	// (session restore, configuration, Options.Notices); build shows them.
	pending []string
}

// notice shows msg in the banner, or keeps it for when the banner is
// built.
func (c *chrome) notice(msg string) {
	if c.banner == nil {
		c.pending = append(c.pending, msg)
		return
	}
	c.banner.show(msg)
}

// hideHint hides the first-start hint for good. The caller holds the
// shell's lock.
func (c *chrome) hideHint() {
	if c.hint == nil {
		return
	}
	c.hint.root.Hide()
	c.hint = nil
}

// buildBanner makes the banner, showing the messages kept for it.
func (c *chrome) buildBanner() {
	c.banner = newBanner()
	for _, m := range c.pending {
		c.banner.show(m)
	}
	c.pending = nil
}

// layout builds the window's content: the banner above everything, the
// sidebar's panel on the left, and top, the center (the split area, or
// the overview) and bottom in a column under which the toast floats.
// The split area, the sidebar and the banner must be built.
func (c *chrome) layout(top, bottom fyne.CanvasObject) fyne.CanvasObject {
	c.center = container.NewStack(c.area)
	main := container.NewBorder(top, bottom, nil, nil, c.center)
	c.sidePanel = newSidePanel(c.side)
	c.toast = newToast()
	content := container.NewBorder(c.banner.root, nil, c.sidePanel, nil, container.NewStack(main, c.toast.layer))
	// A new sidebar width moves the panes' edge: they, and so their PTYs,
	// get the new size as on a window resize.
	c.sidePanel.onResize = func() { relayout(content) }
	c.banner.relayout = func() { relayout(content) }
	return content
}

// showCenter puts o where the split area stands (the agents overview),
// or the split area back when o is nil.
func (c *chrome) showCenter(o fyne.CanvasObject) {
	if o == nil {
		o = c.area
	}
	c.center.Objects = []fyne.CanvasObject{o}
	c.center.Refresh()
}

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
		s.work.mutate("rename", func() error { return s.b.Rename(id, name) })
	}, s.w)
	s.showDialogLocked(d, entry, d.Submit, d.Hide)
}
