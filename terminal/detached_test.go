package terminal_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/paneflow-go/paneflow/terminal"
)

func TestDetached(t *testing.T) {
	var mu sync.Mutex
	var got []byte
	in := make(chan struct{}, 16)
	term := terminal.Detached(terminal.Options{Cols: 20, Rows: 3}, func(p []byte) {
		mu.Lock()
		got = append(got, p...)
		mu.Unlock()
		in <- struct{}{}
	})
	<-term.Started()
	if pid := term.Pid(); pid != 0 {
		t.Errorf("Pid = %d, want 0", pid)
	}
	if _, err := term.Foreground(); err == nil {
		t.Error("Foreground of a detached terminal succeeded")
	}
	term.Emulator().Write([]byte("hello\r\nworld"))
	if lines := term.Emulator().ScreenLines(); !slices.Equal(lines[:2], []string{"hello", "world"}) {
		t.Errorf("screen = %q, want hello, world", lines)
	}
	if err := term.SendInput([]byte("typed")); err != nil {
		t.Fatal(err)
	}
	for {
		<-in
		mu.Lock()
		s := string(got)
		mu.Unlock()
		if s == "typed" {
			break
		}
		if !strings.HasPrefix("typed", s) {
			t.Fatalf("input = %q, want typed", s)
		}
	}
	if _, ended := term.ExitStatus(); ended {
		t.Error("ExitStatus reports an end before Exit")
	}
	term.Exit(3)
	<-term.Done()
	if st, ok := term.ExitStatus(); !ok || st.Code != 3 || st.Signaled {
		t.Errorf("ExitStatus = %+v, %v; want exit status 3", st, ok)
	}
	if err := term.SendInput([]byte("x")); err != terminal.ErrClosed {
		t.Errorf("SendInput after Exit = %v, want ErrClosed", err)
	}
	if err := term.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if st, _ := term.ExitStatus(); st.Code != 3 {
		t.Errorf("Close changed the exit status to %+v", st)
	}
}

func TestDetachedClose(t *testing.T) {
	term := terminal.Detached(terminal.Options{}, nil)
	_ = term.SendInput([]byte("discarded"))
	if err := term.Close(); err != nil {
		t.Fatal(err)
	}
	<-term.Done()
	if st, ok := term.ExitStatus(); !ok || st.String() != "signal: hangup" {
		t.Errorf("ExitStatus after Close = %+v, %v; want signal: hangup", st, ok)
	}
	term.Exit(0) // after the end: nothing
	if cols, rows := term.Emulator().Size(); cols != terminal.DefaultCols || rows != terminal.DefaultRows {
		t.Errorf("size = %dx%d, want the default", cols, rows)
	}
}
