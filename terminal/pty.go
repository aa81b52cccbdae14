package terminal

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Cmd describes a program to start on a pseudo-terminal with [StartPTY].
// Its zero value is not startable: Argv is required. A Cmd is plain data;
// StartPTY does not modify or retain it.
type Cmd struct {
	// Argv is the program and its arguments; it must not be empty.
	// Argv[0] is looked up like a shell would: a name without a path
	// separator is searched in the PATH of Env (or of this process when
	// Env does not set PATH); relative PATH entries are skipped. A name
	// with a separator is used as is, relative to Dir. On Windows the
	// extensions of PATHEXT are tried as well.
	Argv []string

	// Dir is the working directory of the program. "" means the working
	// directory of the calling process.
	Dir string

	// Env is the complete environment of the program, as "KEY=value"
	// strings. nil means os.Environ(); an empty, non-nil slice means an
	// empty environment. StartPTY adds nothing (not even TERM), except that
	// on Windows SYSTEMROOT is copied from this process when missing, as
	// os/exec does, because many Windows programs fail without it.
	Env []string

	// Cols and Rows are the initial size of the terminal in cells.
	// 0 means 80 columns and 24 rows respectively.
	Cols, Rows int
}

// Default terminal size used by [StartPTY] when [Cmd.Cols] or [Cmd.Rows] is 0.
const (
	DefaultCols = 80
	DefaultRows = 24
)

// maxPTYDim is the largest number of columns or rows a PTY accepts. It is
// the limit of Windows' ConPTY (a signed 16-bit COORD); Unix allows more, but
// no real terminal comes near it.
const maxPTYDim = 32767

// killReapTimeout bounds how long [PTY.Kill] waits for the process to be
// reaped after the forced kill (SIGKILL or TerminateProcess). A process only
// outlives that in uninterruptible kernel sleep (a hung NFS mount, say).
const killReapTimeout = 5 * time.Second

// ExitStatus is how a process on a [PTY] ended. The zero value means a
// normal exit with code 0.
type ExitStatus struct {
	// Code is the exit code. For a process killed by a signal it is
	// 128+signal number (137 for SIGKILL), the shell convention, so that
	// a single integer describes every way a process can end. On Windows
	// it is the process exit code as a signed 32-bit value (NTSTATUS
	// codes such as 0xC000013A are negative).
	Code int
	// Signal names the signal that killed the process in the words of
	// [syscall.Signal.String], e.g. "killed", "hangup", "terminated";
	// "" when the process exited by itself.
	Signal string
	// Signaled reports whether a signal ended the process. On Windows it
	// is true only for a process ended by [PTY.Kill] (reported as
	// "killed", code 137).
	Signaled bool
}

// String describes the status like os.ProcessState does: "exit status 3"
// or "signal: killed".
func (s ExitStatus) String() string {
	if s.Signaled {
		return "signal: " + s.Signal
	}
	return "exit status " + strconv.Itoa(s.Code)
}

// Process describes a process attached to a terminal, as reported by
// [PTY.Foreground]. Fields that could not be read are left empty: the
// zero value means "unknown".
type Process struct {
	// Pid is the process id.
	Pid int
	// Argv is the command line the process was started with (it may have
	// rewritten it since). On macOS it is read with kern.procargs2 and
	// falls back to the executable name; on Windows it is parsed from the
	// process command line and falls back to the executable's basename.
	Argv []string
	// Cwd is the current working directory of the process. It is known
	// on Linux only; elsewhere it is "".
	Cwd string
}

// Name returns the basename of Argv[0] without a Windows executable
// extension (.exe, .cmd, .bat, .com), or "" when Argv is empty. It is what
// callers compare against known program names.
func (p Process) Name() string {
	if len(p.Argv) == 0 {
		return ""
	}
	name := p.Argv[0]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		if len(name) > len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext) {
			return name[:len(name)-len(ext)]
		}
	}
	return name
}

// PTY is a running program attached to a pseudo-terminal. It owns the
// master side of the terminal (the ConPTY pipes on Windows) and the
// process handle. Create one with [StartPTY]; the zero value is not usable.
//
// # Lifecycle
//
// The process runs until it exits or is killed with [PTY.Kill]. A PTY
// reaps its process by itself (one internal goroutine per PTY, which ends
// when the process has exited); [PTY.Done] is closed and [PTY.Wait]
// returns once that happened. [PTY.Close] releases the terminal and
// unblocks a pending Read, but it neither kills the process nor waits for
// it: closing the master hangs the terminal up, which on Unix sends SIGHUP
// to the program and on Windows ends the programs attached to the console.
// An owner that wants the process gone calls Kill, then Close. On Windows
// the internal goroutine also closes the pseudo console by itself once the
// output has gone quiet after the exit (see [PTY.Read]).
//
// # Concurrency
//
// Read must be called from one goroutine at a time (the owner's reader
// goroutine). Write, Resize, Kill, Foreground, Close, Wait, Done and Pid may
// be called from any goroutine, concurrently with each other and with Read.
// The bytes of one Write are never interleaved with those of another.
type PTY struct {
	ptyOS // platform part: master file or ConPTY, process handles

	pid  int
	done chan struct{} // closed once the process has been reaped

	// status and waitErr are written by the wait goroutine before done is
	// closed and never change afterwards.
	status  ExitStatus
	waitErr error

	closed    atomic.Bool // set at the start of Close
	closeOnce sync.Once
}

