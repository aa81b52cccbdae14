package workspace

import (
	"strings"
)

// This file holds the read side of the model: the open surfaces, their
// descriptions with resolved names, and the surface a request names.

// SurfaceInfo describes a surface as surface.list lists it (the api
// turns it into a proto.SurfaceInfo).
type SurfaceInfo struct {
	ID          uint64
	Name        string  // resolved display name (spec ipc.md §13)
	Title       string  // last OSC 0/2 title, "" if none
	Cwd         *string // OSC 7 directory, else the foreground process's; nil if unknown
	Cmd         *string // foreground command line; nil when unknown or exited
	Workspace   int     // the workspace's index
	WorkspaceID uint64
	CustomName  string // the user-given name, "" for automatic names
	Exited      bool
	ExitCode    *int // when Exited
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

// surfaceRef is a surface's place, copied under the lock.
type surfaceRef struct {
	s       *Surface
	index   int
	wsID    uint64
	custom  string
	focused bool
}

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

// refs lists every surface in workspace order, then depth-first.
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
