package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/terminal"
)

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
}

// PaneSpec describes a pane to start.
type PaneSpec struct {
	// Name is the pane's custom name, sanitized with SanitizeName; ""
	// means an automatic name.
	Name string
	// Cwd is the working directory; "" means the workspace's. It must
	// exist and be a directory (relative paths resolve against this
	// process's directory; "~" is not expanded).
	Cwd string
	// Command is a shell command line run as Shell[0] -c Command, so the
	// pane's program ends when the command ends (the pane then stays,
	// exited); "" starts an interactive shell.
	Command string
	// Argv, when set, is the program and its arguments, run as they are
	// (no shell, no shell integration); it wins over Command.
	Argv []string
	// Env adds environment variables, winning over Options.Env except for
	// protected keys (TERM, COLORTERM, PANEFLOW_*); names that are empty,
	// contain "=" or NUL, or start with LD_ or DYLD_ are dropped.
	Env map[string]string
	// Prompt, when set, is typed into the pane (raw, without Enter) once
	// its output settled (Options.PromptSettle).
	Prompt string
}

// WorkspaceInfo describes a workspace as workspace.list does.
type WorkspaceInfo struct {
	Index  int    `json:"index"`        // position in the list, 0-based
	ID     uint64 `json:"workspace_id"` // process-lifetime id (PANEFLOW_WORKSPACE_ID)
	Title  string `json:"title"`
	Cwd    string `json:"cwd"`
	Panes  int    `json:"panes"` // layout leaves
	Active bool   `json:"active"`
}

// SurfaceInfo describes a surface as surface.list does.
type SurfaceInfo struct {
	ID          uint64  `json:"surface_id"`
	Name        string  `json:"name"`  // resolved display name (spec ipc.md §13)
	Title       string  `json:"title"` // last OSC 0/2 title, "" if none
	Cwd         *string `json:"cwd"`   // OSC 7 directory, else the foreground process's; nil if unknown
	Cmd         *string `json:"cmd"`   // foreground command line; nil when unknown or exited
	Workspace   int     `json:"workspace"`
	WorkspaceID uint64  `json:"-"`
	CustomName  string  `json:"-"` // the user-given name, "" for automatic names
	Exited      bool    `json:"exited"`
	ExitCode    *int    `json:"exit_code,omitempty"`
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
	o.Cols, o.Rows = min(o.Cols, MaxPaneDim), min(o.Rows, MaxPaneDim)
	m := &Manager{
		o:        o,
		shell:    slices.Clone(o.Shell),
		maxWS:    o.MaxWorkspaces,
		maxPanes: o.MaxPanes,
		stop:     make(chan struct{}),
		active:   -1,
		surfaces: map[uint64]*Surface{},
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
	m.mu.Unlock()
	m.publish(evs...)
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.term.Close() })
	}
	wg.Wait()
	m.wg.Wait()
}

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

// Workspaces lists the workspaces in order.
func (m *Manager) Workspaces() []WorkspaceInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]WorkspaceInfo, len(m.wss))
	for i := range m.wss {
		out[i] = m.infoLocked(i)
	}
	return out
}

// ActiveWorkspace describes the active workspace; ok is false when there
// is none.
func (m *Manager) ActiveWorkspace() (info WorkspaceInfo, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.active < 0 {
		return WorkspaceInfo{}, false
	}
	return m.infoLocked(m.active), true
}

// pending is a surface started but not yet placed in a workspace.
type pending struct {
	s    *Surface
	spec PaneSpec
}