// StartPTY starts c.Argv on a new pseudo-terminal of c.Cols×c.Rows cells.
//
// On Unix the program becomes the leader of a new session whose
// controlling terminal is the PTY (setsid + TIOCSCTTY), so [PTY.Kill] can
// reach everything it starts through its process group. On Windows the
// program is attached to a new ConPTY pseudo console and, when the system
// allows, to a job object so that Kill ends its whole process tree.
//
// A program that cannot be found yields an error wrapping
// [os/exec.ErrNotFound]; a program that cannot be executed yields the
// error of the operating system (wrapping [os.ErrNotExist],
// [os.ErrPermission], ...). On error nothing is left running or open.
func StartPTY(c Cmd) (*PTY, error) {
	pc, err := prepare(c)
	if err != nil {
		return nil, err
	}
	return pc.start()
}

// preparedCmd is a [Cmd] whose checks passed: the size is valid, the
// directory exists and the program was found. Only opening the terminal
// and starting the process remain, the part that can take long on a busy
// machine.
type preparedCmd struct {
	path       string // resolved program
	argv       []string
	dir        string
	env        []string
	cols, rows int
}

// prepare checks c and resolves its program, with the errors documented
// on [StartPTY].
func prepare(c Cmd) (preparedCmd, error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return preparedCmd{}, errors.New("terminal: start: empty Argv")
	}
	cols, rows := c.Cols, c.Rows
	if cols == 0 {
		cols = DefaultCols
	}
	if rows == 0 {
		rows = DefaultRows
	}
	if err := checkPTYSize(cols, rows); err != nil {
		return preparedCmd{}, fmt.Errorf("terminal: start %q: %w", c.Argv[0], err)
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	// The error of a failed chdir in the child names neither the
	// directory nor the step; check first, as os/exec does.
	if c.Dir != "" {
		if fi, err := os.Stat(c.Dir); err != nil {
			return preparedCmd{}, fmt.Errorf("terminal: start %q: chdir: %w", c.Argv[0], err)
		} else if !fi.IsDir() {
			return preparedCmd{}, fmt.Errorf("terminal: start %q: chdir %s: not a directory", c.Argv[0], c.Dir)
		}
	}
	path, err := findExecutable(c.Argv[0], c.Dir, env)
	if err != nil {
		return preparedCmd{}, fmt.Errorf("terminal: start %q: %w", c.Argv[0], err)
	}
	return preparedCmd{path: path, argv: c.Argv, dir: c.Dir, env: env, cols: cols, rows: rows}, nil
}

// start opens the pseudo-terminal and starts the process.
func (pc preparedCmd) start() (*PTY, error) {
	p := &PTY{done: make(chan struct{})}
	if err := p.start(pc.path, pc.argv, pc.dir, pc.env, pc.cols, pc.rows); err != nil {
		return nil, fmt.Errorf("terminal: start %q: %w", pc.argv[0], err)
	}
	go p.wait()
	return p, nil
}

// envValue returns the value of the last key=value entry of env (the one
// a program would see), comparing keys case-insensitively when fold is set.
func envValue(env []string, key string, fold bool) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(env[i], "=")
		if ok && (k == key || fold && strings.EqualFold(k, key)) {
			return v, true
		}
	}
	return "", false
}

func checkPTYSize(cols, rows int) error {
	if cols < 1 || rows < 1 || cols > maxPTYDim || rows > maxPTYDim {
		return fmt.Errorf("invalid terminal size %dx%d (want 1..%d each)", cols, rows, maxPTYDim)
	}
	return nil
}

// Read reads output of the program (everything it writes to the terminal,
// including echoed input). It blocks until output is available.
//
// Read returns [io.EOF] once no more output can come: on Unix when every
// process that had the terminal open has closed it (a background process
// that inherited the terminal can keep it open after the main process
// exited), on Windows once the pseudo console has been closed, which
// happens by itself shortly after the process exits (ConPTY gives no other
// end-of-output signal). Read also returns io.EOF after [PTY.Close]. Any
// other error is an I/O error.
//
// Read must not be called from two goroutines at once.
func (p *PTY) Read(b []byte) (int, error) {
	return p.read(b)
}

// Write sends b to the program as terminal input (keystrokes, pastes,
// replies to terminal queries). It blocks while the terminal's input
// buffer is full, that is while the program is not reading; it never
// blocks past the exit of the process: after the process has exited, Write
// returns an error wrapping [os.ErrProcessDone]. After [PTY.Close] it
// returns an error wrapping [os.ErrClosed].
func (p *PTY) Write(b []byte) (int, error) {
	if p.closed.Load() {
		return 0, fmt.Errorf("terminal: write: %w", os.ErrClosed)
	}
	if p.exited() {
		return 0, fmt.Errorf("terminal: write: %w", os.ErrProcessDone)
	}
	return p.write(b)
}

