//go:build windows

package terminal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/UserExistsError/conpty"
	"golang.org/x/sys/windows"
)

// killExitCode is the exit code [PTY.Kill] gives the terminated processes:
// 128+SIGKILL, what a shell reports for a killed process on Unix.
const killExitCode = 137

// ConPTY keeps the pseudo console, and with it the output pipe, open after
// the program exits, so Read would never see the end of the output. The
// wait goroutine therefore closes the console itself once the output has
// been quiet for outputQuiet after the exit, or outputDrainLimit after the
// exit at the latest. (The conpty module closes the read end of the pipe
// together with the console, so output still unread at that moment is
// lost; the quiet period is what lets the reader drain it first.)
const (
	outputQuiet      = 200 * time.Millisecond
	outputDrainLimit = 2 * time.Second
)

// ptyOS is the Windows part of a PTY.
type ptyOS struct {
	cpty *conpty.ConPty

	// conMu serialises Resize against Close: closing frees the pseudo
	// console, and resizing a freed console would touch freed memory.
	conMu sync.Mutex

	// procMu guards proc and job, which the wait goroutine closes once
	// the process has exited, against use by a concurrent Kill.
	procMu        sync.Mutex
	proc          windows.Handle // SYNCHRONIZE|QUERY|TERMINATE access to the program
	job           windows.Handle // job object holding the process tree; 0 if unavailable
	handlesClosed bool

	killed     atomic.Bool  // Kill terminated the process
	lastOutput atomic.Int64 // UnixNano of the last Read that returned data
}

// findExecutable resolves name the way CreateProcess users expect, but
// without searching the current directory: a name with a path separator or
// drive is resolved against dir when relative; any other name is searched
// in the PATH of env (or of this process when env has none). Names without
// an extension from PATHEXT get each of those extensions tried in turn.
func findExecutable(name, dir string, env []string) (string, error) {
	exts := pathExts(env)
	if strings.ContainsAny(name, `/\:`) {
		file := name
		if !filepath.IsAbs(file) && dir != "" {
			file = filepath.Join(dir, file)
		}
		found, err := findWithExt(file, exts)
		if err != nil {
			// Report a missing file as such (wrapping fs.ErrNotExist),
			// as on Unix.
			if _, serr := os.Stat(file); serr != nil {
				return "", serr
			}
		}
		return found, err
	}
	path, ok := envValue(env, "PATH", true)
	if !ok {
		path = os.Getenv("PATH")
	}
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		if f, err := findWithExt(filepath.Join(d, name), exts); err == nil {
			return f, nil
		}
	}
	return "", exec.ErrNotFound
}

// pathExts returns the lower-cased executable extensions of PATHEXT.
func pathExts(env []string) []string {
	v, ok := envValue(env, "PATHEXT", true)
	if !ok {
		v = os.Getenv("PATHEXT")
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(v), ";") {
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

func findWithExt(file string, exts []string) (string, error) {
	isFile := func(f string) bool {
		fi, err := os.Stat(f)
		return err == nil && fi.Mode().IsRegular()
	}
	ext := strings.ToLower(filepath.Ext(file))
	for _, e := range exts {
		if ext == e && isFile(file) {
			return file, nil
		}
	}
	for _, e := range exts {
		if isFile(file + e) {
			return file + e, nil
		}
	}
	return "", exec.ErrNotFound
}

func (p *PTY) start(path string, argv []string, dir string, env []string, cols, rows int) error {
	if _, ok := envValue(env, "SYSTEMROOT", true); !ok {
		if v, ok := os.LookupEnv("SYSTEMROOT"); ok {
			env = append(env[:len(env):len(env)], "SYSTEMROOT="+v)
		}
	}
	// The resolved path replaces Argv[0] so that CreateProcess runs exactly
	// the file found above instead of searching again.
	args := append([]string{path}, argv[1:]...)
	cpty, err := conpty.Start(windows.ComposeCommandLine(args),
		conpty.ConPtyDimensions(cols, rows),
		conpty.ConPtyWorkDir(dir),
		conpty.ConPtyEnv(env))
	if err != nil {
		return err
	}
	pid := cpty.Pid()
	// The ConPty keeps its own process handle, so the pid cannot have been
	// reused yet; this handle is ours to wait on and to terminate with.
	proc, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		_ = cpty.Close() // closing the pseudo console ends the process
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	p.cpty, p.proc, p.pid = cpty, proc, pid
	p.job = newProcessJob(proc)
	p.lastOutput.Store(time.Now().UnixNano())
	return nil
}

// newProcessJob puts proc into a new job object so that Kill can end the
// processes it starts too. Processes it started before being assigned (a
// window of microseconds after creation) are not in the job. It returns 0
// when the system refuses (the job is then simply not used).
func newProcessJob(proc windows.Handle) windows.Handle {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0
	}
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		_ = windows.CloseHandle(job)
		return 0
	}
	return job
}

