//go:build !windows

package terminal

import "testing"

// TestSendInputNowWritesItself: while nothing is queued or being written,
// SendInputNow writes the input to the program on the caller's goroutine
// (this terminal has no writer goroutine, and cat still gets the line);
// otherwise it queues it behind the input before it, for the writer.
func TestSendInputNowWritesItself(t *testing.T) {
	tp := startTestPTY(t, Cmd{Argv: []string{"cat"}})
	term := &Terminal{pty: tp.PTY, started: make(chan struct{}), wake: make(chan struct{}, 1), done: make(chan struct{})}
	close(term.started)
	if err := term.SendInputNow([]byte("now\n")); err != nil {
		t.Fatal(err)
	}
	tp.waitOutput("now\r\nnow\r\n") // the echo, then cat's copy

	if err := term.SendInput([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := term.SendInputNow([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if got := string(term.input); got != "ab" {
		t.Errorf("queued %q behind queued input, want %q", got, "ab")
	}
	term.input = nil
	term.writing = true // the writer's write is under way
	if err := term.SendInputNow([]byte("c")); err != nil {
		t.Fatal(err)
	}
	if got := string(term.input); got != "c" {
		t.Errorf("queued %q while a write was under way, want %q", got, "c")
	}
}
