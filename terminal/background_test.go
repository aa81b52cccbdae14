//go:build !windows

package terminal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/exefile"
)

// holdLaunch makes background starts wait until the returned release
// function is called, so a test can act on a terminal whose program is not
// running yet. Tests using it must not run in parallel.
func holdLaunch(t *testing.T, before func(preparedCmd)) (release func()) {
	t.Helper()
	gate := make(chan struct{})
	testHookLaunch = func(pc preparedCmd) {
		<-gate
		if before != nil {
			before(pc)
		}
	}
	var released bool
	release = func() {
		if !released {
			released = true
			close(gate)
		}
	}
	t.Cleanup(func() {
		release()
		testHookLaunch = nil
	})
	return release
}

func startBackground(t *testing.T, c Cmd) *Terminal {
	t.Helper()
	term, err := Start(Options{Argv: c.Argv, Env: c.Env, Dir: c.Dir, Cols: 80, Rows: 24, Background: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { term.Close() })
	return term
}

func waitStarted(t *testing.T, term *Terminal) {
	t.Helper()
	select {
	case <-term.Started():
	case <-time.After(30 * time.Second):
		t.Fatal("the program did not start")
	}
}

func TestBackgroundStartQueuesInputAndSize(t *testing.T) {
	release := holdLaunch(t, nil)
	term := startBackground(t, helperCmd(t, "size"))
	select {
	case <-term.Started():
		t.Fatal("Started closed while the launch is held")
	default:
	}
	if pid := term.Pid(); pid != 0 {
		t.Errorf("Pid before the start = %d, want 0", pid)
	}
	if _, err := term.Foreground(); !errors.Is(err, errNotStarted) {
		t.Errorf("Foreground before the start = %v, want errNotStarted", err)
	}
	// A resize before the program runs reaches it when it starts: its
	// first report is the new size, not the one Start was given.
	if err := term.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	release()
	waitStarted(t, term)
	if term.Pid() <= 0 {
		t.Errorf("Pid after the start = %d", term.Pid())
	}
	text := waitScreen(t, term, "the size report", func(s string) bool { return strings.Contains(s, "x") })
	if !strings.HasPrefix(strings.TrimSpace(text), "100x30") {
		t.Errorf("the program first saw %q, want 100x30", text)
	}
}

func TestBackgroundStartDeliversQueuedInput(t *testing.T) {
	release := holdLaunch(t, nil)
	term := startBackground(t, helperCmd(t, "cat"))
	if err := term.SendInput([]byte("early\r")); err != nil {
		t.Fatal(err)
	}
	release()
	waitScreen(t, term, "the queued input echoed and printed", func(s string) bool { return strings.Count(s, "early") == 2 })
}

func TestBackgroundStartFailure(t *testing.T) {
	// The program exists when Start checks and is gone when the launch
	// runs: the terminal ends like a shell's "command not found".
	dir := t.TempDir()
	prog := filepath.Join(dir, "vanishing")
	if err := exefile.Write(prog, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	release := holdLaunch(t, func(preparedCmd) { os.Remove(prog) })
	term := startBackground(t, Cmd{Argv: []string{prog}})
	release()
	st := waitDone(t, term)
	if st.Code != 127 || st.Signaled {
		t.Errorf("exit status = %+v, want code 127", st)
	}
	waitStarted(t, term)
	if term.Pid() != 0 {
		t.Errorf("Pid = %d, want 0", term.Pid())
	}
	if _, err := term.Foreground(); err == nil || errors.Is(err, errNotStarted) {
		t.Errorf("Foreground = %v, want the start error", err)
	}
	if got := strings.Join(term.Emulator().ScreenLines(), "\n"); !strings.Contains(got, "vanishing") {
		t.Errorf("screen = %q, want the start error naming the program", got)
	}
	if err := term.SendInput([]byte("x")); err != ErrClosed {
		t.Errorf("SendInput = %v, want ErrClosed", err)
	}
	if err := term.Resize(90, 20); err != nil {
		t.Errorf("Resize of a terminal without a program = %v", err)
	}
	term.Close()
}

func TestBackgroundCloseWaitsForTheStart(t *testing.T) {
	release := holdLaunch(t, nil)
	term := startBackground(t, helperCmd(t, "hang"))
	closed := make(chan struct{})
	go func() {
		term.Close()
		close(closed)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned while the program was still being started")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return after the start")
	}
	// The program was started and then killed, not left running.
	if st, ok := term.ExitStatus(); !ok || !st.Signaled {
		t.Errorf("exit status = %+v (ok %v), want killed by a signal", st, ok)
	}
}

func TestBackgroundStartCheckErrorsAreImmediate(t *testing.T) {
	if _, err := Start(Options{Argv: []string{"no-such-program-paneflow"}, Background: true}); err == nil {
		t.Error("Start of a program not in PATH succeeded")
	}
	if _, err := Start(Options{Argv: []string{"sh"}, Dir: "/nonexistent-dir", Background: true}); err == nil {
		t.Error("Start in a missing directory succeeded")
	}
}