// wait reaps the process, records its status, wakes everyone waiting,
// then closes the pseudo console once the output is drained.
func (p *PTY) wait() {
	p.status, p.waitErr = p.waitProcess()

	p.procMu.Lock()
	_ = windows.CloseHandle(p.proc)
	if p.job != 0 {
		_ = windows.CloseHandle(p.job)
	}
	p.handlesClosed = true
	p.procMu.Unlock()

	close(p.done)

	exited := time.Now()
	for !p.closed.Load() {
		now := time.Now()
		quietAt := time.Unix(0, p.lastOutput.Load()).Add(outputQuiet)
		limit := exited.Add(outputDrainLimit)
		if !now.Before(quietAt) || !now.Before(limit) {
			break
		}
		if limit.Before(quietAt) {
			quietAt = limit
		}
		time.Sleep(quietAt.Sub(now))
	}
	_ = p.Close()
}

func (p *PTY) waitProcess() (ExitStatus, error) {
	ev, err := windows.WaitForSingleObject(p.proc, windows.INFINITE)
	if err != nil {
		return ExitStatus{}, fmt.Errorf("terminal: wait: %w", err)
	}
	if ev != windows.WAIT_OBJECT_0 {
		return ExitStatus{}, fmt.Errorf("terminal: wait: unexpected wait result %#x", ev)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(p.proc, &code); err != nil {
		return ExitStatus{}, fmt.Errorf("terminal: wait: %w", err)
	}
	st := ExitStatus{Code: int(int32(code))}
	if p.killed.Load() && code == killExitCode {
		st.Signaled, st.Signal = true, syscall.SIGKILL.String()
	}
	return st, nil
}

func (p *PTY) read(b []byte) (int, error) {
	if p.closed.Load() {
		return 0, io.EOF
	}
	n, err := p.cpty.Read(b)
	if n > 0 {
		p.lastOutput.Store(time.Now().UnixNano())
	}
	if err == nil {
		return n, nil
	}
	// The pipe breaks when the pseudo console is closed; a handle the
	// concurrent Close already released reads as invalid or aborted.
	if p.closed.Load() || errors.Is(err, windows.ERROR_BROKEN_PIPE) ||
		errors.Is(err, windows.ERROR_INVALID_HANDLE) || errors.Is(err, windows.ERROR_OPERATION_ABORTED) {
		return n, io.EOF
	}
	return n, fmt.Errorf("terminal: read: %w", err)
}

// writeNow writes nothing: a pseudo console's write may wait, so the
// writer goroutine writes all of b (see Terminal.SendInputNow).
func (p *PTY) writeNow([]byte) (int, error) { return 0, nil }

func (p *PTY) write(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, err := p.cpty.Write(b[written:])
		written += n
		if err != nil {
			switch {
			case p.closed.Load():
				return written, fmt.Errorf("terminal: write: %w", os.ErrClosed)
			case p.exited():
				return written, fmt.Errorf("terminal: write: %w", os.ErrProcessDone)
			}
			return written, fmt.Errorf("terminal: write: %w", err)
		}
		if n == 0 {
			return written, fmt.Errorf("terminal: write: %w", io.ErrShortWrite)
		}
	}
	return written, nil
}

func (p *PTY) resize(cols, rows int) error {
	p.conMu.Lock()
	defer p.conMu.Unlock()
	if p.closed.Load() {
		return os.ErrClosed
	}
	return p.cpty.Resize(cols, rows)
}

// kill terminates the job (or the process alone) at once: Windows has no
// signal a console program can treat as "please exit" short of closing the
// console, so grace is not used.
func (p *PTY) kill(time.Duration) error {
	var termErr error
	p.procMu.Lock()
	if !p.handlesClosed {
		p.killed.Store(true)
		if p.job != 0 {
			termErr = windows.TerminateJobObject(p.job, killExitCode)
		}
		if p.job == 0 || termErr != nil {
			termErr = windows.TerminateProcess(p.proc, killExitCode)
		}
	}
	p.procMu.Unlock()

	reap := time.NewTimer(killReapTimeout)
	defer reap.Stop()
	select {
	case <-p.done:
		return nil
	case <-reap.C:
		if termErr != nil {
			return fmt.Errorf("terminal: kill: process %d: %w", p.pid, termErr)
		}
		return fmt.Errorf("terminal: kill: process %d still running %v after TerminateProcess", p.pid, killReapTimeout)
	}
}

// closeOS closes the pseudo console, which ends the programs still attached
// to it, and releases its pipes.
//
// A Read blocked in the pipe returns once the console's end of it is
// closed. The conpty module offers no way to close the console without
// also releasing the read handle, so a Read that starts exactly while
// Close runs may find the handle already released; it then fails with an
// invalid-handle error, which Read reports as io.EOF.
func (p *PTY) closeOS() error {
	p.conMu.Lock()
	defer p.conMu.Unlock()
	return p.cpty.Close()
}
