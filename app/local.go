package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// local is the in-process [Backend]: the window hosts the core, reads its
// model directly and serves its socket for everyone else. Its zero value
// is unusable; build it with [NewLocal].
type local struct {
	c *core.Core
	m *workspace.Manager
}

// NewLocal returns the in-process backend over c, which should have been
// created with NoInitialWorkspace (the shell restores the session or
// creates the default workspace). Serve serves c's socket; Shutdown shuts
// c down (closing every pane and removing the socket).
func NewLocal(c *core.Core) Backend { return &local{c: c, m: c.Workspaces} }

var _ Backend = (*local)(nil)

func (l *local) Serve(ctx context.Context) error {
	if err := l.c.Serve(ctx); !errors.Is(err, ipc.ErrServerClosed) {
		return err
	}
	return nil
}

func (l *local) Shutdown(ctx context.Context) error {
	if err := l.c.Shutdown(ctx); !errors.Is(err, ipc.ErrServerClosed) {
		return err
	}
	return nil
}

func (l *local) Endpoint() string { return l.c.SocketPath }

// OutlivesWindow is false: quitting shuts the core down with the panes.
func (l *local) OutlivesWindow() bool { return false }

func (l *local) Subscribe(name string, f bus.Filter, queue int) *bus.Subscription {
	return l.c.Bus.Subscribe(name, f, queue)
}

func (l *local) Workspaces() []workspace.WorkspaceInfo { return l.m.Workspaces() }

func (l *local) ActiveTree() (workspace.WorkspaceInfo, *workspace.LayoutNode, bool) {
	return l.m.ActiveTree()
}

func (l *local) Panes() []workspace.PanePlace { return l.m.Panes() }

func (l *local) Surfaces() []workspace.SurfaceInfo { return l.m.Surfaces() }

func (l *local) SurfaceInfo(id uint64) (workspace.SurfaceInfo, bool) {
	sf, ok := l.m.Surface(id)
	if !ok {
		return workspace.SurfaceInfo{}, false
	}
	return sf.Info()
}

func (l *local) FocusedSurface(wsID uint64) (uint64, bool) { return l.m.FocusedSurface(wsID) }

func (l *local) ResolveTarget(id uint64, name string) (uint64, error) {
	sf, err := l.m.ResolveTarget(id, name)
	if err != nil {
		return 0, err
	}
	return sf.ID(), nil
}

func (l *local) Teams() map[uint64]core.TeamMember { return l.c.Teams() }

func (l *local) CreateWorkspace(title, cwd string, activate bool) error {
	_, err := l.m.CreateWorkspace(title, cwd, nil, activate)
	return err
}

func (l *local) CloseWorkspace(index int) error { return l.m.CloseWorkspace(index) }

func (l *local) SelectWorkspace(index int) error { return l.m.SelectWorkspace(index) }

func (l *local) MoveWorkspace(index, to int) error { return l.m.MoveWorkspace(index, to) }

func (l *local) RenameWorkspace(index int, title string) error {
	_, err := l.m.RenameWorkspace(index, title)
	return err
}

func (l *local) ApplyPreset(index int, preset string) error { return l.m.ApplyPreset(index, preset) }

func (l *local) Equalize(index int) error { return l.m.Equalize(index) }

func (l *local) SetRatios(wsID uint64, path []int, ratios []float64) error {
	return l.m.SetRatios(wsID, path, ratios)
}

func (l *local) Split(target uint64, dir workspace.Direction, spec workspace.PaneSpec) (uint64, error) {
	info, _, err := l.m.Split(target, dir, spec)
	return info.ID, err
}

func (l *local) Focus(id uint64) error { _, err := l.m.Focus(id); return err }

func (l *local) Rename(id uint64, name string) error { _, err := l.m.Rename(id, name); return err }

func (l *local) CloseSurface(id uint64) error { return l.m.CloseSurface(id) }

func (l *local) Reopen() error {
	_, err := l.m.Reopen()
	return err
}

func (l *local) Pane(id uint64) (termview.Pane, bool) {
	sf, ok := l.m.Surface(id)
	if !ok {
		return nil, false
	}
	return surfacePane{m: l.m, s: sf, hold: l.c.HoldEcho}, true
}

func (l *local) Paste(id uint64, text string, submit bool) error {
	sf, ok := l.m.Surface(id)
	if !ok {
		return fmt.Errorf("pane %d is closed", id)
	}
	t := sf.Terminal()
	if err := t.SendInput(terminal.EncodePaste(text, t.Emulator().Modes())); err != nil {
		return err
	}
	if submit {
		return t.SendInput([]byte{'\r'})
	}
	return nil
}

