//go:build !windows

package app

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/workspace"
)

// fleetShell is a shell with no manager whose snapshot lists n agents in
// one workspace, every fifth waiting, in a 1280x800 window with the
// sidebar and an empty split area.
func fleetShell(t testing.TB, n int) *shell {
	a := test.NewApp()
	t.Cleanup(a.Quit)
	s := &shell{a: a, w: a.NewWindow("fleet"), life: newLifetime(), chrome: chrome{side: newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")}}
	snap := &snapshot{Open: map[uint64]uint64{}, Workspaces: []workspace.WorkspaceInfo{{ID: 1, Title: "fleet"}}}
	cwd := t.TempDir()
	for i := range n {
		id := uint64(i + 1)
		snap.Surfaces = append(snap.Surfaces, workspace.SurfaceInfo{ID: id, WorkspaceID: 1, Name: fmt.Sprintf("agent-%d", i), Cwd: &cwd})
		snap.Open[id] = 1
		st := stateThinking
		if i%5 == 0 {
			st = stateWaiting
		}
		s.agents.apply(bus.AgentState{SurfaceID: id, Tool: "claude", PID: 1000 + i, State: st, Hooked: true, Message: "Allow Bash to run the tests?"})
	}
	s.pos.snap = snap
	s.chrome.comp = &composer{}
	s.chrome.area = newSplitArea(func([]int, []float64) {})
	s.chrome.center = container.NewStack(s.chrome.area)
	s.w.SetContent(container.NewBorder(nil, nil, s.chrome.side.root, nil, s.chrome.center))
	s.w.Resize(fyne.NewSize(1280, 800))
	return s
}

// highlighted lists the rows of the overview's list that are in view
// with the selection colour behind them.
func highlighted(ov *overview) []int {
	var rows []int
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(ov.list.virt).Y
	bottom := top + ov.list.virt.Size().Height
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		if b, ok := o.(*tapBox); ok {
			y := d.AbsolutePositionForObject(b).Y
			if b.bg.FillColor == theme.Color(theme.ColorNameSelection) && y >= top && y+b.Size().Height <= bottom {
				rows = append(rows, b.row)
			}
			return
		}
		switch o := o.(type) {
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(o).Objects() {
				walk(c)
			}
		}
	}
	walk(ov.list.virt)
	return rows
}

// TestOverviewCursorRow: with 100 agents, the overview shows its cursor
// row (the first) as soon as it opens, and the cursor moves with the
// keyboard.
func TestOverviewCursorRow(t *testing.T) {
	s := fleetShell(t, 100)
	s.mu.Lock()
	s.openOverviewLocked()
	ov := s.chrome.ov
	s.mu.Unlock()
	defer s.guard(s.closeOverviewLocked)
	if got := highlighted(ov); len(got) != 1 || got[0] != 0 {
		t.Fatalf("highlighted rows after opening = %v, want [0] (cursor %d)", got, ov.list.cursor)
	}
	// Down past the rows on screen: the list follows the cursor.
	for range 30 {
		ov.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	}
	if got := highlighted(ov); len(got) != 1 || got[0] != 30 {
		t.Fatalf("highlighted rows after 30 × Down = %v, want [30] (cursor %d)", got, ov.list.cursor)
	}
}

// TestOverviewReplacesPanes: the agents overview stands in the split
// area's place, not over it: while it shows, the area is out of the window
// and every pane view is hidden (draws nothing); Escape, a jump and a
// click on a pane in the sidebar put the area back with its views shown.
func TestOverviewReplacesPanes(t *testing.T) {
	h := newHarness(t, nil)
	first, second := h.twoPanes()
	h.waitFor("both views shown", func() bool { return len(h.s.chrome.area.shown()) == 2 })
	h.c.Bus.Publish(bus.AgentState{SurfaceID: second, Tool: "claude", PID: 9, State: stateWaiting, Hooked: true, Message: "Go on?"})
	h.waitFor("the agent", func() bool { return h.s.w.Title() == "Paneflow — 1 waiting" })
	placed := func(what string, open bool) {
		t.Helper()
		h.s.guard(func() {
			objs := h.s.chrome.center.Objects
			switch {
			case open && (h.s.chrome.ov == nil || len(objs) != 1 || objs[0] != h.s.chrome.ov.view):
				t.Fatalf("%s: the split area's place holds %v, want only the overview", what, objs)
			case !open && (h.s.chrome.ov != nil || len(objs) != 1 || objs[0] != h.s.chrome.area):
				t.Fatalf("%s: the split area's place holds %v (overview %v), want only the area", what, objs, h.s.chrome.ov)
			}
			for id, v := range h.s.panes.views {
				if v.Hidden() != open {
					t.Fatalf("%s: pane %d's view hidden = %v, want %v", what, id, v.Hidden(), open)
				}
			}
			if open && h.s.w.Canvas().Focused() != h.s.chrome.ov.list.query {
				t.Fatalf("%s: the keyboard is on %v, not the overview's search field", what, h.s.w.Canvas().Focused())
			}
		})
	}
	open := func() *overview {
		t.Helper()
		var ov *overview
		h.s.guard(func() {
			if !h.key(fyne.KeyA, ctrlShift) {
				t.Fatal("Ctrl+Shift+A is not bound")
			}
			ov = h.s.chrome.ov
		})
		placed("opened", true)
		h.s.guard(func() {
			if got := highlighted(ov); len(got) != 1 || got[0] != 0 {
				t.Fatalf("highlighted rows after opening = %v, want [0]", got)
			}
		})
		return ov
	}
	ov := open()
	// A pane that prints while hidden: its view draws nothing until shown.
	// (termview's TestHiddenViewDrawsNothing checks that it draws then.)
	ov.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	placed("closed with Escape", false)
	h.s.guard(func() {
		if h.s.w.Canvas().Focused() != h.s.panes.views[first] {
			t.Fatalf("after Escape the keyboard is on %v, not the focused pane", h.s.w.Canvas().Focused())
		}
	})

	// Enter jumps to the waiting agent's pane.
	ov = open()
	ov.list.query.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the jump", func() bool { return h.s.pos.focus == second })
	placed("after the jump", false)

	// A click on a pane row of the sidebar shows that pane.
	open()
	h.s.chrome.side.onPane(first)
	h.waitFor("the focus on the clicked pane", func() bool { return h.s.pos.focus == first })
	placed("after a click in the sidebar", false)
}
