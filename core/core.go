// Package core assembles Paneflow's headless core: the event bus, the
// workspace model with its terminals, the conductor (agent states), the
// JSON-RPC socket and the methods served on it.
//
// It is the composition root shared by `paneflow serve` (no window) and the
// desktop app (which hosts the same Core in-process and adds a window as one
// more bus subscriber). Subsystem packages never import each other or this
// package; only core and cmd/paneflow wire them together.
//
// # Concurrency
//
// A Core is created by [New], runs with [Core.Serve] and is stopped with
// [Core.Shutdown], which may be called from any goroutine. Its exported
// subsystems are safe for concurrent use.
package core

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/api"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/conductor"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/hookhttp"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/notify"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/usage"
	"github.com/paneflow-go/paneflow/version"
	"github.com/paneflow-go/paneflow/web"
	"github.com/paneflow-go/paneflow/workspace"
)

// Options configures [New]. The zero value serves on the default socket
// path with 200×50 panes.
type Options struct {
	// SocketPath is where the JSON-RPC socket listens; "" resolves it from
	// the environment (PANEFLOW_SOCKET_PATH, XDG_RUNTIME_DIR, …).
	SocketPath string
	// Cols and Rows are the size of new panes; 0 means 200×50.
	Cols, Rows int
	// Getenv reads the server's environment (the scripting gate is read
	// from it at call time); nil means os.Getenv.
	Getenv func(string) string
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
	// NoInitialWorkspace skips creating the first workspace with one shell
	// pane (tests that build their own layout use it).
	NoInitialWorkspace bool
	// Config is the configuration to run with; nil loads paneflow.toml
	// from the config directory, reporting its warnings through Logf.
	Config *config.Config
	// Clock is the time source of every subsystem's timers; nil means the
	// system clock. Tests give a clock.Fake.
	Clock clock.Clock
	// WorktreeRegistry is the file that records the git worktrees
	// Paneflow created (see package worktree); "" means
	// $XDG_STATE_HOME/paneflow/worktrees.json, "-" keeps no record.
	WorktreeRegistry string
	// UsageDir is where the usage subsystem keeps its day files; ""
	// means $XDG_STATE_HOME/paneflow/usage, "-" keeps them in memory only.
	UsageDir string
	// ReviewDir is where the review subsystem keeps each worktree's
	// comments; "" means $XDG_STATE_HOME/paneflow/review, "-" leaves the
	// subsystem out.
	ReviewDir string
	// Notifier, when not nil, shows the server's own desktop
	// notifications of agents that need the user while no window is
	// attached (package notify; `paneflow serve` gives notify.Desktop).
	// nil, as for a window hosting the core itself, shows none; so do the
	// config's notify_without_window = false and
	// notify_when_agent_waiting = "Never".
	Notifier notify.Notifier
	// SessionPath is the session file (package session) the server
	// restores at start, resuming the agents, and keeps saved while it
	// runs; "" keeps no session. `paneflow serve` and the desktop app
	// pass [SessionPath]'s.
	SessionPath string
	// Web is where the browser client listens (package web; `paneflow
	// serve --web`); its zero value serves none (web.* then say so).
	Web web.Listen
}

// worktreeRegistry resolves Options.WorktreeRegistry.
func (o Options) worktreeRegistry(getenv func(string) string) string {
	switch o.WorktreeRegistry {
	case "":
		return worktreeRegistryPath(getenv)
	case "-":
		return ""
	}
	return o.WorktreeRegistry
}

// Core is a running headless Paneflow.
type Core struct {
	Bus        *bus.Bus
	Workspaces *workspace.Manager
	// Conductor knows what the agents in the panes are doing; the GUI
	// reads it and subscribes to its events on Bus.
	Conductor *conductor.Conductor
	// Usage counts what the agents used and spent; the GUI subscribes to
	// its events on Bus.
	Usage    *usage.Usage
	Registry *ipc.Registry
	// Web is the browser client (`paneflow serve --web`); its URL is ""
	// when it serves none.
	Web *web.Service
	// SocketPath is the resolved endpoint the server listens on.
	SocketPath string

	server *ipc.Server
	group  *subsystem.Group // what started, shut down in reverse
	teams  *teamsSubsystem
	// session keeps the session file (see sessionKeeper).
	session *sessionKeeper
	logf    func(format string, args ...any)
	// windows counts the windows attached now (api.Options.Windows; the
	// notify subsystem notifies while it is 0).
	windows api.WindowCount
	// echo is the echo hold of the attached windows' keys (screen.input)
	// and of the hosting window's (HoldEcho).
	echo api.EchoHold
	// stopping is closed (once, by stopOnce) when a client asks the
	// server to end (system.shutdown); see Stopping.
	stopping chan struct{}
	stopOnce sync.Once
}

