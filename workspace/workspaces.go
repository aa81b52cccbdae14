package workspace

import (
	"slices"

	"github.com/paneflow-go/paneflow/bus"
)

// This file holds the workspace lifecycle: creating (CreateWorkspace, Up),
// listing, selecting, moving, renaming and closing workspaces.

// WorkspaceInfo describes a workspace as workspace.list lists it (the api
// turns it into a proto.WorkspaceInfo).
type WorkspaceInfo struct {
	Index  int    // position in the list, 0-based
	ID     uint64 // process-lifetime id (PANEFLOW_WORKSPACE_ID)
	Title  string
	Cwd    string
	Panes  int // layout leaves
	Active bool
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

// MoveWorkspace moves the workspace at index to position to (0-based);
// the ones between shift by one and the active workspace stays the
// active one, at its new position. It returns a [bus.WorkspaceChanged]
// for the moved workspace, and a [bus.WorkspaceSelected] when the active
// one's position changed.
func (m *Manager) MoveWorkspace(index, to int) error {
	if err := m.lockIndex(index); err != nil {
		return err
	}
	if to < 0 || to >= len(m.wss) {
		m.mu.Unlock()
		return errorf(ErrNotFound, msgIndexOutOfBounds)
	}
	if to == index {
		m.mu.Unlock()
		return nil
	}
	var active *wsState
	if m.active >= 0 {
		active = m.wss[m.active]
	}
	ws := m.wss[index]
	m.wss = slices.Insert(slices.Delete(m.wss, index, index+1), to, ws)
	evs := []bus.Event{bus.WorkspaceChanged{WorkspaceID: ws.id, Index: to, Title: ws.title}}
	if active != nil {
		if i := slices.Index(m.wss, active); i != m.active {
			m.active = i
			evs = append(evs, m.selectedEventLocked())
		}
	}
	m.mu.Unlock()
	m.publish(evs...)
	return nil
}

// RenameWorkspace titles the workspace at index SanitizeName(title)
// and returns that; a title empty after sanitizing is refused
// (ErrInvalid).
func (m *Manager) RenameWorkspace(index int, title string) (string, error) {
	t := SanitizeName(title)
	if t == "" {
		return "", errorf(ErrInvalid, "A workspace title must not be empty")
	}
	if err := m.lockIndex(index); err != nil {
		return "", err
	}
	ws := m.wss[index]
	ws.title = t
	m.mu.Unlock()
	m.publish(bus.WorkspaceChanged{WorkspaceID: ws.id, Index: index, Title: t})
	return t, nil
}

// CloseWorkspace closes the workspace at index and all its panes (their
// programs killed once the undo window passed, see [Manager.Reopen]); the
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
// surfaces whose terminals must be closed now (none while the workspace
// is kept for Reopen).
func (m *Manager) removeWorkspaceLocked(index int) ([]bus.Event, []*Surface) {
	ws := m.wss[index]
	var evs []bus.Event
	ss := ws.root.leaves(nil)
	// Kept with its tree and focus: Reopen puts it back as it was.
	kept := &wsState{id: ws.id, title: ws.title, cwd: ws.cwd, root: ws.root, focus: ws.focus}
	gone := m.keepClosedLocked(&closedItem{ss: ss, ws: kept, index: index})
	for _, s := range ss {
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
