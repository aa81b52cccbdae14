// Package tmuxtest drives a private tmux server so that tests and benchmarks can
// run a program in a tmux pane and compare what tmux shows with what Paneflow's
// terminal shows.
//
// Every [Server] has its own socket (tmux -L with a unique name) and reads no
// configuration file (-f /dev/null), so neither the user's tmux nor their
// ~/.tmux.conf is touched. The server is killed when the test ends.
//
// [Server.Control] starts a control-mode client (tmux -C): one connection that
// sends commands without a process start each and receives the output of the
// attached session's panes as it happens, the fastest way tmux offers to
// drive it and watch it.
//
// The package does not start tmux clients that attach to a terminal, does not
// parse tmux's escape-sequence output, and does not work on Windows (tmux has no
// Windows build); [New] skips the test when tmux is not installed.
//
// # Concurrency
//
// A [Server] and its [Pane] values may be used from several goroutines at once:
// every method runs one tmux client process and keeps no mutable state besides
// the server's close-once guard. A [Control] client serializes its own
// commands.
package tmuxtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// CommandTimeout bounds every tmux client invocation. It is generous because
// the test machines are small and shared; a healthy tmux answers in milliseconds.
const CommandTimeout = 60 * time.Second

// DefaultHistoryLimit is the history-limit a [Server] uses when
// [Options.HistoryLimit] is zero. It matches Paneflow's default scrollback.
const DefaultHistoryLimit = 10000

// DefaultTerm is the default-terminal a [Server] uses when [Options.Term] is
// empty, so programs in a pane see TERM=xterm-256color as they do in Paneflow.
const DefaultTerm = "xterm-256color"

// ErrNotInstalled is returned by [LookPath] when no tmux binary is on PATH.
var ErrNotInstalled = errors.New("tmuxtest: tmux is not installed")

// LookPath returns the path of the tmux binary, or an error wrapping
// [ErrNotInstalled].
func LookPath() (string, error) {
	p, err := exec.LookPath("tmux")
	if err != nil {
		return "", fmt.Errorf("%w (make test installs it; or apt-get install tmux): %v", ErrNotInstalled, err)
	}
	return p, nil
}

// Options configures a [Server]. The zero value is usable: the test process's
// PATH and HOME with LANG=C.UTF-8, history-limit 10000 and TERM=xterm-256color.
type Options struct {
	// Env is the environment of the server and therefore of every pane, before
	// tmux adds its own variables (TMUX, TMUX_PANE, TERM from Term,
	// TERM_PROGRAM, TERM_PROGRAM_VERSION, and SHELL when unset). Nil means
	// PATH and HOME of the test process and LANG=C.UTF-8.
	Env []string

	// HistoryLimit is tmux's history-limit for every pane created by the
	// server. Zero means DefaultHistoryLimit. tmux frees a tenth of the
	// history once it reaches the limit, so a pane holds at most
	// HistoryLimit-1 history lines.
	HistoryLimit int

	// Term is the default-terminal option, the TERM programs see. Empty means
	// DefaultTerm.
	Term string
}

// Server is a private tmux server. Create one with [New]; its zero value is not
// usable. Methods are safe for concurrent use.
type Server struct {
	bin    string
	socket string // the -L name
	path   string // the socket file, removed by Close
	env    []string
	closed sync.Once
}

var serial atomic.Uint64

