//go:build !windows

package terminal

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// waitScreen waits (pushed by the emulator's change notifications, with a
// generous overall limit for loaded machines) until cond holds for the
// terminal's text: scrollback and screen.
func waitScreen(t *testing.T, term *Terminal, what string, cond func(text string) bool) string {
	t.Helper()
	e := term.Emulator()
	deadline := time.After(30 * time.Second)
	for {
		_, ch := e.Watch()
		text := strings.Join(e.Lines(0, e.HistoryLen()+1000), "\n")
		if cond(text) {
			return text
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; terminal shows:\n%s", what, text)
		}
	}
}

func startHelper(t *testing.T, name string, args ...string) *Terminal {
	t.Helper()
	c := helperCmd(t, name, args...)
	term, err := Start(Options{Argv: c.Argv, Env: c.Env, Dir: c.Dir, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return term
}

func waitDone(t *testing.T, term *Terminal) ExitStatus {
	t.Helper()
	select {
	case <-term.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("program did not finish")
	}
	st, ok := term.ExitStatus()
	if !ok {
		t.Fatal("ExitStatus not available after Done")
	}
	return st
}

func TestTerminalOutputAndExit(t *testing.T) {
	term := startHelper(t, "exit", "3", "hello", "world")
	st := waitDone(t, term)
	if st.Code != 3 {
		t.Errorf("exit code = %d, want 3", st.Code)
	}
	// All output is parsed by the time Done is closed.
	if got := term.Emulator().ScreenLines()[0]; got != "hello world" {
		t.Errorf("first row = %q, want %q", got, "hello world")
	}
	if err := term.SendInput([]byte("x")); err != ErrClosed {
		t.Errorf("SendInput after exit = %v, want ErrClosed", err)
	}
}

func TestTerminalInput(t *testing.T) {
	term := startHelper(t, "cat")
	if err := term.SendInput([]byte("ping\r")); err != nil {
		t.Fatal(err)
	}
	// The line discipline echoes "ping", then cat prints it again.
	waitScreen(t, term, "echo and cat output", func(s string) bool { return strings.Count(s, "ping") == 2 })
}

func TestTerminalReplies(t *testing.T) {
	term := startHelper(t, "query")
	text := waitScreen(t, term, "query replies", func(s string) bool { return strings.Contains(s, "reply ") || strings.Contains(s, "timeout") })
	if want := `reply "\x1b[?64;6;17;21;22;28c\x1b[3;5R"`; !strings.Contains(text, want) {
		t.Errorf("terminal shows %q, want it to contain %q", text, want)
	}
}

func TestTerminalQueryFloodDoesNotStall(t *testing.T) {
	// The program asks for far more replies than the tty's input buffer
	// and our reply queue hold, and never reads them. It must still be
	// able to write everything and exit: replies past the cap are dropped,
	// the reader never blocks. (The check is the exit status, not the
	// screen: the line discipline echoes replies into the output at
	// arbitrary points.)
	term := startHelper(t, "flood", "200000")
	if st := waitDone(t, term); st.Code != 0 || st.Signaled {
		t.Errorf("flood helper ended with %v, want exit status 0", st)
	}
}

func TestTerminalResize(t *testing.T) {
	term := startHelper(t, "size")
	waitScreen(t, term, "initial size", func(s string) bool { return strings.Contains(s, "80x24") })
	if err := term.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	if c, r := term.Emulator().Size(); c != 100 || r != 30 {
		t.Errorf("emulator size = %dx%d, want 100x30", c, r)
	}
	waitScreen(t, term, "resized size", func(s string) bool { return strings.Contains(s, "100x30") })
	if err := term.Resize(0, 5); err == nil {
		t.Error("Resize(0, 5) succeeded, want an error")
	}
}

func TestTerminalCloseKillsAndIsIdempotent(t *testing.T) {
	term := startHelper(t, "hang", "-ignore-term")
	waitScreen(t, term, "ready", func(s string) bool { return strings.Contains(s, "ready") })
	term.Close()
	select {
	case <-term.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if st, _ := term.ExitStatus(); !st.Signaled {
		t.Errorf("exit status = %+v, want killed by a signal", st)
	}
	term.Close()
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Options{}); err == nil {
		t.Error("Start with no argv succeeded")
	}
	if _, err := Start(Options{Argv: []string{"/nonexistent/program"}}); err == nil {
		t.Error("Start of a missing program succeeded")
	}
}

// blockingGate holds output until open is closed, counting its passes.
type blockingGate struct {
	open   chan struct{}
	passes atomic.Int64
}

func (g *blockingGate) Pass() {
	g.passes.Add(1)
	<-g.open
}

// TestTerminalOutputGate checks that a gate holds the program's output
// back until it opens, and that ClearOutputGate removes only its own gate.
func TestTerminalOutputGate(t *testing.T) {
	term := startHelper(t, "cat")
	waitStarted(t, term)
	g := &blockingGate{open: make(chan struct{})}
	term.SetOutputGate(g)
	if err := term.SendInput([]byte("gated\r")); err != nil {
		t.Fatal(err)
	}
	// The reader is already waiting in its read when the gate goes in, so
	// the first output may get through to the parser; the parser's pass
	// holds it there.
	for deadline := time.Now().Add(30 * time.Second); g.passes.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the output never reached the gate")
		}
	}
	if text := strings.Join(term.Emulator().ScreenLines(), "\n"); strings.Contains(text, "gated") {
		t.Fatalf("output reached the screen through a closed gate:\n%s", text)
	}
	other := &blockingGate{open: make(chan struct{})}
	term.ClearOutputGate(other) // not the installed gate: no effect
	close(g.open)
	waitScreen(t, term, "the gated output", func(s string) bool { return strings.Count(s, "gated") == 2 })

	term.ClearOutputGate(g)
	n := g.passes.Load()
	if err := term.SendInput([]byte("free\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "output after the gate is gone", func(s string) bool { return strings.Count(s, "free") == 2 })
	term.SetOutputGate(nil) // no gate: nothing to call
	if err := term.SendInput([]byte("nil\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "output with a nil gate set", func(s string) bool { return strings.Count(s, "nil") == 2 })
	// At most the read that was waiting when the gate went can pass it.
	if got := g.passes.Load(); got > n+1 {
		t.Errorf("the cleared gate was passed %d more times", got-n)
	}
}

// TestTerminalOutputGates: a terminal passes each of its gates (the
// window's and the server's), each added once, and clearing one leaves
// the other.
func TestTerminalOutputGates(t *testing.T) {
	term := startHelper(t, "cat")
	waitStarted(t, term)
	a := &blockingGate{open: make(chan struct{})}
	b := &blockingGate{open: make(chan struct{})}
	close(a.open)
	term.SetOutputGate(a)
	term.SetOutputGate(b)
	term.SetOutputGate(a) // already there: still once
	if gs := term.gates.Load(); gs == nil || len(*gs) != 2 {
		t.Fatalf("gates %v, want a and b once each", gs)
	}
	if err := term.SendInput([]byte("held\r")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); b.passes.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the output never reached the second gate")
		}
	}
	if a.passes.Load() == 0 {
		t.Error("the output reached the second gate without passing the first")
	}
	term.ClearOutputGate(b) // its waiting pass still waits for it
	close(b.open)
	waitScreen(t, term, "the held output", func(s string) bool { return strings.Count(s, "held") == 2 })
	if gs := term.gates.Load(); gs == nil || len(*gs) != 1 || (*gs)[0] != a {
		t.Errorf("gates %v after clearing b, want a", gs)
	}
	n := a.passes.Load()
	if err := term.SendInput([]byte("more\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "output after b is gone", func(s string) bool { return strings.Count(s, "more") == 2 })
	if a.passes.Load() == n {
		t.Error("the remaining gate was not passed")
	}
}

// TestTerminalFollowsDECCOLM: when the program switches to 132 columns,
// its pseudo-terminal follows (it reads 132 columns and gets SIGWINCH);
// a later Resize, the pane's layout, replaces that width again.
func TestTerminalFollowsDECCOLM(t *testing.T) {
	term := startHelper(t, "size", "\x1b[?40h\x1b[?3h")
	waitScreen(t, term, "132x24", func(text string) bool { return strings.Contains(text, "132x24") })
	if cols, _ := term.Emulator().Size(); cols != 132 {
		t.Errorf("emulator width = %d, want 132", cols)
	}
	if err := term.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, term, "100x30", func(text string) bool { return strings.Contains(text, "100x30") })
	if cols, rows := term.Emulator().Size(); cols != 100 || rows != 30 {
		t.Errorf("emulator size = %dx%d, want 100x30", cols, rows)
	}
}
