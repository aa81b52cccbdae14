package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/terminal"
)

// This file holds the Manager itself: its options, its state, its
// lifetime (NewManager, Close, Go) and the locking helpers the other files
// share. The Manager's jobs live beside it: workspaces.go (workspace
// lifecycle), panes.go (starting, closing and changing panes), queries.go
// (what is open and what a request names), layouts.go (layout trees for
// the socket, the window and session files) and view.go (what only a
// window needs). Every method follows the same rules: one lock, nothing
// slow under it (programs start and panes are probed outside it), events
// published after unlocking.

// Defaults of [Options].
const (
	DefaultMaxWorkspaces = 20
	DefaultMaxPanes      = 64
	// MaxPaneDim is the largest number of columns or rows a pane may
	// have (NewManager clamps Options.Cols/Rows, Resize refuses more).
	MaxPaneDim = 1000
)

// Options configures a [Manager]. The zero value is usable: 20
// workspaces, 64 panes each, 80×24 panes running the user's shell, no
// bus.
type Options struct {
	// MaxWorkspaces caps the number of workspaces; 0 means 20.
	MaxWorkspaces int
	// MaxPanes caps the panes (layout leaves) of one workspace; 0 means 64.
	MaxPanes int
	// Cols and Rows are the size of new panes; 0 means 80×24. Values
	// above MaxPaneDim are clamped.
	Cols, Rows int
	// Shell is the program of a pane started without a command, with its
	// arguments; nil means $SHELL -l, else /bin/sh (on Windows %ComSpec%,
	// else cmd.exe). A pane with a command runs Shell[0] -c <command>.
	Shell []string
	// Env holds extra environment variables for every pane ("K=V", from
	// the terminal.env config), applied after Paneflow's own and before
	// the pane's; protected keys are ignored (see PaneSpec.Env).
	Env []string
	// SocketPath is exported to panes as PANEFLOW_SOCKET_PATH; "" leaves
	// it unset.
	SocketPath string
	// Version is exported to panes as TERM_PROGRAM_VERSION; "" leaves it
	// unset.
	Version string
	// Scrollback is the scrollback of each pane in lines; 0 means
	// terminal.DefaultScrollback.
	Scrollback int
	// ScreenHistoryBytes bounds each pane's history of full-screen
	// screens: 0 means terminal.DefaultScreenHistoryBytes,
	// terminal.NoScreenHistory keeps none.
	ScreenHistoryBytes int
	// HistoryDir, when set, keeps each pane's screen history on disk as
	// well, a journal per pane in this directory (which must exist; see
	// [Surface.HistoryKey]); "" keeps it in memory only.
	HistoryDir string
	// HistoryDiskBytes bounds each pane's journal in HistoryDir; 0 means
	// DefaultHistoryDiskBytes.
	HistoryDiskBytes int
	// Logf, when set, is told of problems that fail no call: a journal
	// that cannot be written or read. nil drops them.
	Logf func(format string, args ...any)
	// Bus receives the model's events; nil publishes nothing.
	Bus *bus.Bus
	// PromptSettle says when a pane started with PaneSpec.Prompt is ready
	// for it; zero fields mean floor 1800 ms, quiet 200 ms, cap 8 s.
	PromptSettle Settle
	// Getenv reads $SHELL, $HOME and friends; nil means os.Getenv.
	Getenv func(string) string
	// ShimDir returns the agent launch shim directory, which goes first
	// in each pane's PATH and into PANEFLOW_BIN_DIR. It is called at
	// every pane start, outside the manager's lock, possibly from several
	// goroutines at once; nil, or "", means no shims.
	ShimDir func() string
	// NoShellIntegration turns off shell integration: by default a pane
	// running bash, zsh or fish interactively (no command; Shell with no
	// arguments or just -l/--login) is started so that, after the user's
	// startup files, PANEFLOW_BIN_DIR is put first in PATH again at every
	// prompt and the shell reports its directory with OSC 7. Other shells
	// and Windows are never changed.
	NoShellIntegration bool
	// Start starts a pane's program; nil means terminal.Start. Tests of
	// the model give one that returns terminal.Detached terminals, so
	// they need no processes (real programs are tested end to end). It is
	// called outside the manager's lock, possibly from several goroutines
	// at once.
	Start func(terminal.Options) (*terminal.Terminal, error)
	// Input, if set, is called with every chunk of input written to a
	// pane (keys, pastes, surface.send_text; see terminal.TapInput), on
	// the writer's goroutine before the pane's program gets it. It must
	// not block for long. The core hands it to the conductor.
	Input func(surfaceID uint64, p []byte)
	// UndoWindow is how long a closed pane or workspace keeps its
	// programs running, hidden, so that [Manager.Reopen] can bring it
	// back; 0 means DefaultUndoWindow (a minute), a negative value turns
	// undo off (closing kills at once).
	UndoWindow time.Duration
	// Clock times the undo window; nil means the system clock.
	Clock clock.Clock
}

