//go:build !windows

package terminal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// groupPollInterval is how often [PTY.Kill] checks whether the rest of a
// process group is gone after its leader exited. The kernel offers no
// notification for "process group became empty".
const groupPollInterval = 20 * time.Millisecond

// errNoForeground is returned when the terminal has no foreground process
// group (the session ended, or the leader gave up the terminal).
var errNoForeground = errors.New("no foreground process group")

// ptyOS is the Unix part of a PTY.
type ptyOS struct {
	// master is the master side of the terminal, non-blocking and
	// registered with the runtime poller, so that Close interrupts a
	// pending Read and write deadlines work.
	master *os.File
	cmd    *exec.Cmd // Wait is called once, by the wait goroutine
	// fg remembers the last foreground process described (Linux).
	fg fgCache
}

// findExecutable resolves name like a shell: a name containing a slash is
// used as is (relative to the child's working directory), any other name
// is searched in the PATH of env, or of this process when env has none.
// Relative PATH entries are skipped: they would resolve against a
// directory the caller did not choose (os/exec refuses them too).
func findExecutable(name, _ string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path, ok := envValue(env, "PATH", false)
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		file := filepath.Join(dir, name)
		if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return file, nil
		}
	}
	return "", exec.ErrNotFound
}

func (p *PTY) start(path string, argv []string, dir string, env []string, cols, rows int) error {
	defaultChildSignals()
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: dir, Env: env}
	// StartWithSize makes the child a session leader with the terminal as
	// its controlling tty (Setsid, Setctty on fd 0) and closes the slave
	// in this process once the child has it.
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return err
	}
	m, err := pollable(master)
	if err != nil {
		_ = master.Close()
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		_ = cmd.Wait()
		return err
	}
	p.master, p.cmd, p.pid = m, cmd, cmd.Process.Pid
	return nil
}

// pollable returns f's descriptor as a non-blocking *os.File and closes f.
//
// creack/pty hands the master back in blocking mode: its ioctls go through
// File.Fd, which switches the descriptor to blocking and takes it off the
// runtime poller. A blocking master cannot be interrupted by Close and
// ignores deadlines. The duplicate shares the open file description, so
// setting O_NONBLOCK on it applies to the one terminal; os.NewFile sees the
// flag and registers the descriptor with the poller.
func pollable(f *os.File) (*os.File, error) {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("set master non-blocking: %w", err)
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	_ = f.Close()
	return nf, nil
}

// wait reaps the process, records its status and wakes everyone waiting.
func (p *PTY) wait() {
	err := p.cmd.Wait()
	p.status, p.waitErr = exitStatusOf(p.cmd.ProcessState, err)
	// Writes must not block on a terminal nobody reads any more (a
	// background process may still hold the slave open). The deadline is
	// only ever set here, so Write maps it to os.ErrProcessDone.
	_ = p.master.SetWriteDeadline(time.Now())
	close(p.done)
}

func exitStatusOf(ps *os.ProcessState, err error) (ExitStatus, error) {
	if ps == nil {
		return ExitStatus{}, fmt.Errorf("terminal: wait: %w", err)
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ExitStatus{Code: ps.ExitCode()}, nil
	}
	if ws.Signaled() {
		sig := ws.Signal()
		return ExitStatus{Code: 128 + int(sig), Signal: sig.String(), Signaled: true}, nil
	}
	return ExitStatus{Code: ws.ExitStatus()}, nil
}

// readSlot admits one terminal read at a time across the process; see
// [PTY.read].
var readSlot = make(chan struct{}, 1)

// read waits until the master has output and reads it. The read itself
// happens while holding readSlot: when many terminals stream at once,
// their readers then take turns instead of each keeping a processor busy,
// so that (with the parse slots of the Terminal type bounding the other
// half of the work) output floods leave a processor free for socket
// requests and the user interface. Without that, a hundred flooding panes
// delayed every request by a few hundred milliseconds; one read is a copy
// of at most len(b) bytes, so waiting for a turn costs one pane little.
func (p *PTY) read(b []byte) (int, error) {
	rc, err := p.master.SyscallConn()
	if err != nil {
		return 0, io.EOF // closed
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		readSlot <- struct{}{}
		for {
			n, rerr = unix.Read(int(fd), b)
			if rerr != unix.EINTR {
				break
			}
		}
		<-readSlot
		return rerr != unix.EAGAIN // false: wait until readable, then call again
	})
	switch {
	case err != nil:
		// The poller failed the wait: the master was closed (the
		// poller's "use of closed file" is not os.ErrClosed) or a
		// deadline passed.
		if p.closed.Load() {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("terminal: read: %w", err)
	case rerr == nil && n > 0:
		return n, nil
	case rerr == nil:
		// Zero bytes: the slave side is gone (BSDs; Linux says EIO).
		return 0, io.EOF
	case errors.Is(rerr, syscall.EIO):
		return 0, io.EOF
	}
	return 0, fmt.Errorf("terminal: read: %w", rerr)
}

