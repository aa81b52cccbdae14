package terminal

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testTimeout bounds every wait in these tests. It only guards against a
// hang; no test asserts how fast anything happens.
const testTimeout = 30 * time.Second

// testPTY is a PTY under test with a reader goroutine that collects the
// output, so a test can wait for text to appear.
type testPTY struct {
	*PTY
	t *testing.T

	mu      sync.Mutex
	out     strings.Builder
	changed chan struct{} // closed and replaced whenever out grows or reading ends
	readErr error         // the error that ended reading; set before readDone closes

	readDone chan struct{}
}

// startTestPTY starts c and registers a cleanup that kills the process,
// closes the PTY and waits for the reader goroutine.
func startTestPTY(t *testing.T, c Cmd) *testPTY {
	t.Helper()
	p, err := StartPTY(c)
	if err != nil {
		t.Fatalf("StartPTY(%q): %v", c.Argv, err)
	}
	tp := &testPTY{PTY: p, t: t, changed: make(chan struct{}), readDone: make(chan struct{})}
	go tp.readLoop()
	t.Cleanup(func() {
		if err := p.Kill(0); err != nil {
			t.Errorf("cleanup: Kill: %v", err)
		}
		if err := p.Close(); err != nil {
			t.Errorf("cleanup: Close: %v", err)
		}
		select {
		case <-tp.readDone:
		case <-time.After(testTimeout):
			t.Errorf("cleanup: reader still blocked %v after Close", testTimeout)
		}
	})
	return tp
}

func (tp *testPTY) readLoop() {
	defer close(tp.readDone)
	buf := make([]byte, 4096)
	for {
		n, err := tp.Read(buf)
		tp.mu.Lock()
		tp.out.Write(buf[:n])
		if err != nil {
			tp.readErr = err
		}
		close(tp.changed)
		tp.changed = make(chan struct{})
		tp.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// output returns everything read so far.
func (tp *testPTY) output() string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.out.String()
}

// waitFor waits until cond holds for the output read so far and returns
// that output. It fails the test if reading ends or testTimeout passes
// first.
func (tp *testPTY) waitFor(what string, cond func(out string) bool) string {
	tp.t.Helper()
	timeout := time.After(testTimeout)
	for {
		tp.mu.Lock()
		out, changed, readErr := tp.out.String(), tp.changed, tp.readErr
		tp.mu.Unlock()
		if cond(out) {
			return out
		}
		if readErr != nil {
			tp.t.Fatalf("output ended (%v) before %s; got %q", readErr, what, out)
		}
		select {
		case <-changed:
		case <-timeout:
			tp.t.Fatalf("timed out waiting for %s; got %q", what, out)
		}
	}
}

// waitOutput waits until the output contains s.
func (tp *testPTY) waitOutput(s string) string {
	tp.t.Helper()
	return tp.waitFor("output "+strconv.Quote(s), func(out string) bool { return strings.Contains(out, s) })
}

// waitEOF waits for the reader to finish and returns all output and the
// error that ended reading.
func (tp *testPTY) waitEOF() (string, error) {
	tp.t.Helper()
	select {
	case <-tp.readDone:
	case <-time.After(testTimeout):
		tp.t.Fatalf("Read did not end within %v; got %q", testTimeout, tp.output())
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.out.String(), tp.readErr
}

// wait waits for the process to exit and returns its status.
func (tp *testPTY) wait() ExitStatus {
	tp.t.Helper()
	select {
	case <-tp.Done():
	case <-time.After(testTimeout):
		tp.t.Fatalf("process did not exit within %v; output %q", testTimeout, tp.output())
	}
	st, err := tp.Wait()
	if err != nil {
		tp.t.Fatalf("Wait: %v", err)
	}
	return st
}

func TestPTYEcho(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "echo", "hello", "pty world"))
	out, err := tp.waitEOF()
	if err != io.EOF {
		t.Errorf("read ended with %v, want io.EOF", err)
	}
	if !strings.Contains(out, "hello pty world") {
		t.Errorf("output = %q, want it to contain %q", out, "hello pty world")
	}
	if st := tp.wait(); st != (ExitStatus{}) {
		t.Errorf("status = %+v, want %+v", st, ExitStatus{})
	}
}

func TestPTYExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want ExitStatus
	}{
		{"zero", []string{"0"}, ExitStatus{Code: 0}},
		{"three", []string{"3", "bye"}, ExitStatus{Code: 3}},
		{"max", []string{"255"}, ExitStatus{Code: 255}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := startTestPTY(t, helperCmd(t, "exit", tc.args...))
			if got := tp.wait(); got != tc.want {
				t.Errorf("status = %+v, want %+v", got, tc.want)
			}
			if got, want := tp.wait().String(), tc.want.String(); got != want {
				t.Errorf("status.String() = %q, want %q", got, want)
			}
		})
	}
}

// TestPTYReadEOFAfterExit checks that output written just before the exit
// is delivered and that reading then ends with io.EOF itself.
func TestPTYReadEOFAfterExit(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "exit", "0", "last words"))
	out, err := tp.waitEOF()
	if err != io.EOF {
		t.Errorf("read ended with %#v, want io.EOF", err)
	}
	if !strings.Contains(out, "last words") {
		t.Errorf("output = %q, want it to contain %q", out, "last words")
	}
	var buf [16]byte
	if n, err := tp.Read(buf[:]); n != 0 || err != io.EOF {
		t.Errorf("Read after EOF = %d, %v; want 0, io.EOF", n, err)
	}
}

// TestPTYCloseUnblocksRead checks that Close ends a Read blocked on a
// live program, including one that ignores the hangup (so the terminal
// stays open on its side).
func TestPTYCloseUnblocksRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"hang", nil},
		{"ignores hangup", []string{"-ignore-term"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := startTestPTY(t, helperCmd(t, "hang", tc.args...))
			tp.waitOutput("ready")
			if err := tp.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if _, err := tp.waitEOF(); err != io.EOF {
				t.Errorf("read ended with %v, want io.EOF", err)
			}
			if err := tp.Close(); err != nil {
				t.Errorf("second Close = %v, want nil", err)
			}
			if err := tp.Kill(0); err != nil {
				t.Errorf("Kill after Close: %v", err)
			}
			if st := tp.wait(); !st.Signaled {
				t.Errorf("status after Kill = %+v, want Signaled", st)
			}
		})
	}
}

func TestPTYCat(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "cat"))
	// "\r" is Enter on every terminal; the Unix line discipline turns it
	// into "\n" (ICRNL). The line shows up twice: echoed, then from cat.
	if _, err := tp.Write([]byte("marmalade\r")); err != nil {
		t.Fatalf("Write: %v", err)
	}
	tp.waitFor(`"marmalade" twice`, func(out string) bool { return strings.Count(out, "marmalade") >= 2 })
}

func TestPTYDirAndEnv(t *testing.T) {
	dir := t.TempDir()
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cmd  func() Cmd
		want string
	}{
		{"dir", func() Cmd {
			c := helperCmd(t, "pwd")
			c.Dir = dir
			return c
		}, realDir}, // the helper reports the real path; macOS temp dirs are symlinks
		{"env set", func() Cmd {
			c := helperCmd(t, "getenv", "PANEFLOW_TEST_VALUE")
			c.Env = append(c.Env, "PANEFLOW_TEST_VALUE=marmot")
			return c
		}, "PANEFLOW_TEST_VALUE=marmot"},
		{"env last wins", func() Cmd {
			c := helperCmd(t, "getenv", "PANEFLOW_TEST_VALUE")
			c.Env = append(c.Env, "PANEFLOW_TEST_VALUE=first", "PANEFLOW_TEST_VALUE=second")
			return c
		}, "PANEFLOW_TEST_VALUE=second"},
		{"env unset", func() Cmd {
			return helperCmd(t, "getenv", "PANEFLOW_TEST_VALUE")
		}, "PANEFLOW_TEST_VALUE unset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := startTestPTY(t, tc.cmd())
			// Contains, not equality: ConPTY may add escape sequences.
			if out, _ := tp.waitEOF(); !strings.Contains(out, tc.want+"\r\n") {
				t.Errorf("output = %q, want it to contain the line %q", out, tc.want)
			}
		})
	}
}

