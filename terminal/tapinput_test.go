package terminal

import (
	"slices"
	"sync"
	"testing"
)

// TestTapInput: an input tap sees each chunk given to SendInput, not the
// emulator's replies, and nothing once removed.
func TestTapInput(t *testing.T) {
	var mu sync.Mutex
	term := Detached(Options{Cols: 20, Rows: 2}, nil)
	defer term.Close()
	var seen []string
	remove := term.TapInput(func(p []byte) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, string(p))
	})
	if err := term.SendInput([]byte("1")); err != nil {
		t.Fatal(err)
	}
	term.Emulator().Write([]byte("\x1b[c")) // a query: its reply is no user input
	if err := term.SendInput([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	remove()
	remove() // twice is harmless
	if err := term.SendInput([]byte("x")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"1", "\r"}; !slices.Equal(seen, want) {
		t.Errorf("the tap saw %q, want %q", seen, want)
	}
}
