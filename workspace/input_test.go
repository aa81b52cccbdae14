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