// Resize sets the terminal size to cols×rows cells; the program is told
// (SIGWINCH on Unix). Both must be in 1..32767. Resize after [PTY.Close]
// returns an error wrapping [os.ErrClosed].
func (p *PTY) Resize(cols, rows int) error {
	if err := checkPTYSize(cols, rows); err != nil {
		return fmt.Errorf("terminal: resize: %w", err)
	}
	if p.closed.Load() {
		return fmt.Errorf("terminal: resize: %w", os.ErrClosed)
	}
	if err := p.resize(cols, rows); err != nil {
		return fmt.Errorf("terminal: resize: %w", err)
	}
	return nil
}

// Pid returns the process id of the program. It stays the same after the
// process exited, but the system may then reuse it for another process.
func (p *PTY) Pid() int { return p.pid }

// Done returns a channel that is closed once the process has exited and
// been reaped. After that, [PTY.Wait] returns at once.
func (p *PTY) Done() <-chan struct{} { return p.done }

// Wait waits for the process to exit and returns how it ended. It may be
// called any number of times, from any goroutine, before or after
// [PTY.Done] is closed: the process is waited for once, internally, and
// every call returns the same result. A process that ends with a non-zero
// code or a signal is not an error; the error is non-nil only when the
// exit status could not be obtained.
func (p *PTY) Wait() (ExitStatus, error) {
	<-p.done
	return p.status, p.waitErr
}

// exited reports whether the process has been reaped.
func (p *PTY) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Kill ends the program and everything it started, then waits for it.
//
// On Unix it sends SIGHUP, SIGTERM and SIGCONT to the program's process
// group and to the terminal's foreground process group (a job started by
// an interactive shell); when processes of those groups are still alive
// after grace, it sends them SIGKILL. On Windows there is no graceful
// step: the job object holding the process tree (or the process alone) is
// terminated at once with exit code 137, and grace is not used.
//
// Kill returns when the process has been reaped (on Unix, after also
// giving the rest of its process group up to grace to go) or, if it never
// is, with an error about grace plus a bounded extra wait after the forced
// kill. A negative grace counts as 0. Kill may be called many times and
// from many goroutines; after the process has exited it returns nil at
// once. It works after [PTY.Close].
func (p *PTY) Kill(grace time.Duration) error {
	if grace < 0 {
		grace = 0
	}
	if p.exited() {
		return nil
	}
	return p.kill(grace)
}

// Foreground reports the process the terminal is currently running in the
// foreground: the leader of the terminal's foreground process group on
// Unix (the program itself, or the job an interactive shell is running),
// the deepest descendant of the program on Windows. See [Process] for the
// fields each system fills in.
//
// It returns an error wrapping [os.ErrProcessDone] once the program has
// exited, and one wrapping [os.ErrClosed] after [PTY.Close].
func (p *PTY) Foreground() (Process, error) {
	return p.ForegroundFields(AllFields, AllFields)
}

// Fields names the parts of a [Process] besides its Pid that
// [PTY.ForegroundFields] reads. The zero value reads none.
type Fields uint8

const (
	// FieldArgv reads [Process.Argv].
	FieldArgv Fields = 1 << iota
	// FieldCwd reads [Process.Cwd].
	FieldCwd

	// AllFields reads every field, as [PTY.Foreground] does.
	AllFields = FieldArgv | FieldCwd
)

// ForegroundFields is [PTY.Foreground] reading only the fields a caller
// uses: own when the foreground process is the program itself (its Pid
// is [PTY.Pid]), other when it is another process. On Linux each field
// is a read of /proc per call, so a caller that knows the program's
// command line, or takes the working directory from the shell's OSC 7,
// saves those reads (surface.list over 200 panes spent most of its time
// in them). Fields not asked for may still be filled: on Windows and
// macOS it reads what Foreground reads.
func (p *PTY) ForegroundFields(own, other Fields) (Process, error) {
	return p.foregroundFields(own, other, nil, 0)
}

// foregroundFields is [PTY.ForegroundFields]; with r, a [Terminal]'s
// last description, it reuses that when it still holds at the terminal's
// activity count act (see recentFg; on Windows r is not used).
func (p *PTY) foregroundFields(own, other Fields, r *recentFg, act uint64) (Process, error) {
	if p.closed.Load() {
		return Process{}, fmt.Errorf("terminal: foreground: %w", os.ErrClosed)
	}
	if p.exited() {
		return Process{}, fmt.Errorf("terminal: foreground: %w", os.ErrProcessDone)
	}
	pr, err := p.foreground(own, other, r, act)
	if err != nil {
		return Process{}, fmt.Errorf("terminal: foreground: %w", err)
	}
	return pr, nil
}

// Close closes the terminal: a pending Read returns [io.EOF] and later
// Writes fail. It does not kill the process or wait for it (see the
// lifecycle notes on [PTY]). Close is idempotent: calls after the first do
// nothing and return nil.
func (p *PTY) Close() error {
	var err error
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		err = p.closeOS()
	})
	if err != nil {
		return fmt.Errorf("terminal: close: %w", err)
	}
	return nil
}