func (l *local) OutputGens() map[uint64]uint64 {
	panes := l.m.Panes()
	out := make(map[uint64]uint64, len(panes))
	for _, p := range panes {
		if sf, ok := l.m.Surface(p.ID); ok {
			out[p.ID] = sf.Terminal().Emulator().Generation()
		}
	}
	return out
}

func (l *local) PanePIDs() map[uint64]int {
	out := map[uint64]int{}
	for _, p := range l.m.Panes() {
		if sf, ok := l.m.Surface(p.ID); ok {
			if pid := sf.Terminal().Pid(); pid > 0 {
				out[p.ID] = pid
			}
		}
	}
	return out
}

func (l *local) Usage() (map[uint64]proto.UsageStatus, map[uint64]proto.Usage) {
	panes, spaces := map[uint64]proto.UsageStatus{}, map[uint64]proto.Usage{}
	if l.c.Usage == nil {
		return panes, spaces
	}
	for _, p := range l.m.Panes() {
		if u, ok := l.c.Usage.SurfaceUsage(p.ID); ok {
			panes[p.ID] = u
		}
	}
	for _, w := range l.m.Workspaces() {
		if u, ok := l.c.Usage.WorkspaceUsage(w.ID); ok {
			spaces[w.ID] = u
		}
	}
	return panes, spaces
}

func (l *local) BusyPanes() int {
	n := 0
	for _, p := range l.m.Panes() {
		if sf, ok := l.m.Surface(p.ID); ok && sf.Busy() {
			n++
		}
	}
	return n
}

func (l *local) RestoreSession(path string) ([]string, error) {
	sess, err := session.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return session.Restore(l.m, sess)
}

func (l *local) SaveSession(path string) error { return session.Save(path, session.Capture(l.m)) }

// Caller reaches the core's methods through its own socket, the route
// every client takes (admission, the executor's ordering), so a launch
// from the window and `paneflow up` behave alike.
func (l *local) Caller(timeout time.Duration) proto.Caller {
	return &ipc.Client{Path: l.c.SocketPath, Timeout: timeout}
}

// surfacePane is the local backend's termview.Pane: a workspace surface
// shown to a terminal view: reads go to
// the surface's emulator, input and size to its terminal. It is safe for
// concurrent use, as termview.Pane requires.
type surfacePane struct {
	m *workspace.Manager
	s *workspace.Surface
	// hold starts the echo hold for a pane before its input (nil: none).
	hold func(pane uint64)
}

var _ termview.Pane = surfacePane{}

// Snapshot copies the screen scrolled back by offset lines.
func (p surfacePane) Snapshot(s *terminal.Snapshot, offset int) {
	p.s.Terminal().Emulator().SnapshotAt(s, offset)
}

// HistoryLen is the number of scrollback lines.
func (p surfacePane) HistoryLen() int { return p.s.Terminal().Emulator().HistoryLen() }

// Lines returns rows [from, to) of the main buffer as text.
func (p surfacePane) Lines(from, to int) []string {
	return p.s.Terminal().Emulator().Lines(from, to)
}

// Watch returns the output generation and its change channel.
func (p surfacePane) Watch() (uint64, <-chan struct{}) { return p.s.Terminal().Emulator().Watch() }

// Bells counts the bells rung so far.
func (p surfacePane) Bells() int { return p.s.Terminal().Emulator().Bells() }

// ClearScrollback drops the surface's scrollback.
func (p surfacePane) ClearScrollback() { p.s.Terminal().Emulator().ClearScrollback() }

// Reset resets the surface's terminal (not its program).
func (p surfacePane) Reset() { p.s.Terminal().Emulator().Reset() }

// SendInput queues bytes for the program: the window's keys, pastes and
// mouse reports, which hold the other panes' output for their echo first
// (core.HoldEcho), as the server does for an attached window's.
func (p surfacePane) SendInput(b []byte) error {
	if p.hold != nil {
		p.hold(p.s.ID())
	}
	return p.s.Terminal().SendInput(b)
}

// Resize sets the pane's size in cells, clamped to the model's limits (a
// pane whose program exited still reflows).
func (p surfacePane) Resize(cols, rows int) error {
	cols = min(max(cols, 1), workspace.MaxPaneDim)
	rows = min(max(rows, 1), workspace.MaxPaneDim)
	return p.m.Resize(p.s.ID(), cols, rows)
}

// SetOutputGate installs the view's paint gate on the pane's terminal.
func (p surfacePane) SetOutputGate(g terminal.OutputGate) { p.s.Terminal().SetOutputGate(g) }

// ClearOutputGate removes g from the pane's terminal if it is installed.
func (p surfacePane) ClearOutputGate(g terminal.OutputGate) { p.s.Terminal().ClearOutputGate(g) }