// startSurface starts a pane's program for workspace wsID at position
// index. It must not run under m.mu (starting a program takes a while).
// The surface is not registered anywhere yet.
func (m *Manager) startSurface(id, wsID uint64, index int, spec PaneSpec, cwd string) (*Surface, error) {
	argv := m.shell
	if spec.Command != "" {
		argv = commandArgv(m.shell, spec.Command)
	}
	if len(spec.Argv) > 0 {
		argv = spec.Argv
	}
	shown := argv
	env := withShimDir(paneEnv(baseEnv(), m.o.Env, spec.Env, m.fixedEnv(id, wsID, index)), m.shimDir())
	if len(spec.Argv) == 0 {
		argv, env = m.integrate(argv, spec, env)
	}
	// The process starts in the background: the pane exists (listed,
	// readable, taking input) as soon as its program was found, and a
	// request creating it does not wait for fork and exec, which take
	// hundreds of milliseconds when other panes keep the processors busy.
	t, err := terminal.Start(terminal.Options{
		Argv: argv, Dir: cwd, Env: env,
		Cols: m.o.Cols, Rows: m.o.Rows, Scrollback: m.o.Scrollback,
		Background: true,
	})
	if err != nil {
		return nil, fmt.Errorf("workspace: start %q: %w", argv[0], err)
	}
	return &Surface{
		id: id, m: m, term: t, dir: cwd, command: spec.Command, argv: shown,
		custom: SanitizeName(spec.Name), gone: make(chan struct{}),
	}, nil
}

// startAll starts one program per spec (resolved cwds in cwds), for a
// workspace that does not have them yet. On error the ones started are
// closed.
func (m *Manager) startAll(ids []uint64, wsID uint64, index int, specs []PaneSpec, cwds []string) ([]*Surface, error) {
	out := make([]*Surface, 0, len(specs))
	for i, spec := range specs {
		s, err := m.startSurface(ids[i], wsID, index, spec, cwds[i])
		if err != nil {
			m.discard(out)
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// discard closes surfaces that never joined a workspace.
func (m *Manager) discard(ss []*Surface) {
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() { s.term.Close() })
	}
	wg.Wait()
}

// allocIDsLocked reserves n surface ids.
func (m *Manager) allocIDsLocked(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		m.nextSurface++
		ids[i] = m.nextSurface
	}
	return ids
}

// attachLocked registers started surfaces with ws and starts their
// watchers and prompt prefills.
func (m *Manager) attachLocked(ws *wsState, ps []pending) {
	for _, p := range ps {
		s := p.s
		s.ws = ws
		m.surfaces[s.id] = s
		m.wg.Add(1)
		go m.watch(s)
		if p.spec.Prompt != "" {
			prompt := p.spec.Prompt
			m.wg.Go(func() {
				if s.WaitSettled(m.o.PromptSettle, m.stop) {
					s.term.SendInput([]byte(prompt))
				}
			})
		}
	}
}

// createdEvents builds SurfaceCreated events carrying each new pane's own
// name; it must not run under m.mu. It probes only the new panes: resolving
// every pane's display name here would read /proc for all of them on each
// split, which under load costs far more than the split itself.
func (m *Manager) createdEvents(wsID uint64, ss []*Surface) []bus.Event {
	evs := make([]bus.Event, 0, len(ss))
	for _, s := range ss {
		evs = append(evs, bus.SurfaceCreated{SurfaceID: s.id, WorkspaceID: wsID, Name: m.ownName(s)})
	}
	return evs
}

// ownName is a pane's name before collisions with other panes are
// resolved: its custom name, else the name derived from its command or
// title. It must not run under m.mu.
func (m *Manager) ownName(s *Surface) string {
	m.mu.Lock()
	custom := s.custom
	m.mu.Unlock()
	if custom != "" {
		return custom
	}
	return s.probe().base
}

// CreateWorkspace appends a workspace titled title whose panes start in
// cwd (see CanonicalCwd). A nil layout gives one shell pane; otherwise
// the layout is normalized (to at most MaxPanes panes) and one shell is
// started per pane; only the tree's shape and ratios are used. With
// activate (or when it is the first workspace) it becomes the active one.
func (m *Manager) CreateWorkspace(title, cwd string, layout *LayoutNode, activate bool) (WorkspaceInfo, error) {
	tree := LayoutNode{Type: NodePane}
	if layout != nil {
		tree = *layout
		tree.Normalize(m.maxPanes)
	}
	n := tree.Leaves()
	specs := make([]PaneSpec, n)
	info, _, err := m.create(title, cwd, tree, specs, nil, -1, activate)
	return info, err
}

