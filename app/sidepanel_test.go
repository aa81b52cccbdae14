//go:build !windows

package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
)

// paneCols is pane id's PTY width as the core's emulator has it.
func (h *harness) paneCols(id uint64) int {
	sf, ok := h.c.Workspaces.Surface(id)
	if !ok {
		return 0
	}
	cols, _ := sf.Terminal().Emulator().Size()
	return cols
}

// areaX is the split area's left edge in the window and its width.
func (h *harness) areaX() (x, w float32) {
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(h.s.chrome.area)
	return pos.X, h.s.chrome.area.Size().Width
}

func TestSidebarGripResizesSidebarAndPanes(t *testing.T) {
	h := newHarness(t, nil)
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1000, 600)) })
	var id uint64
	h.waitFor("a view", func() bool { id = h.s.pos.focus; return id != 0 && h.s.panes.views[id] != nil })
	var x0, w0 float32
	h.waitFor("the panes laid out", func() bool { x0, w0 = h.areaX(); return w0 > 0 })
	var cols0 int
	h.waitFor("the PTY at the window's size", func() bool { cols0 = h.paneCols(id); return cols0 != 80 && cols0 > 0 })
	p := h.s.chrome.sidePanel
	h.s.guard(func() {
		if got := p.side.root.Size().Width; got != sidebarWidth {
			t.Fatalf("sidebar width = %v at start, want %v", got, sidebarWidth)
		}
		// The window's border layout puts a padding between its parts.
		if pad := x0 - (sidebarWidth + sideGripWidth); pad < 0 || pad > 10 {
			t.Fatalf("panes start at x = %v, want %v and a padding", x0, sidebarWidth+sideGripWidth)
		}
		p.grip.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 60}})
		p.grip.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 40}})
		p.grip.DragEnd()
		if got, want := p.side.root.Size().Width, float32(sidebarWidth+100); got != want {
			t.Errorf("sidebar width after a 100 px drag = %v, want %v", got, want)
		}
		x, w := h.areaX()
		if x != x0+100 || w != w0-100 {
			t.Errorf("panes at x = %v, width %v after the drag; want %v, %v", x, w, x0+100, w0-100)
		}
	})
	h.waitFor("a narrower PTY", func() bool { return h.paneCols(id) < cols0 })

	// Clamped at both ends, and a drag back from past a limit follows the
	// pointer from where the drag began. Each case starts from the width
	// the last one left.
	for _, tt := range []struct {
		dx   []float32
		want float32
	}{
		{[]float32{1000}, sidebarMaxWidth},
		{[]float32{-1000}, sidebarMinWidth},
		{[]float32{-500, 520}, sidebarMinWidth + 20},
	} {
		h.s.guard(func() {
			for _, dx := range tt.dx {
				p.grip.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: dx}})
			}
			p.grip.DragEnd()
			if got := p.side.root.Size().Width; got != tt.want {
				t.Errorf("drags %v: sidebar width = %v, want %v", tt.dx, got, tt.want)
			}
			if x, _ := h.areaX(); x != x0+tt.want-sidebarWidth {
				t.Errorf("drags %v: panes at x = %v, want %v", tt.dx, x, x0+tt.want-sidebarWidth)
			}
		})
	}
}

func TestToggleSidebarCollapsesAndRestores(t *testing.T) {
	h := newHarness(t, nil)
	h.s.guard(func() { h.s.w.Resize(fyne.NewSize(1000, 600)) })
	var id uint64
	h.waitFor("a view", func() bool { id = h.s.pos.focus; return id != 0 && h.s.panes.views[id] != nil })
	p := h.s.chrome.sidePanel
	var x0, w0 float32
	h.s.guard(func() {
		p.setWidth(300)
		x0, w0 = h.areaX()
	})
	var cols0 int
	h.waitFor("the PTY at the window's size", func() bool { cols0 = h.paneCols(id); return cols0 != 80 && cols0 > 0 })
	h.s.guard(func() {
		// secondary+shift+backslash: toggle_sidebar.
		if !h.key(fyne.KeyBackslash, fyne.KeyModifierShortcutDefault|fyne.KeyModifierShift) {
			t.Fatal("ctrl+shift+backslash was not taken as an app shortcut")
		}
		if !p.collapsed || p.side.root.Visible() || !p.strip.Visible() {
			t.Fatalf("after the toggle: collapsed %v, sidebar shown %v, strip shown %v", p.collapsed, p.side.root.Visible(), p.strip.Visible())
		}
		x, w := h.areaX()
		if want := x0 - 300 - sideGripWidth + sideStripWidth; x != want || w != w0+x0-want {
			t.Errorf("collapsed: panes at x = %v, width %v; want %v, %v", x, w, want, w0+x0-want)
		}
	})
	h.waitFor("a wider PTY", func() bool { return h.paneCols(id) > cols0 })
	h.s.guard(func() {
		h.s.runActionLocked("toggle_sidebar")
		if p.collapsed || !p.side.root.Visible() || p.strip.Visible() {
			t.Fatalf("after the second toggle: collapsed %v, sidebar shown %v, strip shown %v", p.collapsed, p.side.root.Visible(), p.strip.Visible())
		}
		if x, w := h.areaX(); x != x0 || w != w0 {
			t.Errorf("expanded: panes at x = %v, width %v; want the width it had, %v, %v", x, w, x0, w0)
		}
		if got := p.side.root.Size().Width; got != 300 {
			t.Errorf("expanded: sidebar width = %v, want the 300 it had", got)
		}
	})
	h.waitFor("the PTY back at its width", func() bool { return h.paneCols(id) == cols0 })

	// The sidebar's collapse button and the strip's expand button.
	h.s.guard(func() {
		p.side.onCollapse()
		if !p.collapsed {
			t.Error("the collapse button did not collapse the sidebar")
		}
		p.setWaiting(2)
		if p.waiting.Text != "●2" {
			t.Errorf("strip's waiting count = %q, want ●2", p.waiting.Text)
		}
	})
}

// TestSidebarLinesFollowWidth checks that a drag of the sidebar's grip
// has its lines cut to the new width once the drag ends, and not for
// each drag event.
func TestSidebarLinesFollowWidth(t *testing.T) {
	test.NewTempApp(t)
	sb := newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")
	p := newSidePanel(sb)
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 600))
	long := "/src/" + strings.Repeat("very-long-directory-name/", 6) + "end"
	cards := []workspaceCard{{ID: 1, Title: "ws", Cwd: long, Active: true}}
	sb.update(cards)
	cwd := func() string { return sb.views[1].cwd.(*canvas.Text).Text }
	narrow := cwd()
	if !strings.HasSuffix(narrow, "…") {
		t.Fatalf("cwd at %v px = %q, want it cut", float32(sidebarWidth), narrow)
	}
	p.grip.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 240}})
	if got := cwd(); got != narrow {
		t.Errorf("cwd during the drag = %q, want it left as it was, %q", got, narrow)
	}
	p.grip.DragEnd()
	wide := cwd()
	if len([]rune(wide)) <= len([]rune(narrow)) || !strings.HasPrefix(long, strings.TrimSuffix(wide, "…")) {
		t.Errorf("cwd at %v px = %q, want more of %q than at %v px (%q)", p.width, wide, long, float32(sidebarWidth), narrow)
	}
	p.setWidth(sidebarWidth)
	if got := cwd(); got != narrow {
		t.Errorf("cwd back at %v px = %q, want %q", float32(sidebarWidth), got, narrow)
	}
}