// writeNow writes what of b the terminal's input buffer takes without
// waiting: n < len(b) and no error when it is full.
func (p *PTY) writeNow(b []byte) (int, error) {
	if p.closed.Load() {
		return 0, fmt.Errorf("terminal: write: %w", os.ErrClosed)
	}
	if p.exited() {
		return 0, fmt.Errorf("terminal: write: %w", os.ErrProcessDone)
	}
	rc, err := p.master.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("terminal: write: %w", os.ErrClosed)
	}
	var n int
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			n, werr = unix.Write(int(fd), b)
			if werr != unix.EINTR {
				break
			}
		}
		return true // one try: never wait for room
	})
	switch {
	case err != nil:
		return 0, fmt.Errorf("terminal: write: %w", err)
	case werr == unix.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, fmt.Errorf("terminal: write: %w", werr)
	}
	return n, nil
}

func (p *PTY) write(b []byte) (int, error) {
	n, err := p.master.Write(b)
	switch {
	case err == nil:
		return n, nil
	case errors.Is(err, os.ErrDeadlineExceeded) || p.exited():
		return n, fmt.Errorf("terminal: write: %w", os.ErrProcessDone)
	case errors.Is(err, os.ErrClosed):
		return n, fmt.Errorf("terminal: write: %w", os.ErrClosed)
	}
	return n, fmt.Errorf("terminal: write: %w", err)
}

// control runs fn on the master's descriptor without switching it to
// blocking mode (as File.Fd would).
func (p *PTY) control(fn func(fd int) error) error {
	rc, err := p.master.SyscallConn()
	if err != nil {
		return err
	}
	var fnErr error
	if err := rc.Control(func(fd uintptr) { fnErr = fn(int(fd)) }); err != nil {
		return err
	}
	return fnErr
}

func (p *PTY) resize(cols, rows int) error {
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	return p.control(func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
}

// ttyPgrp returns the foreground process group of the terminal, asking
// the master side (TIOCGPGRP, i.e. tcgetpgrp).
func (p *PTY) ttyPgrp() (int, error) {
	var pgrp int
	err := p.control(func(fd int) error {
		var err error
		pgrp, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	if err != nil {
		return 0, err
	}
	if pgrp <= 0 {
		return 0, errNoForeground
	}
	return pgrp, nil
}

// foreground describes the leader of the foreground group with the
// fields own or other ask for (see [PTY.ForegroundFields]); with r, a
// Terminal's last description, that one while it holds at the terminal's
// activity count act (see recentFg), and what is read is kept there.
func (p *PTY) foreground(own, other Fields, r *recentFg, act uint64) (Process, error) {
	if r != nil {
		if pr, ok := r.reuse(p.pid, own, other, act); ok {
			return pr, nil
		}
	}
	pgrp, err := p.foregroundPgrp()
	if err != nil {
		return Process{}, err
	}
	want := other
	if pgrp == p.pid {
		want = own
	}
	pr, err := p.fg.describe(pgrp, want)
	if err == nil && r != nil && want != 0 {
		r.keep(pgrp, want, act, pr)
	}
	return pr, err
}

func (p *PTY) kill(grace time.Duration) error {
	// The process group of the program (its pgid is its pid: it is a
	// session leader), plus the foreground job when a shell with job
	// control runs one in a group of its own.
	groups := []int{p.pid}
	if !p.closed.Load() {
		if fg, err := p.foregroundPgrp(); err == nil && fg != p.pid {
			if sid, err := unix.Getsid(fg); err == nil && sid == p.pid {
				groups = append(groups, fg)
			}
		}
	}
	// SIGCONT lets stopped processes act on the SIGTERM.
	signalGroups(groups, unix.SIGHUP, unix.SIGTERM, unix.SIGCONT)

	graceTimer := time.NewTimer(grace)
	defer graceTimer.Stop()
	select {
	case <-p.done:
		// The leader is gone; its group gets the rest of the grace
		// period. Groups found empty are not signalled again.
		groups = awaitGroupsEmpty(groups, graceTimer.C)
	case <-graceTimer.C:
	}
	signalGroups(groups, unix.SIGKILL)

	reap := time.NewTimer(killReapTimeout)
	defer reap.Stop()
	select {
	case <-p.done:
		return nil
	case <-reap.C:
		return fmt.Errorf("terminal: kill: process %d not reaped %v after SIGKILL", p.pid, killReapTimeout)
	}
}

// signalGroups sends each signal to each process group. Errors are
// ignored: a group may already be gone (ESRCH), and there is nothing
// better to do for one that may not be signalled (EPERM).
func signalGroups(groups []int, sigs ...unix.Signal) {
	for _, sig := range sigs {
		for _, g := range groups {
			_ = unix.Kill(-g, sig)
		}
	}
}

// awaitGroupsEmpty waits until no group in groups has a live process or
// expired fires, and returns the groups that still have live processes.
func awaitGroupsEmpty(groups []int, expired <-chan time.Time) []int {
	tick := time.NewTicker(groupPollInterval)
	defer tick.Stop()
	for {
		live := groups[:0:0]
		for _, g := range groups {
			if groupAlive(g) {
				live = append(live, g)
			}
		}
		groups = live
		if len(groups) == 0 {
			return nil
		}
		select {
		case <-expired:
			return groups
		case <-tick.C:
		}
	}
}

func (p *PTY) closeOS() error {
	return p.master.Close()
}
