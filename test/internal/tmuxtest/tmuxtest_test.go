package tmuxtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitCapture polls p until ok accepts its capture or the deadline passes.
func waitCapture(t *testing.T, p *Pane, what string, ok func(Capture) bool) Capture {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := p.Capture()
		if err != nil {
			t.Fatalf("capture: %v", err)
		}
		if ok(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; screen:\n%s", what, strings.Join(c.Screen, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCaptureHistoryAndScreen(t *testing.T) {
	s := New(t, Options{})
	tests := []struct {
		name        string
		lines       int
		wantHistory int
	}{
		{name: "no history", lines: 3, wantHistory: 0},
		{name: "some history", lines: 30, wantHistory: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := fmt.Sprintf("done-%d", tt.lines)
			p, err := s.NewPane(PaneOptions{Argv: []string{"sh", "-c",
				fmt.Sprintf("seq 1 %d; tmux wait-for -S %s; exec sleep 100000", tt.lines, ch)}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.WaitFor(ctx, ch); err != nil {
				t.Fatal(err)
			}
			c := waitCapture(t, p, "the last line", func(c Capture) bool {
				return strings.Contains(strings.Join(c.Screen, "\n"), fmt.Sprint(tt.lines))
			})
			if got := len(c.Screen); got != 24 {
				t.Errorf("screen rows: got %d, want 24", got)
			}
			if got := len(c.History); got != tt.wantHistory {
				t.Errorf("history rows: got %d, want %d", got, tt.wantHistory)
			}
			all := append(append([]string{}, c.History...), c.Screen...)
			if got, want := all[0], "1"; got != want {
				t.Errorf("first row: got %q, want %q", got, want)
			}
		})
	}
}

func TestSendBytesAndResize(t *testing.T) {
	s := New(t, Options{})
	p, err := s.NewPane(PaneOptions{Argv: []string{"sh", "-c", "stty raw -echo; exec od -An -c"}, Cols: 100, Rows: 10})
	if err != nil {
		t.Fatal(err)
	}
	// od prints its input once it has 16 bytes; include a byte tmux would
	// translate if it were a key name.
	in := []byte("Enter\x1b[A;0123456789")
	if err := p.SendBytes(in); err != nil {
		t.Fatal(err)
	}
	waitCapture(t, p, "od output", func(c Capture) bool {
		return strings.Contains(strings.Join(c.Screen, "\n"), `E   n   t   e   r 033   [   A   ;   0   1   2   3   4   5   6`)
	})
	if err := p.Resize(30, 6); err != nil {
		t.Fatal(err)
	}
	got, err := p.Display("#{pane_width}x#{pane_height}")
	if err != nil {
		t.Fatal(err)
	}
	if want := "30x6"; got != want {
		t.Errorf("size after resize: got %s, want %s", got, want)
	}
	pid, err := s.PID()
	if err != nil || pid <= 0 {
		t.Errorf("PID: got %d, %v; want a positive pid", pid, err)
	}
}