// Manager is the workspace model: an ordered list of workspaces (one
// active), each with a layout tree of panes, each pane a [Surface] owning
// a terminal. It starts and closes programs and publishes what happens on
// the bus (after releasing its lock).
//
// All methods are safe for concurrent use. Create one with [NewManager]
// and release it with [Manager.Close].
type Manager struct {
	o        Options
	shell    []string
	maxWS    int
	maxPanes int
	stop     chan struct{} // closed by Close

	mu          sync.Mutex
	closed      bool
	wss         []*wsState
	active      int // index in wss, -1 when there are none
	surfaces    map[uint64]*Surface
	nextWS      uint64
	nextSurface uint64
	wg          sync.WaitGroup // watchers, prefills, closing terminals, Go
	clock       clock.Clock
	// closedItems are the closed panes and workspaces Reopen can bring
	// back, oldest first (closed.go); closedSeq numbers them.
	closedItems []*closedItem
	closedSeq   uint64
	// goneWaiters are the channels WhenGone handed out, by surface id,
	// closed when that surface's terminal is closed for good.
	goneWaiters map[uint64][]chan struct{}
}

// wsState is one workspace; guarded by Manager.mu.
type wsState struct {
	id    uint64
	title string
	cwd   string
	root  *node    // nil when the workspace has no pane
	focus *Surface // focused pane, nil when none
}

// NewManager returns an empty manager (no workspaces).
func NewManager(o Options) *Manager {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Cols <= 0 || o.Rows <= 0 {
		o.Cols, o.Rows = terminal.DefaultCols, terminal.DefaultRows
	}
	if o.Start == nil {
		o.Start = terminal.Start
	}
	o.Cols, o.Rows = min(o.Cols, MaxPaneDim), min(o.Rows, MaxPaneDim)
	m := &Manager{
		o:        o,
		shell:    slices.Clone(o.Shell),
		maxWS:    o.MaxWorkspaces,
		maxPanes: o.MaxPanes,
		stop:     make(chan struct{}),
		active:   -1,
		surfaces: map[uint64]*Surface{},
		clock:    clock.Or(o.Clock),
	}
	if len(m.shell) == 0 {
		m.shell = defaultShell(o.Getenv)
	}
	if m.maxWS <= 0 {
		m.maxWS = DefaultMaxWorkspaces
	}
	if m.maxPanes <= 0 {
		m.maxPanes = DefaultMaxPanes
	}
	m.o.PromptSettle = o.PromptSettle.withDefaults(defaultPromptSettle)
	return m
}

// MaxPanes reports the pane cap per workspace.
func (m *Manager) MaxPanes() int { return m.maxPanes }

// Close closes every pane (killing its program, bounded by the terminals'
// kill grace) and waits for the manager's goroutines. Later calls do
// nothing; other methods then fail with ErrClosed.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	close(m.stop)
	var evs []bus.Event
	var all []*Surface
	for i, ws := range m.wss {
		for _, s := range ws.root.leaves(nil) {
			s.closed = true
			close(s.gone)
			all = append(all, s)
			evs = append(evs, bus.SurfaceClosed{SurfaceID: s.id, WorkspaceID: ws.id})
		}
		evs = append(evs, bus.WorkspaceClosed{WorkspaceID: ws.id, Index: i, Title: ws.title})
	}
	m.wss, m.active = nil, -1
	clear(m.surfaces)
	open := len(all)
	all = append(all, m.closeKeptLocked()...)
	for id, chs := range m.goneWaiters {
		for _, ch := range chs {
			close(ch)
		}
		delete(m.goneWaiters, id)
	}
	m.mu.Unlock()
	m.publish(evs...)
	var wg sync.WaitGroup
	for i, s := range all {
		wg.Go(func() {
			s.term.Close()
			// The open panes' journals stay for the next start; those
			// kept for undo close are closed for good.
			s.closeHistory(i >= open)
		})
	}
	wg.Wait()
	m.wg.Wait()
}