// CreateWorkspaceWith appends a workspace holding one pane started from
// spec (its command, environment and name); spec.Cwd, when set, is also
// the workspace's cwd. Like CreateWorkspace without a layout it does not
// change the active workspace unless activate is set.
func (m *Manager) CreateWorkspaceWith(title string, spec PaneSpec, activate bool) (WorkspaceInfo, error) {
	info, _, err := m.create(title, spec.Cwd, LayoutNode{Type: NodePane}, []PaneSpec{spec}, nil, -1, activate)
	return info, err
}

// create is the common part of CreateWorkspace and Up: specs[order[k]]
// fills the k-th leaf of tree; focus is the focused pane's index in specs
// (-1: the first leaf). It returns the surfaces in specs order.
func (m *Manager) create(title, cwd string, tree LayoutNode, specs []PaneSpec, order []int, focus int, activate bool) (WorkspaceInfo, []*Surface, error) {
	wsCwd, err := m.CanonicalCwd(cwd)
	if err != nil {
		return WorkspaceInfo{}, nil, err
	}
	cwds := make([]string, len(specs))
	for i, sp := range specs {
		cwds[i] = wsCwd
		if sp.Cwd != "" {
			if cwds[i], err = m.CanonicalCwd(sp.Cwd); err != nil {
				return WorkspaceInfo{}, nil, err
			}
		}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return WorkspaceInfo{}, nil, ErrClosed
	}
	if len(m.wss) >= m.maxWS {
		m.mu.Unlock()
		return WorkspaceInfo{}, nil, errorf(ErrLimit, msgWorkspaceLimit)
	}
	m.nextWS++
	ws := &wsState{id: m.nextWS, title: title, cwd: wsCwd}
	index := len(m.wss)
	ids := m.allocIDsLocked(len(specs))
	m.mu.Unlock()

	ss, err := m.startAll(ids, ws.id, index, specs, cwds)
	if err != nil {
		return WorkspaceInfo{}, nil, err
	}

	m.mu.Lock()
	if m.closed || len(m.wss) >= m.maxWS {
		closed := m.closed
		m.mu.Unlock()
		m.discard(ss)
		if closed {
			return WorkspaceInfo{}, nil, ErrClosed
		}
		return WorkspaceInfo{}, nil, errorf(ErrLimit, msgWorkspaceLimit)
	}
	k := 0
	ws.root = buildTree(&tree, func() *Surface {
		i := k
		if order != nil {
			i = order[k]
		}
		k++
		return ss[i]
	})
	ws.focus = ws.root.firstLeaf().surface
	if focus >= 0 && focus < len(ss) {
		ws.focus = ss[focus]
	}
	ps := make([]pending, len(ss))
	for i := range ss {
		ps[i] = pending{ss[i], specs[i]}
	}
	m.attachLocked(ws, ps)
	m.wss = append(m.wss, ws)
	index = len(m.wss) - 1
	evs := []bus.Event{bus.WorkspaceCreated{WorkspaceID: ws.id, Index: index, Title: ws.title}}
	var selected []bus.Event
	if activate || m.active < 0 {
		m.active = index
		selected = append(selected, m.selectedEventLocked())
	}
	info := m.infoLocked(index)
	m.mu.Unlock()

	evs = append(evs, m.createdEvents(ws.id, ss)...)
	evs = append(evs, bus.LayoutChanged{WorkspaceID: ws.id})
	evs = append(evs, selected...)
	m.publish(evs...)
	return info, ss, nil
}

// UpSpec describes a workspace to create with [Manager.Up].
type UpSpec struct {
	// Title is the workspace's title.
	Title string
	// Preset is the layout preset (PresetEvenH, …); unknown means even_h.
	Preset string
	// Panes are the panes in order; at least one, at most MaxPanes.
	Panes []PaneSpec
	// Focus is the index of the focused (and main_vertical's main) pane;
	// out of range means 0.
	Focus int
}

