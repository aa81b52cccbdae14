//go:build !windows

package workspace

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
)

func TestMoveRenameWorkspace(t *testing.T) {
	m, sub := newManager(t, Options{})
	for _, title := range []string{"a", "b", "c", "d"} {
		if _, err := m.CreateWorkspace(title, "", nil, title == "b"); err != nil {
			t.Fatal(err)
		}
	}
	titles := func() (out []string) {
		for _, w := range m.Workspaces() {
			out = append(out, w.Title)
		}
		return out
	}
	active := func() string { ws, _ := m.ActiveWorkspace(); return ws.Title }
	for _, c := range []struct {
		from, to int
		want     []string
	}{
		{0, 3, []string{"b", "c", "d", "a"}}, // the active b moves from 1 to 0
		{3, 0, []string{"a", "b", "c", "d"}},
		{1, 2, []string{"a", "c", "b", "d"}}, // the active one itself
		{2, 2, []string{"a", "c", "b", "d"}}, // nowhere
	} {
		if err := m.MoveWorkspace(c.from, c.to); err != nil {
			t.Fatal(err)
		}
		if got := titles(); !slices.Equal(got, c.want) || active() != "b" {
			t.Fatalf("move %d→%d: %v, active %q; want %v, b", c.from, c.to, got, active(), c.want)
		}
	}
	waitEvent(t, sub, func(e bus.Event) bool {
		ch, ok := e.(bus.WorkspaceChanged)
		return ok && ch.Index == 2 && ch.Title == "b"
	})
	for _, bad := range [][2]int{{-1, 0}, {0, 4}, {4, 0}, {0, -1}} {
		if err := m.MoveWorkspace(bad[0], bad[1]); !errors.Is(err, ErrNotFound) || err.Error() != "Index out of bounds" {
			t.Errorf("MoveWorkspace(%d, %d) = %v, want %q", bad[0], bad[1], err, "Index out of bounds")
		}
	}
	got, err := m.RenameWorkspace(1, "  api\x1b server  ")
	if err != nil || got != "api server" || titles()[1] != "api server" {
		t.Fatalf("RenameWorkspace = %q, %v; titles %v", got, err, titles())
	}
	waitEvent(t, sub, func(e bus.Event) bool {
		ch, ok := e.(bus.WorkspaceChanged)
		return ok && ch.Index == 1 && ch.Title == "api server"
	})
	if _, err := m.RenameWorkspace(1, " \x07 "); !errors.Is(err, ErrInvalid) || titles()[1] != "api server" {
		t.Errorf("an empty title: %v, titles %v", err, titles())
	}
	if _, err := m.RenameWorkspace(9, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RenameWorkspace(9) = %v", err)
	}
}

// TestWhenGone: a closed pane's channel closes only once it is gone for
// good: not while it is kept for Reopen, not after a reopen, but when the
// undo window passes; a pane never seen, or closed without undo, is gone
// at once.
func TestWhenGone(t *testing.T) {
	fake := clock.NewFake(time.Time{})
	m, _ := newManager(t, Options{Clock: fake})
	if _, err := m.CreateWorkspace("main", "", nil, true); err != nil {
		t.Fatal(err)
	}
	first := surfaceIDs(m)[0]
	b, _, err := m.Split(first, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	isClosed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	if !isClosed(m.WhenGone(999)) {
		t.Fatal("an unknown pane is not gone")
	}
	open := m.WhenGone(b.ID)
	if err := m.CloseSurface(b.ID); err != nil {
		t.Fatal(err)
	}
	kept := m.WhenGone(b.ID)
	if isClosed(open) || isClosed(kept) {
		t.Fatal("a pane kept for undo is gone")
	}
	if _, err := m.Reopen(); err != nil {
		t.Fatal(err)
	}
	fake.Advance(DefaultUndoWindow)
	if isClosed(open) || isClosed(kept) {
		t.Fatal("a reopened pane is gone after the window")
	}
	if err := m.CloseSurface(b.ID); err != nil {
		t.Fatal(err)
	}
	fake.Advance(DefaultUndoWindow)
	for _, ch := range []<-chan struct{}{open, kept} {
		if !isClosed(ch) {
			t.Fatal("a pane whose undo window passed is not gone")
		}
	}
	// Without undo the close is final at once.
	m2, _ := newManager(t, Options{UndoWindow: -1})
	if _, err := m2.CreateWorkspace("main", "", nil, true); err != nil {
		t.Fatal(err)
	}
	id := surfaceIDs(m2)[0]
	c, _, err := m2.Split(id, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	ch := m2.WhenGone(c.ID)
	if err := m2.CloseSurface(c.ID); err != nil {
		t.Fatal(err)
	}
	if !isClosed(ch) || !isClosed(m2.WhenGone(c.ID)) {
		t.Fatal("a pane closed without undo is not gone")
	}
	// The manager's close ends every wait.
	last := m2.WhenGone(id)
	m2.Close()
	if !isClosed(last) {
		t.Fatal("Close left a wait open")
	}
}