// DefaultHistoryDiskBytes bounds a pane's screen history on disk when
// Options.HistoryDiskBytes is 0: 16 MiB.
const DefaultHistoryDiskBytes = 16 << 20

// Go runs f on a goroutine owned by the manager: Close closes stop and
// waits for f to return. It reports false (and does not run f) once the
// manager is closed. The socket API uses it for work that outlives a
// request, such as a deferred Enter.
func (m *Manager) Go(f func(stop <-chan struct{})) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.wg.Go(func() { f(m.stop) })
	return true
}

func (m *Manager) publish(evs ...bus.Event) {
	if m.o.Bus == nil {
		return
	}
	for _, e := range evs {
		m.o.Bus.Publish(e)
	}
}

// CanonicalCwd validates and canonicalizes a working directory: ""
// means this process's directory (the home directory when that is "/");
// a relative path resolves against this process's directory; the result
// is absolute with symbolic links resolved. Errors wrap ErrInvalid with
// the spec's messages ("cwd does not exist or is unreadable: <raw>
// (<reason>)", "cwd is not a directory: <raw>").
func (m *Manager) CanonicalCwd(raw string) (string, error) {
	if raw == "" {
		return m.defaultCwd(), nil
	}
	p := raw
	if !filepath.IsAbs(p) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", errorf(ErrInvalid, "cwd does not exist or is unreadable: %s (%v)", raw, err)
		}
		p = abs
	}
	fi, err := os.Stat(p)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", errorf(ErrInvalid, "cwd does not exist or is unreadable: %s (%v)", raw, err)
	}
	if !fi.IsDir() {
		return "", errorf(ErrInvalid, "cwd is not a directory: %s", raw)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Clean(p), nil
}

func (m *Manager) defaultCwd() string {
	wd, err := os.Getwd()
	if err != nil || wd == "/" {
		if home := m.o.Getenv("HOME"); home != "" {
			return home
		}
		if home, err := os.UserHomeDir(); err == nil {
			return home
		}
	}
	if err != nil {
		return string(filepath.Separator)
	}
	return wd
}

// indexLocked returns ws's position, -1 if it is gone.
func (m *Manager) indexLocked(ws *wsState) int {
	return slices.Index(m.wss, ws)
}

func (m *Manager) infoLocked(i int) WorkspaceInfo {
	ws := m.wss[i]
	return WorkspaceInfo{Index: i, ID: ws.id, Title: ws.title, Cwd: ws.cwd, Panes: ws.root.count(), Active: i == m.active}
}

func (m *Manager) selectedEventLocked() bus.Event {
	ws := m.wss[m.active]
	return bus.WorkspaceSelected{WorkspaceID: ws.id, Index: m.active, Title: ws.title}
}

// lockIndex locks m.mu for a method on the workspace at index: it returns
// with the lock held, or with an error (ErrClosed, or index out of range)
// and the lock released.
func (m *Manager) lockIndex(index int) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	if index < 0 || index >= len(m.wss) {
		m.mu.Unlock()
		return errorf(ErrNotFound, msgIndexOutOfBounds)
	}
	return nil
}

// lockSurface locks m.mu for a method on the open surface id: it returns
// the surface with the lock held, or an error (ErrClosed, or ErrNotFound
// "Surface not found") with the lock released.
func (m *Manager) lockSurface(id uint64) (*Surface, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	s, ok := m.surfaces[id]
	if !ok {
		m.mu.Unlock()
		return nil, errorf(ErrNotFound, msgSurfaceNotFound)
	}
	return s, nil
}
