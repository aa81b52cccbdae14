package workspace

import (
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
)

// This file holds the model operations a pane host for agent teams needs
// (package teams, through core): restarting a pane's program in place,
// where a pane sits in its workspace, and the shares of the splits around
// it. They follow the manager's rules: one lock, nothing slow under it,
// events published after unlocking.

// Rect is where a pane sits in its workspace, as fractions of the
// workspace's area (0..1), with the pane's own size in cells.
type Rect struct {
	X, Y, W, H float64
	Cols, Rows int
}

// PaneRect returns the pane's place in its workspace; ok is false when no
// open surface has that id.
func (m *Manager) PaneRect(id uint64) (r Rect, ok bool) {
	m.mu.Lock()
	s, ok := m.surfaces[id]
	if !ok || s.leaf == nil {
		m.mu.Unlock()
		return Rect{}, false
	}
	r = Rect{W: 1, H: 1}
	for n := s.leaf; n.parent != nil; n = n.parent {
		p := n.parent
		i := p.index(n)
		off := 0.0
		for _, f := range p.ratios[:i] {
			off += f
		}
		share := p.ratios[i]
		if p.dir == Vertical {
			r.X, r.W = off+r.X*share, r.W*share
		} else {
			r.Y, r.H = off+r.Y*share, r.H*share
		}
	}
	m.mu.Unlock()
	r.Cols, r.Rows = s.term.Emulator().Size()
	return r, true
}

// WorkspaceOf returns the id of the workspace holding the open surface id.
func (m *Manager) WorkspaceOf(id uint64) (wsID uint64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.surfaces[id]
	if !ok || s.ws == nil {
		return 0, false
	}
	return s.ws.id, true
}

// ancestorLocked returns the nearest split above s that arranges its
// children in dir, and the index of the child holding s; nil when none.
func ancestorLocked(s *Surface, dir Direction) (*node, int) {
	if s.leaf == nil {
		return nil, 0
	}
	for n := s.leaf; n.parent != nil; n = n.parent {
		if n.parent.dir == dir {
			return n.parent, n.parent.index(n)
		}
	}
	return nil, 0
}

// SetShare gives the part of the layout holding pane id the fraction share
// (clamped to 0.05..0.95) of the nearest split above it that arranges its
// children in dir; the other children keep their proportions. It is what
// a resize to a percentage does. It does nothing when there is no such
// split, and publishes LayoutChanged otherwise. The error wraps
// ErrNotFound for an unknown pane.
func (m *Manager) SetShare(id uint64, dir Direction, share float64) error {
	share = min(max(share, 0.05), 0.95)
	m.mu.Lock()
	s, ok := m.surfaces[id]
	if !ok {
		m.mu.Unlock()
		return errorf(ErrNotFound, msgSurfaceNotFound)
	}
	p, i := ancestorLocked(s, dir)
	if p == nil {
		m.mu.Unlock()
		return nil
	}
	rest := 1 - p.ratios[i]
	for k := range p.ratios {
		switch {
		case k == i:
			p.ratios[k] = share
		case rest > 0:
			p.ratios[k] = p.ratios[k] / rest * (1 - share)
		default:
			p.ratios[k] = (1 - share) / float64(len(p.ratios)-1)
		}
	}
	p.ratios = proto.NormalizeRatios(p.ratios, len(p.ratios))
	wsID := s.ws.id
	m.mu.Unlock()
	m.publish(bus.LayoutChanged{WorkspaceID: wsID})
	return nil
}

// EqualizeAround gives every child of the nearest split above pane id that
// arranges its children in dir an equal share (a stack of panes becomes
// even). It does nothing when there is no such split, and publishes
// LayoutChanged otherwise. The error wraps ErrNotFound for an unknown pane.
func (m *Manager) EqualizeAround(id uint64, dir Direction) error {
	m.mu.Lock()
	s, ok := m.surfaces[id]
	if !ok {
		m.mu.Unlock()
		return errorf(ErrNotFound, msgSurfaceNotFound)
	}
	p, _ := ancestorLocked(s, dir)
	if p == nil {
		m.mu.Unlock()
		return nil
	}
	for k := range p.ratios {
		p.ratios[k] = 1 / float64(len(p.ratios))
	}
	wsID := s.ws.id
	m.mu.Unlock()
	m.publish(bus.LayoutChanged{WorkspaceID: wsID})
	return nil
}

// Replace starts spec's program in a new surface that takes the place of
// pane id in its layout (same leaf, same share, focus kept), and closes
// the old surface, killing its program: a tmux respawn-pane -k. A spec
// without Cwd starts in the old pane's directory. It returns the new
// surface's info; it publishes SurfaceClosed for the old pane, then
// SurfaceCreated and LayoutChanged. The error wraps ErrNotFound when the
// pane does not exist (or was closed meanwhile), ErrInvalid for a bad cwd.
func (m *Manager) Replace(id uint64, spec PaneSpec) (SurfaceInfo, error) {
	m.mu.Lock()
	old, ok := m.surfaces[id]
	if !ok || old.leaf == nil || m.closed {
		m.mu.Unlock()
		return SurfaceInfo{}, errorf(ErrNotFound, msgSurfaceNotFound)
	}
	ws := old.ws
	index := m.indexLocked(ws)
	nid := m.allocIDsLocked(1)[0]
	dir := old.dir
	m.mu.Unlock()
	if spec.Cwd != "" {
		d, err := m.CanonicalCwd(spec.Cwd)
		if err != nil {
			return SurfaceInfo{}, err
		}
		dir = d
	}
	s, err := m.startSurface(nid, ws.id, index, spec, dir)
	if err != nil {
		return SurfaceInfo{}, err
	}
	m.mu.Lock()
	if m.closed || old.closed || old.leaf == nil {
		m.mu.Unlock()
		m.discard([]*Surface{s})
		return SurfaceInfo{}, errorf(ErrNotFound, msgSurfaceNotFound)
	}
	leaf := old.leaf
	leaf.surface, s.leaf, old.leaf = s, leaf, nil
	if s.custom == "" {
		s.custom = old.custom
	}
	if ws.focus == old {
		ws.focus = s
	}
	m.forgetLocked(old)
	m.attachLocked(ws, []pending{{s, spec}})
	m.closeTerminalsLocked([]*Surface{old})
	custom := s.custom
	m.mu.Unlock()

	r := surfaceRef{s: s, index: m.indexOf(ws.id), wsID: ws.id, custom: custom}
	p := s.probe()
	name := custom
	if name == "" {
		name = p.base
	}
	info := r.info(p, name)
	m.publish(bus.SurfaceClosed{SurfaceID: old.id, WorkspaceID: ws.id},
		bus.SurfaceCreated{SurfaceID: s.id, WorkspaceID: ws.id, Name: info.Name},
		bus.LayoutChanged{WorkspaceID: ws.id})
	return info, nil
}

// FocusInWorkspace makes the surface the focused pane of its workspace
// without changing the active workspace (tmux's active pane of a window:
// split-window without -d, select-pane -t). It publishes FocusChanged when
// the focus moved. The error wraps ErrNotFound for an unknown surface.
func (m *Manager) FocusInWorkspace(id uint64) error {
	s, err := m.lockSurface(id)
	if err != nil {
		return err
	}
	if s.ws == nil || s.leaf == nil || s.ws.focus == s {
		m.mu.Unlock()
		return nil
	}
	s.ws.focus = s
	ev := bus.FocusChanged{SurfaceID: s.id, WorkspaceID: s.ws.id}
	m.mu.Unlock()
	m.publish(ev)
	return nil
}