// Stopping is closed when a client asked this server to end
// (system.shutdown: `paneflow kill-server`, a window's "Stop
// everything"). The host (`paneflow serve`, the window hosting the core)
// then calls Shutdown, as on SIGTERM. Safe for concurrent use.
func (c *Core) Stopping() <-chan struct{} { return c.stopping }

// HoldEcho holds every other pane's output for a moment (api.EchoHold):
// the window hosting the core calls it before it writes a key to pane's
// program, as screen.input does for an attached window's keys, so a pane
// flooding output does not take the processor time the key's echo needs
// (its program, the reader and parser, the paint). Safe for concurrent
// use.
func (c *Core) HoldEcho(pane uint64) { c.echo.Start(c.Workspaces, pane) }

// requestStop closes stopping once.
func (c *Core) requestStop() {
	c.stopOnce.Do(func() {
		c.logf("paneflow: system.shutdown: stopping")
		close(c.stopping)
	})
}

// New builds the core and claims the socket. It fails if another live
// Paneflow already serves on the same path.
func New(o Options) (*Core, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	path := o.SocketPath
	if path == "" {
		p, err := ipc.ServerSocketPath(getenv)
		if err != nil {
			return nil, fmt.Errorf("core: %w", err)
		}
		path = p
	}
	cols, rows := o.Cols, o.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = 200, 50
	}
	cfg := loadConfig(o.Config, getenv, logf)
	var shell []string
	if cfg.DefaultShell != "" {
		shell = []string{cfg.DefaultShell}
	}
	env := make([]string, 0, len(cfg.Terminal.Env))
	for k, v := range cfg.Terminal.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	c := &Core{Bus: bus.New(), SocketPath: path, logf: logf, stopping: make(chan struct{})}
	shims := newShims(getenv, logf)
	if exe, err := os.Executable(); err == nil {
		go refreshBridge(exe, getenv, logf)
	}
	c.Workspaces = workspace.NewManager(workspace.Options{
		Cols: cols, Rows: rows, SocketPath: path, Bus: c.Bus, Getenv: getenv,
		Shell: shell, Env: env, Scrollback: cfg.Terminal.ScrollbackLines,
		ScreenHistoryBytes: screenHistoryBytes(cfg.Terminal.ScreenHistoryKiB), Version: version.String(),
		HistoryDir: historyDir(o.SessionPath, cfg.Terminal.ScreenHistoryDiskKiB, logf), HistoryDiskBytes: max(cfg.Terminal.ScreenHistoryDiskKiB<<10, terminal.MinScreenDiskBytes), Logf: logf,
		ShimDir: shims.dir, NoShellIntegration: !cfg.ShellIntegration,
		Clock: o.Clock, UndoWindow: undoWindow(getenv, logf),
		// The user's answer to an agent's question (no pane exists before
		// the conductor below).
		Input: func(id uint64, p []byte) { c.Conductor.Input(id, p) },
	})
	c.Conductor = conductor.New(conductor.Options{
		Bus:            c.Bus,
		Panes:          paneSource{c.Workspaces},
		StallThreshold: cfg.AgentStallThreshold,
		Processes:      systemProcesses,
		ProcessArgs:    terminal.ProcessArgs,
		ProcessExe:     terminal.ProcessExe,
		ShimDir:        shims.path(),
		Screen:         paneSource{c.Workspaces}.screen,
	})
	c.Usage = newUsage(c.Workspaces, cfg.Usage, o.usageDir(getenv, logf), logf)
	// The worktree owner must exist before the api methods are
	// registered (they hand it managed worktrees); it starts, and so
	// stops, after the "workspace" subsystem.
	worktrees := newWorktreeOwner(o.worktreeRegistry(getenv), func(id uint64) bool { _, ok := c.Workspaces.Surface(id); return ok })
	c.session = newSessionKeeper(o.SessionPath, c.Workspaces, worktrees)
	worktrees.wait = c.session.restored
	worktrees.whenGone = c.Workspaces.WhenGone
	c.Registry = ipc.NewRegistry()
	exec := ipc.NewQueueExecutor(256)
	c.server = &ipc.Server{Path: path, Registry: c.Registry, Executor: exec, Logf: logf}
	c.group = subsystem.NewGroup(subsystem.Options{Registry: c.Registry, Bus: c.Bus, Logf: logf, Clock: o.Clock, Getenv: getenv})
	c.teams = &teamsSubsystem{m: c.Workspaces, socketPath: path}
	wl := o.Web
	if wl.Addr == "" && cfg.Web.Listen != "" {
		// The [web] table of paneflow.toml, when serve was given no
		// --web: a mistake there is reported and serves nothing, as
		// other configuration problems never stop the server.
		wl = web.Listen{Addr: cfg.Web.Listen, CertFile: cfg.Web.TLSCert, KeyFile: cfg.Web.TLSKey}
		if err := web.CheckListen(wl); err != nil {
			logf("paneflow: config: web.listen: %v; no web client", err)
			wl = web.Listen{}
		}
	}
	webc, err := newWeb(wl, wl != o.Web, path, getenv)
	if err != nil {
		c.Bus.Close()
		return nil, err
	}
	c.Web = webc
	// Start order: the conductor first, so it sees every pane created;
	// the worktree owner after the model, so it stops following pane
	// closes before the panes close (quitting tears no worktree down).
	// The session keeper after the socket is claimed (a second server
	// on the same socket must not restore and resume the agents again),
	// so it saves a last time before the socket and the panes close. The
	// teams subsystem last, after the socket is claimed (see
	// teamsSubsystem). Shutdown runs the other way (teams, session,
	// socket, worktrees, panes, conductor).
	windows := &c.windows
	// The http-hook endpoint after the conductor, whose state machine
	// its frames feed.
	subs := []subsystem.Subsystem{c.Conductor, hookhttp.New(hookhttp.Options{Frame: c.Conductor.Frame, WorkspaceOf: c.workspaceOf})}
	if o.Notifier != nil && cfg.NotifyWithoutWindow && cfg.Notify() {
		// After the conductor, whose agent states it follows.
		subs = append(subs, notify.New(notify.Options{Notifier: o.Notifier, Windows: windows.Count,
			PaneName: func(id uint64) string {
				if s, ok := c.Workspaces.Surface(id); ok {
					if in, ok := s.Info(); ok {
						return in.Name
					}
				}
				return ""
			}}))
	}
	err = c.group.Start(append(subs,
		// After the conductor, whose events it follows; before the model,
		// so it reads the agents' last records as the panes close at quit.
		c.Usage,
		// Before the model, so it follows the panes closing at quit.
		&artifacts{wsOf: c.workspaceOf},
		&modelMethods{m: c.Workspaces, o: api.Options{
			Scripting:    func() bool { return getenv("PANEFLOW_IPC_SCRIPTING") == "1" },
			Unrestricted: func() bool { return cfg.AIUnrestricted },
			Fenced:       func() bool { return cfg.AIInjectionFence },
			PasteDelay:   cfg.SubmitPasteDelay,
			Version:      version.String(),
			Logf:         logf,
			Agents:       c.Conductor,
			Usage:        c.Usage,
			Worktrees:    worktrees,
			Teams:        teamsReporter{c},
			Admission:    c.server.Admission,
			Shutdown:     c.requestStop,
			Windows:      windows,
			EchoHold:     &c.echo,
		}},
		worktrees,
		// Before the socket, so its methods exist when it serves; it
		// reaches the panes only through that socket.
		newReview(o.reviewDir(getenv, logf), path, getenv),
		&socket{srv: c.server, exec: exec},
		c.session,
		// After the socket: once this server owns the socket path, the
		// backend socket beside it is ours to (re)bind.
		c.teams,
		// Last: it reaches the panes through the socket, like any client.
		c.Web,
	)...)
	if err != nil {
		c.Bus.Close()
		return nil, err // named after the subsystem that failed
	}
	if getenv("PANEFLOW_IPC_SCRIPTING") == "1" {
		logf("paneflow: PANEFLOW_IPC_SCRIPTING=1: any process of this user can type into panes")
	}
	if !o.NoInitialWorkspace && len(c.Workspaces.Workspaces()) == 0 { // none restored
		if _, err := c.Workspaces.CreateWorkspace("Terminal", "", nil, true); err != nil {
			c.Shutdown(context.Background())
			return nil, fmt.Errorf("core: first workspace: %w", err)
		}
	}
	return c, nil
}

