package core

import (
	"context"
	"errors"
	"runtime"
	"strings"

	"github.com/paneflow-go/paneflow/api"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/teams"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// This file wires the agent-teams subsystem (package teams): its pane
// registry with the teams.* methods on the JSON-RPC socket, and the
// CustomPaneBackend server on a socket of its own.

var _ subsystem.Subsystem = (*teamsSubsystem)(nil)

// teamsSubsystem is the "teams" subsystem: the running teams registry and
// backend server. It must start after the "ipc" subsystem: the backend
// socket is (re)bound only once the main socket is this server's, so a
// second Paneflow started on the same path fails on the main socket and
// never replaces a live backend socket. Its fields are set by Init and
// read-only afterwards.
type teamsSubsystem struct {
	m          *workspace.Manager
	socketPath string

	reg     *teams.Registry
	backend *teams.Backend // nil when its socket could not be bound
	served  chan struct{}
}

// Name is the subsystem's name and its method namespace.
func (t *teamsSubsystem) Name() string { return "teams" }

// BackendSocketPath is where the CustomPaneBackend server of the core
// serving on socketPath listens: beside it, "<name>-panes.sock" on Unix,
// "<pipe>-panes" on Windows.
func BackendSocketPath(socketPath string) string {
	if runtime.GOOS == "windows" {
		return socketPath + "-panes"
	}
	return strings.TrimSuffix(socketPath, ".sock") + "-panes.sock"
}

// Init builds the registry over the model, registers its methods and
// starts the backend server. A backend that cannot listen is logged and
// left out (the tmux shim still works), so Init does not fail.
func (t *teamsSubsystem) Init(h *subsystem.Host) error {
	logf := h.Logf
	t.served = make(chan struct{})
	path := BackendSocketPath(t.socketPath)
	b := &teams.Backend{Path: path, Logf: logf}
	if err := b.Listen(); err != nil {
		logf("paneflow: no CustomPaneBackend socket: %v", err)
		b, path = nil, ""
	}
	t.reg = teams.New(teams.Options{Host: teamsHost{t.m}, SocketPath: t.socketPath, BackendSocket: path, Logf: logf})
	t.reg.Register(h.Methods)
	if b == nil {
		close(t.served)
		return nil
	}
	b.Registry = t.reg
	t.backend = b
	go func() {
		defer close(t.served)
		if err := b.Serve(); err != nil {
			logf("paneflow: %v", err)
		}
	}()
	return nil
}

// Shutdown closes the backend socket and the registry's watchers; the
// panes themselves close with the model. It does not block beyond the
// backend's connections closing, so ctx is not needed today.
func (t *teamsSubsystem) Shutdown(context.Context) error {
	if t.backend != nil {
		t.backend.Close()
	}
	<-t.served
	t.reg.Close()
	return nil
}

// teamsReporter tells the api which panes are in an agent team. The
// registry is started after the api's methods are registered (once the
// socket is ours), and before any request is served.
type teamsReporter struct{ c *Core }

// Teams maps teammates to their team and name, and leads to their team;
// TeamName is set when Claude Code's config.json names the team otherwise.
func (r teamsReporter) Teams() map[uint64]api.TeamMember {
	if r.c.teams == nil || r.c.teams.reg == nil {
		return nil
	}
	ms := r.c.teams.reg.Members()
	out := map[uint64]api.TeamMember{}
	for _, m := range ms {
		if !m.Teammate {
			continue
		}
		name := m.Agent
		if name == "" {
			name = m.Name
		}
		teamName := m.TeamName
		if teamName == m.Team {
			teamName = ""
		}
		out[m.SurfaceID] = api.TeamMember{Team: m.Team, TeamName: teamName, Teammate: name, Color: m.Color}
		if l, ok := out[m.LeadSurfaceID]; m.LeadSurfaceID != 0 && (!ok || l.Team == "") {
			out[m.LeadSurfaceID] = api.TeamMember{Team: m.Team, TeamName: teamName}
		}
	}
	return out
}

// TeamMember is a pane's place in a Claude Code agent team.
type TeamMember = api.TeamMember

// Teams returns the panes that are in an agent team, by surface id: each
// teammate with its team, name and colour, each lead with its team. Safe
// for concurrent use; nil before the core serves.
func (c *Core) Teams() map[uint64]TeamMember { return teamsReporter{c}.Teams() }

// teamsHost shows the workspace model to the teams registry, which does
// not import it.
type teamsHost struct{ m *workspace.Manager }

var _ teams.Host = teamsHost{}

func gone(err error) error {
	if errors.Is(err, workspace.ErrNotFound) {
		return teams.ErrGone
	}
	return err
}

func paneSpec(spec teams.Spec) workspace.PaneSpec {
	return workspace.PaneSpec{Name: spec.Name, Cwd: spec.Cwd, Argv: spec.Argv, Env: spec.Env}
}

func direction(sideBySide bool) workspace.Direction {
	if sideBySide {
		return workspace.Vertical // side by side, a new pane on the right
	}
	return workspace.Horizontal
}

func (h teamsHost) Split(target uint64, sideBySide bool, spec teams.Spec) (uint64, error) {
	info, _, err := h.m.Split(target, direction(sideBySide), paneSpec(spec))
	return info.ID, gone(err)
}

func (h teamsHost) Replace(id uint64, spec teams.Spec) (uint64, error) {
	info, err := h.m.Replace(id, paneSpec(spec))
	return info.ID, gone(err)
}

func (h teamsHost) Close(id uint64) error { return gone(h.m.CloseSurface(id)) }

func (h teamsHost) Focus(id uint64) error { return gone(h.m.FocusInWorkspace(id)) }

func (h teamsHost) Input(id uint64, b []byte) error {
	s, ok := h.m.Surface(id)
	if !ok {
		return teams.ErrGone
	}
	return s.Terminal().SendInput(b)
}

func (h teamsHost) Text(id uint64, history int) (teams.Text, bool) {
	s, ok := h.m.Surface(id)
	if !ok {
		return teams.Text{}, false
	}
	emu := s.Terminal().Emulator()
	cols, rows := emu.Size()
	hl := emu.HistoryLen()
	lines := emu.Lines(max(hl-history, 0), hl+rows)
	cut := max(len(lines)-rows, 0)
	return teams.Text{History: lines[:cut], Screen: lines[cut:], Cols: cols}, true
}

func (h teamsHost) Pane(id uint64) (teams.PaneInfo, bool) {
	s, ok := h.m.Surface(id)
	if !ok {
		return teams.PaneInfo{}, false
	}
	r, ok := h.m.PaneRect(id)
	ws, ok2 := h.m.WorkspaceOf(id)
	if !ok || !ok2 {
		return teams.PaneInfo{}, false
	}
	info := teams.PaneInfo{
		Workspace: ws, Name: s.CustomName(), Pid: s.Terminal().Pid(),
		X: r.X, Y: r.Y, W: r.W, H: r.H, Cols: r.Cols, Rows: r.Rows,
	}
	if st, exited := s.Exited(); exited {
		info.Dead, info.ExitCode, info.Pid = true, st.Code, 0
	}
	return info, true
}

func (h teamsHost) Command(id uint64) (cmd, cwd string) {
	s, ok := h.m.Surface(id)
	if !ok {
		return "", ""
	}
	if argv, ok := s.ForegroundArgv(); ok && len(argv) > 0 {
		cmd = argv[0]
		if i := strings.LastIndexAny(cmd, `/\`); i >= 0 {
			cmd = cmd[i+1:]
		}
	}
	cwd = s.Terminal().Emulator().Cwd()
	if cwd == "" {
		if fg, err := s.Terminal().Foreground(); err == nil {
			cwd = fg.Cwd
		}
	}
	return cmd, cwd
}

func (h teamsHost) windows() []teams.Window {
	infos := h.m.Workspaces()
	out := make([]teams.Window, len(infos))
	for i, in := range infos {
		out[i] = teams.Window{ID: in.ID, Index: in.Index, Title: in.Title}
	}
	for _, p := range h.m.Panes() {
		if p.Workspace >= 0 && p.Workspace < len(out) && out[p.Workspace].ID == p.WorkspaceID {
			out[p.Workspace].Panes = append(out[p.Workspace].Panes, p.ID)
		}
	}
	return out
}

func (h teamsHost) Window(ws uint64) (teams.Window, bool) {
	for _, w := range h.windows() {
		if w.ID == ws {
			return w, true
		}
	}
	return teams.Window{}, false
}

func (h teamsHost) Windows() []teams.Window { return h.windows() }

func (h teamsHost) Rename(id uint64, name string) error {
	_, err := h.m.Rename(id, name)
	return gone(err)
}

func (h teamsHost) SetShare(id uint64, sideBySide bool, share float64) error {
	return gone(h.m.SetShare(id, direction(sideBySide), share))
}

func (h teamsHost) EqualizeAround(id uint64, sideBySide bool) error {
	return gone(h.m.EqualizeAround(id, direction(sideBySide)))
}

func (h teamsHost) Tap(id uint64, f func([]byte)) (func(), bool) {
	s, ok := h.m.Surface(id)
	if !ok {
		return nil, false
	}
	return s.Terminal().Tap(f), true
}

func (h teamsHost) Done(id uint64) (<-chan struct{}, func() int, bool) {
	s, ok := h.m.Surface(id)
	if !ok {
		return nil, nil, false
	}
	t := s.Terminal()
	return t.Done(), func() int { return exitCode(t) }, true
}

func exitCode(t *terminal.Terminal) int {
	st, _ := t.ExitStatus()
	return st.Code
}