// Up creates and activates a workspace with the given panes arranged by a
// preset (spec ipc.md workspace.up). Every pane's cwd is checked before
// anything starts ("pane <i>: cwd '<raw>' does not exist or is not a
// directory"); the workspace's cwd is the first pane cwd given, else this
// process's, and panes without a cwd use it. Repeated pane names get
// "-2", "-3", … It returns the workspace and its surfaces in pane order.
func (m *Manager) Up(u UpSpec) (WorkspaceInfo, []*Surface, error) {
	n := len(u.Panes)
	if n == 0 {
		return WorkspaceInfo{}, nil, errorf(ErrInvalid, "`panes` must be a non-empty array")
	}
	if n > m.maxPanes {
		return WorkspaceInfo{}, nil, errorf(ErrLimit, "layout exceeds maximum pane count (%d)", m.maxPanes)
	}
	specs := slices.Clone(u.Panes)
	wsCwd := ""
	for i := range specs {
		if specs[i].Cwd == "" {
			continue
		}
		c, err := m.CanonicalCwd(specs[i].Cwd)
		if err != nil {
			return WorkspaceInfo{}, nil, errorf(ErrInvalid, "pane %d: cwd '%s' does not exist or is not a directory", i, specs[i].Cwd)
		}
		specs[i].Cwd = c
		if wsCwd == "" {
			wsCwd = c
		}
	}
	labels := make([]string, n)
	for i := range specs {
		labels[i] = SanitizeName(specs[i].Name)
	}
	labels = uniqueLabels(labels)
	for i := range specs {
		specs[i].Name = labels[i]
	}
	focus := u.Focus
	if focus < 0 || focus >= n {
		focus = 0
	}
	preset := u.Preset
	if !ValidPreset(preset) {
		preset = PresetEvenH
	}
	tree, order := PresetLayout(preset, n, focus)
	return m.create(u.Title, wsCwd, tree, specs, order, focus, true)
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

// SelectWorkspace makes the workspace at index the active one.
func (m *Manager) SelectWorkspace(index int) error {
	if err := m.lockIndex(index); err != nil {
		return err
	}
	var evs []bus.Event
	if m.active != index {
		m.active = index
		evs = append(evs, m.selectedEventLocked())
	}
	m.mu.Unlock()
	m.publish(evs...)
	return nil
}

// CloseWorkspace closes the workspace at index and all its panes; the
// only workspace cannot be closed. When it was active, the one that takes
// its position (or the new last one) becomes active.
func (m *Manager) CloseWorkspace(index int) error {
	if err := m.lockIndex(index); err != nil {
		return err
	}
	if len(m.wss) == 1 {
		m.mu.Unlock()
		return errorf(ErrLastWorkspace, msgLastWorkspace)
	}
	evs, gone := m.removeWorkspaceLocked(index)
	m.closeTerminalsLocked(gone)
	m.mu.Unlock()
	m.publish(evs...)
	return nil
}

// removeWorkspaceLocked drops the workspace at index with its surfaces
// and fixes the active index; it returns the events to publish and the
// surfaces whose terminals must be closed.
func (m *Manager) removeWorkspaceLocked(index int) ([]bus.Event, []*Surface) {
	ws := m.wss[index]
	var evs []bus.Event
	gone := ws.root.leaves(nil)
	for _, s := range gone {
		m.forgetLocked(s)
		evs = append(evs, bus.SurfaceClosed{SurfaceID: s.id, WorkspaceID: ws.id})
	}
	ws.root, ws.focus = nil, nil
	m.wss = slices.Delete(m.wss, index, index+1)
	evs = append(evs, bus.WorkspaceClosed{WorkspaceID: ws.id, Index: index, Title: ws.title})
	switch {
	case len(m.wss) == 0:
		m.active = -1
	case index < m.active:
		m.active-- // the same workspace stays active
	case index == m.active:
		m.active = min(m.active, len(m.wss)-1)
		evs = append(evs, m.selectedEventLocked())
	}
	return evs, gone
}

// forgetLocked marks s closed and unregisters it (its leaf is handled by
// the caller).
func (m *Manager) forgetLocked(s *Surface) {
	if s.closed {
		return
	}
	s.closed = true
	close(s.gone)
	delete(m.surfaces, s.id)
}

// closeTerminalsLocked closes terminals in the background (a program may
// take the kill grace to go); Close waits for them. Starting the
// goroutines under m.mu orders them before Close's wait.
func (m *Manager) closeTerminalsLocked(ss []*Surface) {
	for _, s := range ss {
		m.wg.Go(func() { s.term.Close() })
	}
}

// Surface returns the open surface with id.
func (m *Manager) Surface(id uint64) (*Surface, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.surfaces[id]
	return s, ok
}

// ActiveSurface returns the first pane (depth-first) of the active
// workspace; ok is false when there is none.
func (m *Manager) ActiveSurface() (*Surface, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.active < 0 {
		return nil, false
	}
	if l := m.wss[m.active].root.firstLeaf(); l != nil {
		return l.surface, true
	}
	return nil, false
}

// Split starts a pane next to the surface target (0: the active
// workspace's first pane) in direction dir (spec ipc.md surface.split).
// In a workspace without panes it becomes the only pane. It returns the
// new surface's info and the workspace's pane count.
func (m *Manager) Split(target uint64, dir Direction, spec PaneSpec) (SurfaceInfo, int, error) {
	cwd, err := m.CanonicalCwd(spec.Cwd)
	if err != nil {
		return SurfaceInfo{}, 0, err
	}
	m.mu.Lock()
	ws, tleaf, err := m.splitTargetLocked(target)
	if err != nil {
		m.mu.Unlock()
		return SurfaceInfo{}, 0, err
	}
	index := m.indexLocked(ws)
	id := m.allocIDsLocked(1)[0]
	m.mu.Unlock()

	s, err := m.startSurface(id, ws.id, index, spec, cwd)
	if err != nil {
		return SurfaceInfo{}, 0, err
	}

	m.mu.Lock()
	ws2, tleaf2, err := m.splitTargetLocked(target)
	if err == nil && (ws2 != ws || tleaf2 != tleaf) {
		err = errorf(ErrNotFound, msgSurfaceNotFound) // the target moved meanwhile
	}
	if err != nil {
		m.mu.Unlock()
		m.discard([]*Surface{s})
		return SurfaceInfo{}, 0, err
	}
	if tleaf == nil {
		ws.root = newLeaf(s)
		ws.focus = s
	} else {
		ws.root = splitLeaf(ws.root, tleaf, dir, s)
	}
	m.attachLocked(ws, []pending{{s, spec}})
	count := ws.root.count()
	m.mu.Unlock()

	// Describe only the new pane (its own name, not the resolved one):
	// probing every pane here would cost a /proc read per pane per split.
	r := surfaceRef{s: s, index: m.indexOf(ws.id), wsID: ws.id, custom: SanitizeName(spec.Name)}
	p := s.probe()
	name := r.custom
	if name == "" {
		name = p.base
	}
	info := r.info(p, name)
	m.publish(bus.SurfaceCreated{SurfaceID: s.id, WorkspaceID: ws.id, Name: info.Name}, bus.LayoutChanged{WorkspaceID: ws.id})
	return info, count, nil
}

// splitTargetLocked finds the workspace and leaf a split goes to (leaf is
// nil for an empty workspace) and checks the pane cap.
func (m *Manager) splitTargetLocked(target uint64) (*wsState, *node, error) {
	if m.closed {
		return nil, nil, ErrClosed
	}
	var ws *wsState
	var leaf *node
	if target != 0 {
		s, ok := m.surfaces[target]
		if !ok {
			return nil, nil, errorf(ErrNotFound, msgSurfaceNotFound)
		}
		ws, leaf = s.ws, s.leaf
	} else {
		if m.active < 0 {
			return nil, nil, errorf(ErrNotFound, msgNoActiveWorkspace)
		}
		ws = m.wss[m.active]
		leaf = ws.root.firstLeaf()
	}
	if ws.root.count() >= m.maxPanes {
		return nil, nil, errorf(ErrLimit, "%s (%d)", msgMaxPanes, m.maxPanes)
	}
	return ws, leaf, nil
}

// CloseSurface closes a pane: its program is killed and its space goes to
// its neighbour. Closing the last pane of a workspace closes the
// workspace too, unless it is the only one, which then stays empty.
func (m *Manager) CloseSurface(id uint64) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	s, ok := m.surfaces[id]
	if !ok {
		m.mu.Unlock()
		return errorf(ErrNotFound, msgSurfaceNotFound)
	}
	ws := s.ws
	var evs []bus.Event
	gone := []*Surface{s}
	if ws.root.count() == 1 && len(m.wss) > 1 {
		evs, gone = m.removeWorkspaceLocked(m.indexLocked(ws))
	} else {
		ws.root = removeLeaf(ws.root, s.leaf)
		s.leaf = nil
		m.forgetLocked(s)
		evs = append(evs, bus.SurfaceClosed{SurfaceID: s.id, WorkspaceID: ws.id}, bus.LayoutChanged{WorkspaceID: ws.id})
		if ws.focus == s {
			ws.focus = nil
			if l := ws.root.firstLeaf(); l != nil {
				ws.focus = l.surface
				evs = append(evs, bus.FocusChanged{SurfaceID: l.surface.id, WorkspaceID: ws.id})
			}
		}
	}
	m.closeTerminalsLocked(gone)
	m.mu.Unlock()
	m.publish(evs...)
	return nil
}