// loadConfig returns cfg, or the configuration file's content when cfg is
// nil. Problems with the file are reported and never fatal.
func loadConfig(cfg *config.Config, getenv func(string) string, logf func(string, ...any)) config.Config {
	if cfg != nil {
		return *cfg
	}
	dir, err := config.Dir(getenv, runtime.GOOS)
	if err != nil {
		logf("paneflow: %v; using the default configuration", err)
		return config.Default()
	}
	c, warns := config.Load(filepath.Join(dir, config.FileName))
	for _, w := range warns {
		logf("paneflow: config: %s", w)
	}
	return c
}

// Serve answers requests until ctx is done or Shutdown is called. It always
// returns a non-nil error; after a shutdown it is ipc.ErrServerClosed.
func (c *Core) Serve(ctx context.Context) error {
	return c.server.Serve(ctx)
}

// Shutdown stops the subsystems in reverse start order (the teams
// backend; the socket, removing its file; the worktree owner; every pane; the conductor), then
// the bus. It is
// bounded by ctx and by the panes' kill grace. Calling it again does
// nothing.
func (c *Core) Shutdown(ctx context.Context) error {
	err := c.group.Shutdown(ctx)
	c.Bus.Close()
	if err != nil {
		return fmt.Errorf("core: shutdown: %w", err)
	}
	return nil
}