func TestPTYStartErrors(t *testing.T) {
	missingDir := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		cmd  Cmd
		is   error // if set, errors.Is(err, is) must hold
	}{
		{"empty argv", Cmd{}, nil},
		{"empty program", Cmd{Argv: []string{""}}, nil},
		{"not in PATH", Cmd{Argv: []string{"paneflow-no-such-program"}}, exec.ErrNotFound},
		{"missing path", Cmd{Argv: []string{filepath.Join(missingDir, "prog")}}, fs.ErrNotExist},
		{"missing dir", func() Cmd { c := helperCmd(t, "echo"); c.Dir = missingDir; return c }(), fs.ErrNotExist},
		{"negative size", func() Cmd { c := helperCmd(t, "echo"); c.Cols = -1; return c }(), nil},
		{"huge size", func() Cmd { c := helperCmd(t, "echo"); c.Rows = 1 << 20; return c }(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := StartPTY(tc.cmd)
			if err == nil {
				_ = p.Kill(0)
				_ = p.Close()
				t.Fatalf("StartPTY(%+v) succeeded, want an error", tc.cmd)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("StartPTY error = %v, want one wrapping %v", err, tc.is)
			}
			if !strings.HasPrefix(err.Error(), "terminal: ") {
				t.Errorf("error %q does not start with %q", err, "terminal: ")
			}
		})
	}
}

// TestPTYWaitRepeatable checks that the exit status survives any number of
// Waits, before and after Done, from several goroutines.
func TestPTYWaitRepeatable(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "exit", "3"))
	want := ExitStatus{Code: 3}
	var wg sync.WaitGroup
	got := make([]ExitStatus, 4)
	errs := make([]error, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = tp.Wait()
		}()
	}
	waitGroupOrFail(t, &wg, "concurrent Wait")
	for i := range got {
		if got[i] != want || errs[i] != nil {
			t.Errorf("concurrent Wait #%d = %+v, %v; want %+v, nil", i, got[i], errs[i], want)
		}
	}
	<-tp.Done()
	for i := range 3 {
		if st, err := tp.Wait(); st != want || err != nil {
			t.Errorf("Wait #%d after Done = %+v, %v; want %+v, nil", i, st, err, want)
		}
	}
}

// TestPTYAfterExit checks what the methods do once the process is gone and
// once the PTY is closed.
func TestPTYAfterExit(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "exit", "0"))
	tp.wait()
	if _, err := tp.Write([]byte("x")); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Write after exit = %v, want os.ErrProcessDone", err)
	}
	if _, err := tp.Foreground(); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Foreground after exit = %v, want os.ErrProcessDone", err)
	}
	for i := range 2 {
		if err := tp.Kill(time.Second); err != nil {
			t.Errorf("Kill #%d after exit = %v, want nil", i, err)
		}
	}
	if err := tp.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := tp.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close = %v, want os.ErrClosed", err)
	}
	if err := tp.Resize(100, 30); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Resize after Close = %v, want os.ErrClosed", err)
	}
	if _, err := tp.Foreground(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Foreground after Close = %v, want os.ErrClosed", err)
	}
}

func TestPTYResizeInvalid(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "hang"))
	for _, sz := range [][2]int{{0, 24}, {80, 0}, {-1, 5}, {maxPTYDim + 1, 10}} {
		if err := tp.Resize(sz[0], sz[1]); err == nil {
			t.Errorf("Resize(%d, %d) = nil, want an error", sz[0], sz[1])
		}
	}
}

// TestPTYKillReturns checks that Kill ends a process that does not ignore
// the polite request and that concurrent Kills all return.
func TestPTYKillReturns(t *testing.T) {
	tp := startTestPTY(t, helperCmd(t, "hang"))
	tp.waitOutput("ready")
	var wg sync.WaitGroup
	kerrs := make([]error, 3)
	for i := range kerrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kerrs[i] = tp.Kill(5 * time.Second)
		}()
	}
	waitGroupOrFail(t, &wg, "Kill")
	for i, err := range kerrs {
		if err != nil {
			t.Errorf("Kill #%d: %v", i, err)
		}
	}
	select {
	case <-tp.Done():
	default:
		t.Fatalf("Done not closed after Kill returned")
	}
	if st := tp.wait(); !st.Signaled {
		t.Errorf("status = %+v, want Signaled", st)
	}
}

// waitGroupOrFail waits for wg, failing the test after testTimeout.
func waitGroupOrFail(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("%s did not return within %v", what, testTimeout)
	}
}

func TestProcessName(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"claude"}, "claude"},
		{[]string{"/usr/local/bin/codex", "exec"}, "codex"},
		{[]string{`C:\Program Files\nodejs\node.EXE`, "x.js"}, "node"},
		{[]string{`C:\tools\gemini.cmd`}, "gemini"},
		{[]string{".exe"}, ".exe"},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			if got := (Process{Argv: tc.argv}).Name(); got != tc.want {
				t.Errorf("Name() = %q, want %q", got, tc.want)
			}
		})
	}
}
