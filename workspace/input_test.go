//go:build !windows

package workspace

import (
	"slices"
	"sync"
	"testing"
)

// TestInputOption: Options.Input hears the input written to each pane,
// with that pane's id.
func TestInputOption(t *testing.T) {
	var mu sync.Mutex
	var got []string
	m, _ := newManager(t, Options{Input: func(id uint64, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(rune('0'+id))+":"+string(p))
	}})
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	ss := m.Surfaces()
	split, _, err := m.Split(ss[0].ID, Vertical, PaneSpec{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{ss[0].ID, split.ID} {
		s, _ := m.Surface(id)
		if err := s.Terminal().SendInput([]byte("y")); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"1:y", "2:y"}; !slices.Equal(got, want) {
		t.Errorf("Input saw %q, want %q", got, want)
	}
}

// TestLastEnter: a pane records its lone Enters (not a CR inside other
// input) with the output generation just before each, so output that
// follows an Enter can be told from what came before it (the echo of the
// typed text).
func TestLastEnter(t *testing.T) {
	m, _ := newProcessManager(t, Options{})
	if _, err := m.CreateWorkspace("a", "", nil, true); err != nil {
		t.Fatal(err)
	}
	s, _ := m.Surface(m.Surfaces()[0].ID)
	if e := s.LastEnter(); e != (Enter{}) {
		t.Fatalf("a new pane's LastEnter = %+v, want none", e)
	}
	emu := s.Terminal().Emulator()
	send := func(p string) {
		t.Helper()
		if err := s.Terminal().SendInput([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	send("echo one-$((0+1))\r") // a CR inside a chunk is text, not an Enter key
	waitText(t, s, "one-1")
	if e := s.LastEnter(); e.Count != 0 {
		t.Errorf("after a line typed with its CR: LastEnter = %+v, want no Enter", e)
	}
	send("echo two-$((1+1))")
	waitText(t, s, "two-$((1+1))") // the echo
	echoed := emu.Generation()
	send("\r")
	e := s.LastEnter()
	if e.Count != 1 || e.Generation < echoed {
		t.Errorf("after an Enter: LastEnter = %+v, want count 1 at generation >= %d (the echo)", e, echoed)
	}
	waitText(t, s, "two-2")
	if g := emu.Generation(); g <= e.Generation {
		t.Errorf("the command's output (generation %d) is not past the Enter's generation %d", g, e.Generation)
	}
	send("\r")
	if e := s.LastEnter(); e.Count != 2 {
		t.Errorf("after a second Enter: LastEnter = %+v, want count 2", e)
	}
}
