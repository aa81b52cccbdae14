package vtrelay

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// startOnTerminal starts argv as the leader of a session on a new
// pseudo-terminal and returns a relay that looks at it (only pid and
// slave are set) and the terminal's master.
func startOnTerminal(t *testing.T, argv ...string) (*relay, *os.File) {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// What the program writes is read and dropped, so it never waits
	// for room to write.
	go func() { _, _ = io.Copy(io.Discard, m) }()
	return &relay{pid: cmd.Process.Pid, slave: s, log: io.Discard}, m
}

// waiting is r.waitingForInput as a condition for [relay.until].
func waiting(r *relay) func() (bool, error) {
	return func() (bool, error) {
		call, err := r.waitingForInput()
		return call != "", err
	}
}

// waitUntil polls cond (kernel state) until it holds; the bound only
// turns a hang into a failure.
func waitUntil(t *testing.T, r *relay, what string, cond func() (bool, error)) {
	t.Helper()
	if err := r.until(what, cond); err != nil {
		t.Fatal(err)
	}
}

// TestWaitingForInput checks the settle rule on a real program in each
// state it must tell apart. /proc/<pid>/syscall shows the read of a
// program stopped inside it as it shows a read that waits: a rule that
// looks only there and at FIONREAD announces a stopped (or a woken, not
// yet run) program as waiting.
func TestWaitingForInput(t *testing.T) {
	r, master := startOnTerminal(t, "cat")
	waitUntil(t, r, "cat to wait for input", waiting(r))

	if err := unix.Kill(r.pid, unix.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, r, "cat to stop", r.stopped)
	if call, _ := r.syscall(); !readsStdin(call) {
		t.Fatalf("stopped in read(2), /proc/%d/syscall shows %q, not the read: the case is not made", r.pid, call)
	}
	if call, err := r.waitingForInput(); call != "" || err != nil {
		t.Errorf("cat stopped inside read(2): waitingForInput = %q, %v; want \"\"", call, err)
	}

	// Input queued while it is stopped.
	if _, err := master.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, r, "the line to reach cat's queue", func() (bool, error) {
		n, err := unix.IoctlGetInt(int(r.slave.Fd()), unix.TIOCINQ)
		return n == 2, err
	})
	if call, err := r.waitingForInput(); call != "" || err != nil {
		t.Errorf("cat stopped with a line queued: waitingForInput = %q, %v; want \"\"", call, err)
	}

	// Let go, it reads the line, writes it and waits again.
	if err := unix.Kill(r.pid, unix.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, r, "cat to take the line and wait again", waiting(r))
	if n, err := unix.IoctlGetInt(int(r.slave.Fd()), unix.TIOCINQ); n != 0 || err != nil {
		t.Errorf("settled with %d bytes queued (%v)", n, err)
	}
}

// TestWaitingForInputSleeping: a program asleep in another call (vttest's
// 100 ms wait inside instr()) with nothing to read is not waiting.
func TestWaitingForInputSleeping(t *testing.T) {
	r, _ := startOnTerminal(t, "sleep", "600")
	waitUntil(t, r, "sleep to sleep", func() (bool, error) {
		call, _ := r.syscall()
		s, _ := r.state()
		return s == 'S' && call != "" && !strings.HasPrefix(call, "running"), nil
	})
	if w, err := r.waitingForInput(); w != "" || err != nil {
		call, _ := r.syscall()
		t.Errorf("sleep(1) in %q: waitingForInput = %q, %v; want \"\"", call, w, err)
	}
}