// New starts a private tmux server for tb and kills it in tb.Cleanup. It skips
// tb when tmux is not installed and fails tb when the server cannot be started.
func New(tb testing.TB, o Options) *Server {
	tb.Helper()
	s, err := Start(o)
	if errors.Is(err, ErrNotInstalled) {
		tb.Skipf("skipping: %v", err)
	}
	if err != nil {
		tb.Fatalf("tmuxtest: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start starts a private tmux server. The caller must call [Server.Close].
// Prefer [New] in tests.
func Start(o Options) (*Server, error) {
	bin, err := LookPath()
	if err != nil {
		return nil, err
	}
	env := o.Env
	if env == nil {
		env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
	}
	hist := o.HistoryLimit
	if hist == 0 {
		hist = DefaultHistoryLimit
	}
	term := o.Term
	if term == "" {
		term = DefaultTerm
	}
	s := &Server{
		bin:    bin,
		socket: fmt.Sprintf("pftest-%d-%d-%d", os.Getpid(), serial.Add(1), time.Now().UnixNano()%1e6),
		env:    env,
	}
	// exit-empty off keeps the server alive with no session, so panes can be
	// created one by one with options that are already in place.
	// window-size manual is deliberately not set globally here: tmux 3.3a
	// crashes when a detached session is created with -x/-y while the global
	// window-size is manual. [Server.NewPane] sets it per window instead.
	out, err := s.Command("start-server", ";",
		"set-option", "-s", "exit-empty", "off", ";",
		"set-option", "-g", "history-limit", strconv.Itoa(hist), ";",
		"set-option", "-g", "default-terminal", term, ";",
		"display-message", "-p", "#{socket_path}")
	s.path = strings.TrimSpace(out)
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Socket returns the name of the server's socket as given to tmux -L.
func (s *Server) Socket() string { return s.socket }

// Command runs one tmux client command line against the server (arguments as
// tmux takes them; use ";" to separate commands) and returns its standard
// output. The error includes tmux's standard error.
func (s *Server) Command(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	return s.CommandContext(ctx, args...)
}

// CommandContext is [Server.Command] bounded by ctx instead of CommandTimeout.
func (s *Server) CommandContext(ctx context.Context, args ...string) (string, error) {
	full := append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)
	cmd := exec.CommandContext(ctx, s.bin, full...)
	cmd.Env = s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Cmd returns an unstarted tmux client process for the command line args,
// with the server's socket and environment, for callers that run the process
// themselves (e.g. to time it). Its standard streams are unset.
func (s *Server) Cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(s.bin, append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	return cmd
}

// PID returns the process id of the tmux server.
func (s *Server) PID() (int, error) {
	out, err := s.Command("display-message", "-p", "#{pid}")
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("tmuxtest: server pid %q: %v", out, err)
	}
	return pid, nil
}

// WaitFor blocks until a pane runs `tmux wait-for -S channel` or ctx ends. A
// signal sent before WaitFor is called is not lost: tmux remembers it.
func (s *Server) WaitFor(ctx context.Context, channel string) error {
	_, err := s.CommandContext(ctx, "wait-for", channel)
	return err
}

// Close kills the server and every pane in it. It is safe to call more than
// once.
func (s *Server) Close() {
	s.closed.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// An error means the server is already gone; nothing else to do.
		_, _ = s.CommandContext(ctx, "kill-server")
		// tmux leaves the socket file behind after kill-server.
		if s.path != "" {
			_ = os.Remove(s.path)
		}
	})
}

// PaneOptions describes the program to run in a new pane.
type PaneOptions struct {
	// Argv is the program and its arguments. It must have at least two
	// elements (tmux runs a single string through the shell); wrap a lone
	// command as []string{"sh", "-c", cmd}.
	Argv []string

	// Dir is the working directory; empty means the server's.
	Dir string

	// Env adds VAR=value entries to the pane's environment (new-session -e).
	Env []string

	// Cols and Rows are the window size; zero means 80×24.
	Cols, Rows int

	// Session names the session; empty means a unique name.
	Session string
}

// Pane is one tmux pane, the only pane of its own session and window. Its
// methods are safe for concurrent use.
type Pane struct {
	s  *Server
	id string
}

// NewPane creates a detached session of the given size whose only pane runs
// o.Argv, and returns the pane. The window's size is fixed (window-size
// manual) so [Pane.Resize] takes effect without a client.
func (s *Server) NewPane(o PaneOptions) (*Pane, error) {
	if len(o.Argv) < 2 {
		return nil, fmt.Errorf("tmuxtest: argv %q: need at least two elements (wrap in sh -c)", o.Argv)
	}
	cols, rows := o.Cols, o.Rows
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	name := o.Session
	if name == "" {
		name = fmt.Sprintf("s%d", serial.Add(1))
	}
	args := []string{"new-session", "-d", "-P", "-F", "#{pane_id}", "-s", name,
		"-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)}
	if o.Dir != "" {
		args = append(args, "-c", o.Dir)
	}
	for _, e := range o.Env {
		args = append(args, "-e", e)
	}
	args = append(args, o.Argv...)
	out, err := s.Command(args...)
	if err != nil {
		return nil, err
	}
	p := &Pane{s: s, id: strings.TrimSpace(out)}
	if _, err := s.Command("set-option", "-w", "-t", p.id, "window-size", "manual"); err != nil {
		return nil, err
	}
	return p, nil
}

// ID returns the pane's id (such as "%3"), usable as a tmux target.
func (p *Pane) ID() string { return p.id }

// Capture is the text of a pane at one moment, as tmux capture-pane -p prints
// it: one string per row, trailing spaces removed, a wide character once.
type Capture struct {
	// History holds the history rows, oldest first; empty when there is none.
	History []string
	// Screen holds the visible rows, top first; always one per pane row.
	Screen []string
}

// Capture returns the pane's history and screen, read in one tmux command
// queue so they are consistent with each other.
func (p *Pane) Capture() (Capture, error) {
	// capture-pane -S - -E -1 on an empty history swaps its bounds and
	// returns the first screen row, so the history size is read in the same
	// command queue and the output split by it instead.
	out, err := p.s.Command(
		"display-message", "-p", "-t", p.id, "#{history_size} #{pane_height}", ";",
		"capture-pane", "-p", "-t", p.id, "-S", "-", "-E", "-")
	if err != nil {
		return Capture{}, err
	}
	first, rest, ok := strings.Cut(out, "\n")
	if !ok {
		return Capture{}, fmt.Errorf("tmuxtest: capture of %s: no header in %q", p.id, out)
	}
	var hist, height int
	if _, err := fmt.Sscanf(first, "%d %d", &hist, &height); err != nil {
		return Capture{}, fmt.Errorf("tmuxtest: capture of %s: header %q: %v", p.id, first, err)
	}
	lines := strings.Split(strings.TrimSuffix(rest, "\n"), "\n")
	if len(lines) != hist+height {
		return Capture{}, fmt.Errorf("tmuxtest: capture of %s: got %d rows, want %d history + %d screen", p.id, len(lines), hist, height)
	}
	return Capture{History: lines[:hist:hist], Screen: lines[hist:]}, nil
}

// SendBytes writes p to the program in the pane exactly as given, as if typed
// (send-keys -H, so no key-name translation happens).
func (p *Pane) SendBytes(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	args := []string{"send-keys", "-t", p.id, "-H"}
	for _, c := range b {
		args = append(args, strconv.FormatUint(uint64(c), 16))
	}
	_, err := p.s.Command(args...)
	return err
}

// Resize sets the size of the pane's window (resize-window), which the pane
// fills.
func (p *Pane) Resize(cols, rows int) error {
	_, err := p.s.Command("resize-window", "-t", p.id, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows))
	return err
}

// Display expands a tmux format (such as "#{history_size}") for the pane.
func (p *Pane) Display(format string) (string, error) {
	out, err := p.s.Command("display-message", "-p", "-t", p.id, format)
	return strings.TrimSuffix(out, "\n"), err
}

// Kill kills the pane and with it its session.
func (p *Pane) Kill() error {
	_, err := p.s.Command("kill-pane", "-t", p.id)
	return err
}
