//go:build !windows

package app

import (
	"slices"
	"testing"
)

// TestLocalInputStartsEchoHold: the in-process backend's panes start the
// echo hold for their own pane before their input goes to the program
// (core.HoldEcho), as screen.input does for an attached window's keys, so
// a neighbour flooding output waits while a key's echo is on its way
// (issue 28).
func TestLocalInputStartsEchoHold(t *testing.T) {
	h := newHarness(t, nil)
	sf, ok := h.c.Workspaces.ActiveSurface()
	if !ok {
		t.Fatal("no active surface")
	}
	pn, ok := NewLocal(h.c).Pane(sf.ID())
	if !ok {
		t.Fatal("the backend has no pane for the active surface")
	}
	if sp, ok := pn.(surfacePane); !ok || sp.hold == nil {
		t.Fatalf("the backend's pane %T starts no echo hold", pn)
	}
	var held []uint64
	p := surfacePane{m: h.c.Workspaces, s: sf, hold: func(id uint64) { held = append(held, id) }}
	if err := p.SendInput([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(held, []uint64{sf.ID()}) {
		t.Fatalf("holds started: %v, want one for pane %d", held, sf.ID())
	}
}