// Focus makes the surface the focused pane of its workspace and that
// workspace the active one; it returns the workspace's index.
func (m *Manager) Focus(id uint64) (int, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return 0, ErrClosed
	}
	s, ok := m.surfaces[id]
	if !ok {
		m.mu.Unlock()
		return 0, errorf(ErrNotFound, msgSurfaceNotFound)
	}
	index := m.indexLocked(s.ws)
	var evs []bus.Event
	if m.active != index {
		m.active = index
		evs = append(evs, m.selectedEventLocked())
	}
	if s.ws.focus != s {
		s.ws.focus = s
		evs = append(evs, bus.FocusChanged{SurfaceID: s.id, WorkspaceID: s.ws.id})
	}
	m.mu.Unlock()
	m.publish(evs...)
	return index, nil
}

// Rename sets the surface's custom name to SanitizeName(newName) and
// returns it; a name that is empty after sanitizing clears the custom
// name (the automatic name shows again) and returns "".
func (m *Manager) Rename(id uint64, newName string) (string, error) {
	name := SanitizeName(newName)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return "", ErrClosed
	}
	s, ok := m.surfaces[id]
	if !ok {
		m.mu.Unlock()
		return "", errorf(ErrNotFound, msgSurfaceNotFound)
	}
	s.custom = name
	m.mu.Unlock()
	m.publish(bus.SurfaceRenamed{SurfaceID: id, Name: name})
	return name, nil
}