// paneSource shows the workspace model to the conductor, which does not
// import it.
type paneSource struct{ m *workspace.Manager }

// Panes lists every pane with its resolved name and workspace.
func (p paneSource) Panes() []conductor.Pane {
	infos := p.m.Surfaces()
	out := make([]conductor.Pane, 0, len(infos))
	for _, in := range infos {
		pid, state := 0, conductor.PaneExited
		if s, ok := p.m.Surface(in.ID); ok && !in.Exited {
			pid, state = surfaceProgram(s)
		}
		out = append(out, conductor.Pane{
			SurfaceID: in.ID, WorkspaceID: in.WorkspaceID, Workspace: in.Workspace, Name: in.Name,
			PID: pid, Starting: state == conductor.PaneStarting,
		})
	}
	return out
}

// Process reports the state of pane id's program and, while it runs, its
// pid.
func (p paneSource) Process(id uint64) (int, conductor.PaneState) {
	s, ok := p.m.Surface(id)
	if !ok {
		return 0, conductor.PaneClosed
	}
	return surfaceProgram(s)
}

// screen returns the visible rows of pane id as text, nil for no pane.
func (p paneSource) screen(id uint64) []string {
	s, ok := p.m.Surface(id)
	if !ok {
		return nil
	}
	return s.Terminal().Emulator().ScreenLines()
}

// surfaceProgram is the state of s's program for the conductor, with its
// pid while it runs: exited (or could not be started), starting while
// the pane still starts it in the background, or running. Telling the
// first two apart matters: a pane whose program had not started yet when
// the conductor first looked was taken for an exited one and never
// scanned again (an agent started silently in a new pane on a loaded
// machine went undetected).
func surfaceProgram(s *workspace.Surface) (int, conductor.PaneState) {
	if _, exited := s.Exited(); exited {
		return 0, conductor.PaneExited
	}
	t := s.Terminal()
	select {
	case <-t.Started():
		if pid := t.Pid(); pid > 0 {
			return pid, conductor.PaneRunning
		}
		return 0, conductor.PaneExited
	default:
		return 0, conductor.PaneStarting
	}
}

// screenHistoryBytes turns terminal.screen_history_kib into
// workspace.Options.ScreenHistoryBytes (0 KiB keeps none).
func screenHistoryBytes(kib int) int {
	if kib <= 0 {
		return terminal.NoScreenHistory
	}
	return kib << 10
}

// historyDir is where the panes keep their screen history on disk
// (terminal.screen_history_disk_kib > 0): beside the session file, which
// names each restored pane's journal, "history" for session.json and
// "history-X" for session-X.json (a server of its own socket), made 0700.
// "" (memory only) without a session file, with the setting off, or when
// the directory cannot be made (reported through logf).
func historyDir(sessionPath string, kib int, logf func(string, ...any)) string {
	if kib <= 0 || sessionPath == "" {
		return ""
	}
	name := strings.TrimSuffix(filepath.Base(sessionPath), ".json")
	dir := filepath.Join(filepath.Dir(sessionPath), "history"+strings.TrimPrefix(name, "session"))
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.Chmod(dir, 0o700)
	}
	if err != nil {
		logf("paneflow: terminal.screen_history_disk_kib: %v; the panes keep their screen history in memory only", err)
		return ""
	}
	return dir
}

// undoWindow reads PANEFLOW_UNDO_WINDOW, how long a closed pane or
// workspace can be reopened (a Go duration such as "30s"; "0" turns undo
// close off): the workspace.Options value, 0 (the default minute) when
// unset or unreadable (reported through logf).
func undoWindow(getenv func(string) string, logf func(string, ...any)) time.Duration {
	v := getenv("PANEFLOW_UNDO_WINDOW")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if v == "0" {
		d, err = 0, nil
	}
	switch {
	case err != nil || d < 0:
		logf("paneflow: PANEFLOW_UNDO_WINDOW=%q is not a duration such as 30s; undo close keeps a minute", v)
		return 0
	case d == 0:
		return -1 // off
	}
	return d
}

// workspaceOf returns the workspace of live pane id. Every hooks.report
// frame and kept answer asks it, so it probes no pane (Surface.Info
// would read all the panes' foreground processes to resolve names).
func (c *Core) workspaceOf(id uint64) (uint64, bool) { return c.Workspaces.WorkspaceOf(id) }
