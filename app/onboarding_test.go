//go:build !windows

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/proto"
)

// labelWith reports whether o, or an object inside it, is a label whose
// text holds want.
func labelWith(o fyne.CanvasObject, want string) bool {
	switch x := o.(type) {
	case *widget.Label:
		return strings.Contains(x.Text, want)
	case *fyne.Container:
		for _, c := range x.Objects {
			if labelWith(c, want) {
				return true
			}
		}
	case *container.Scroll:
		return labelWith(x.Content, want)
	case *container.ThemeOverride:
		return labelWith(x.Content, want)
	case *widget.PopUp:
		return labelWith(x.Content, want)
	}
	return false
}

// TestFirstStartHint: the window's first start shows one line above the
// panes naming the palette, quick launch, the shortcuts and the
// settings; it goes when the palette opens, and a later start shows none.
func TestFirstStartHint(t *testing.T) {
	hint := filepath.Join(t.TempDir(), "state", "paneflow", HintFileName)
	h := newHarness(t, func(o *Options) { o.HintPath = hint })
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		if h.s.chrome.hint == nil || !h.s.chrome.hint.root.Visible() {
			t.Fatal("the first start shows no hint")
		}
		for _, a := range []keymap.Action{keymap.CommandPalette, keymap.QuickLaunch, keymap.ShowShortcuts, keymap.OpenSettings} {
			want := h.s.conf.keys.Label(a)
			if want == "" || !strings.Contains(h.s.chrome.hint.text.Text, want) {
				t.Errorf("hint %q does not name %s", h.s.chrome.hint.text.Text, want)
			}
		}
		root := h.s.chrome.hint.root
		h.s.openPaletteLocked()
		if root.Visible() || h.s.chrome.hint != nil {
			t.Error("the hint stayed once the palette opened")
		}
	})
	if _, err := os.Stat(hint); err != nil {
		t.Errorf("the hint's mark: %v", err)
	}
	h.quit()

	again := newHarness(t, func(o *Options) { o.HintPath = hint })
	again.waitFor("the first pane", func() bool { return again.s.pos.focus != 0 })
	again.s.guard(func() {
		if again.s.chrome.hint != nil {
			t.Error("the hint is shown again on a later start")
		}
	})
}

// TestEmptyStates: the views with nothing to show say what to do.
func TestEmptyStates(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // no recent specs
	h := newHarness(t, nil)
	h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
	h.s.guard(func() {
		h.s.openOverviewLocked()
		if got := h.s.chrome.ov.header.Text; !strings.Contains(got, "started in any pane is listed here") || !strings.Contains(got, h.s.conf.keys.Label(keymap.QuickLaunch)) {
			t.Errorf("empty overview header %q, want how agents get listed", got)
		}
	})
	h.s.chrome.ov.filter.SetSelected(filterWaiting) // its OnChanged takes the lock
	h.s.guard(func() {
		if got := h.s.chrome.ov.header.Text; !strings.Contains(got, "none match") {
			t.Errorf("overview header with a filter %q, want none match", got)
		}
		h.s.closeOverviewLocked()
	})
	lp := openPad(t, h)
	h.s.guard(func() {
		if got := lp.status.Text; !strings.Contains(got, "No specs found") || !strings.Contains(got, h.s.conf.keys.Label(keymap.NewFromTemplate)) {
			t.Errorf("empty launch pad status %q, want where specs go", got)
		}
		h.s.closeOverlaysLocked()
		h.s.runActionLocked(keymap.OpenMCPInstall)
		if !labelWith(shownPanelAs[*mcpView](h.s).body, "choose Install") {
			t.Error("the MCP view does not say what to do")
		}
	})
	if got := timelineSummary(0, 0, nil, nil); !strings.Contains(got, "start an agent CLI") {
		t.Errorf("timeline without turns: %q", got)
	}
	if got := searchSummary(proto.SearchAllResult{PanesSearched: 2}); !strings.Contains(got, "Nothing matched: try") || !strings.Contains(got, "2 panes") {
		t.Errorf("search without a match: %q", got)
	}
}