// Resize sets the surface's terminal size in cells (1..MaxPaneDim each).
// A pane whose program exited is resized too (its screen reflows).
func (m *Manager) Resize(id uint64, cols, rows int) error {
	if cols < 1 || rows < 1 || cols > MaxPaneDim || rows > MaxPaneDim {
		return errorf(ErrInvalid, "cols and rows must be between 1 and %d", MaxPaneDim)
	}
	s, ok := m.Surface(id)
	if !ok {
		return errorf(ErrNotFound, msgSurfaceNotFound)
	}
	if err := s.term.Resize(cols, rows); err != nil {
		if _, exited := s.term.ExitStatus(); !exited {
			return fmt.Errorf("workspace: resize: %w", err)
		}
	}
	return nil
}

// ApplyPreset rearranges the panes of the workspace at index with a
// layout preset (PresetEvenH, PresetEvenV, PresetMainVertical with the
// focused pane as main, PresetTiled), keeping their depth-first order. It
// starts and closes nothing.
func (m *Manager) ApplyPreset(index int, preset string) error {
	if !ValidPreset(preset) {
		return errorf(ErrInvalid, "unknown layout preset %q (want one of %s)", preset, strings.Join(Presets, ", "))
	}
	if err := m.lockIndex(index); err != nil {
		return err
	}
	ws := m.wss[index]
	leaves := ws.root.leaves(nil)
	if len(leaves) == 0 {
		m.mu.Unlock()
		return nil
	}
	main := max(slices.Index(leaves, ws.focus), 0)
	tree, order := PresetLayout(preset, len(leaves), main)
	k := 0
	ws.root = buildTree(&tree, func() *Surface { s := leaves[order[k]]; k++; return s })
	m.mu.Unlock()
	m.publish(bus.LayoutChanged{WorkspaceID: ws.id})
	return nil
}

// RestoreLayout gives the active workspace the layout's shape and ratios
// (spec ipc.md §14): after normalization (at most MaxPanes panes), the
// existing panes fill the new leaves in depth-first order, missing ones
// are started as shells in the workspace's cwd and extra ones are closed.
// It returns the pane count.
func (m *Manager) RestoreLayout(layout LayoutNode) (int, error) {
	tree := layout
	tree.Normalize(m.maxPanes)
	n := tree.Leaves()
	var extra []*Surface // started for this call, not yet used
	var extraWS uint64   // the workspace they were started for
	defer func() { m.discard(extra) }()
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return 0, ErrClosed
		}
		if m.active < 0 {
			m.mu.Unlock()
			return 0, errorf(ErrNotFound, msgNoActiveWorkspace)
		}
		ws := m.wss[m.active]
		if len(extra) > 0 && extraWS != ws.id {
			// Another workspace became active meanwhile: the programs
			// started have the wrong environment.
			m.mu.Unlock()
			m.discard(extra)
			extra = nil
			continue
		}
		extraWS = ws.id
		leaves := ws.root.leaves(nil)
		need := n - len(leaves) - len(extra)
		if need > 0 {
			index := m.active
			ids := m.allocIDsLocked(need)
			m.mu.Unlock()
			specs := make([]PaneSpec, need)
			cwds := make([]string, need)
			for i := range cwds {
				cwds[i] = ws.cwd
			}
			ss, err := m.startAll(ids, ws.id, index, specs, cwds)
			if err != nil {
				return 0, err
			}
			extra = append(extra, ss...)
			continue // the workspace may have changed meanwhile
		}
		use := slices.Clone(leaves)
		var added []*Surface
		if len(use) < n {
			k := n - len(use)
			added = extra[:k]
			extra = extra[k:]
			use = append(use, added...)
		}
		drop := use[n:]
		use = use[:n]
		k := 0
		ws.root = buildTree(&tree, func() *Surface { s := use[k]; k++; return s })
		ps := make([]pending, len(added))
		for i, s := range added {
			ps[i] = pending{s: s}
		}
		m.attachLocked(ws, ps)
		var evs []bus.Event
		for _, s := range drop {
			s.leaf = nil
			m.forgetLocked(s)
			evs = append(evs, bus.SurfaceClosed{SurfaceID: s.id, WorkspaceID: ws.id})
		}
		if ws.focus == nil || ws.focus.closed {
			ws.focus = ws.root.firstLeaf().surface
			evs = append(evs, bus.FocusChanged{SurfaceID: ws.focus.id, WorkspaceID: ws.id})
		}
		m.closeTerminalsLocked(drop)
		m.mu.Unlock()
		evs = append(m.createdEvents(ws.id, added), evs...)
		m.publish(append(evs, bus.LayoutChanged{WorkspaceID: ws.id})...)
		return n, nil
	}
}

// surfaceRef is a surface's place, copied under the lock.
type surfaceRef struct {
	s       *Surface
	index   int
	wsID    uint64
	custom  string
	focused bool
}

// refs lists every surface in workspace order, then depth-first.
// indexOf returns the sidebar index of workspace id, or -1.
func (m *Manager) indexOf(id uint64) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, ws := range m.wss {
		if ws.id == id {
			return i
		}
	}
	return -1
}

func (m *Manager) refs() []surfaceRef {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []surfaceRef
	for i, ws := range m.wss {
		for _, s := range ws.root.leaves(nil) {
			out = append(out, surfaceRef{s: s, index: i, wsID: ws.id, custom: s.custom, focused: ws.focus == s})
		}
	}
	return out
}

// Surfaces describes every surface of every workspace, in workspace
// order then depth-first layout order, with resolved names (spec ipc.md
// §13). It reads each pane's foreground process.
func (m *Manager) Surfaces() []SurfaceInfo {
	refs := m.refs()
	probes := make([]probe, len(refs))
	entries := make([]nameEntry, len(refs))
	for i, r := range refs {
		probes[i] = r.s.probe()
		entries[i] = nameEntry{custom: r.custom, base: probes[i].base, cwd: probes[i].cwd}
	}
	names := resolveNames(entries)
	out := make([]SurfaceInfo, len(refs))
	for i, r := range refs {
		out[i] = r.info(probes[i], names[i])
	}
	return out
}

// info builds the description of r's surface from a probe of it.
func (r surfaceRef) info(p probe, name string) SurfaceInfo {
	in := SurfaceInfo{
		ID: r.s.id, Name: name, Title: p.title, Cmd: p.cmd,
		Workspace: r.index, WorkspaceID: r.wsID, CustomName: r.custom,
		Exited: p.exited, ExitCode: p.code,
	}
	if p.cwd != "" {
		cwd := p.cwd
		in.Cwd = &cwd
	}
	return in
}

// ResolveTarget finds the surface a request names (spec ipc.md §5): by id
// when id is not 0, else by resolved display name when name is not "",
// else the active workspace's first pane. Errors wrap ErrNotFound:
// "surface_id <N> not found", "no surface named '<n>'; available: [a,
// b]", "no surface available".
func (m *Manager) ResolveTarget(id uint64, name string) (*Surface, error) {
	switch {
	case id != 0:
		if s, ok := m.Surface(id); ok {
			return s, nil
		}
		return nil, errorf(ErrNotFound, "surface_id %d not found", id)
	case name != "":
		infos := m.Surfaces()
		var avail []string
		for _, in := range infos {
			if in.Name == name {
				if s, ok := m.Surface(in.ID); ok {
					return s, nil
				}
			}
			avail = append(avail, in.Name)
		}
		return nil, errorf(ErrNotFound, "no surface named '%s'; available: [%s]", name, strings.Join(avail, ", "))
	default:
		if s, ok := m.ActiveSurface(); ok {
			return s, nil
		}
		return nil, errorf(ErrNotFound, "no surface available")
	}
}

// CurrentLayout describes the active workspace and its layout tree; ok is
// false when there is no workspace. Each pane has one surface definition
// with surface_type "terminal", surface_id, name (the title, if any),
// custom_name, cwd and focus; Scrollback is left empty for the caller. The
// layout is nil for a workspace without panes.
func (m *Manager) CurrentLayout() (info WorkspaceInfo, layout *LayoutNode, ok bool) {
	m.mu.Lock()
	if m.active < 0 {
		m.mu.Unlock()
		return WorkspaceInfo{}, nil, false
	}
	info = m.infoLocked(m.active)
	ws := m.wss[m.active]
	byID := map[uint64]*Surface{}
	if ws.root != nil {
		l := ws.root.layout(func(s *Surface) SurfaceDefinition {
			byID[s.id] = s
			return SurfaceDefinition{SurfaceType: "terminal", SurfaceID: s.id, CustomName: s.custom, Focus: ws.focus == s}
		})
		layout = &l
	}
	m.mu.Unlock()
	if layout != nil {
		layout.EachSurface(func(d *SurfaceDefinition) {
			if s := byID[d.SurfaceID]; s != nil {
				p := s.probe()
				d.Name, d.Cwd = p.title, p.cwd
			}
		})
	}
	return info, layout, true
}

// EachSurface calls f for every surface definition in the tree, depth
// first.
func (n *LayoutNode) EachSurface(f func(*SurfaceDefinition)) {
	for i := range n.Surfaces {
		f(&n.Surfaces[i])
	}
	for i := range n.Children {
		n.Children[i].EachSurface(f)
	}
}
