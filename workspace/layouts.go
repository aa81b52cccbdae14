package workspace

import (
	"maps"
	"slices"
	"strings"

	"github.com/paneflow-go/paneflow/bus"
)

// This file holds the layout trees: one builder (layoutAt) describes a
// workspace's tree for the socket (CurrentLayout), the window (ActiveTree)
// and session files (Layout), each asking for the detail it needs; and
// the changes made from layouts (presets, restoring a layout, creating a
// workspace from a saved one). They follow the manager's rules: one lock,
// nothing slow under it (panes are probed and programs started outside
// it), events published after unlocking.

// layoutDetail says what layoutAt puts in each pane's surface definition
// besides SurfaceType, SurfaceID, CustomName and Focus.
type layoutDetail struct {
	// probe reads each pane's title (Name) and live directory (Cwd), from
	// its foreground process, outside the lock.
	probe bool
	// session adds the command and the environment variables the pane
	// was started with and, when its live directory is unknown, the
	// directory it was started in.
	session bool
}

// layoutAt describes the workspace at index (with active: the active one,
// whatever index says) and its layout tree with the detail d; ok is false
// when there is no such workspace or the manager is closed. The layout is
// nil for a workspace without panes.
func (m *Manager) layoutAt(active bool, index int, d layoutDetail) (info WorkspaceInfo, layout *LayoutNode, ok bool) {
	m.mu.Lock()
	if active {
		index = m.active
	}
	if m.closed || index < 0 || index >= len(m.wss) {
		m.mu.Unlock()
		return WorkspaceInfo{}, nil, false
	}
	info = m.infoLocked(index)
	ws := m.wss[index]
	byID := map[uint64]*Surface{}
	if ws.root != nil {
		l := ws.root.layout(func(s *Surface) SurfaceDefinition {
			byID[s.id] = s
			def := SurfaceDefinition{SurfaceType: "terminal", SurfaceID: s.id, CustomName: s.custom, Focus: ws.focus == s}
			if d.session {
				def.Command, def.Env = s.command, maps.Clone(s.env)
			}
			return def
		})
		layout = &l
	}
	m.mu.Unlock()
	if layout != nil && d.probe {
		layout.EachSurface(func(def *SurfaceDefinition) {
			s := byID[def.SurfaceID]
			p := s.probe()
			def.Name, def.Cwd = p.title, p.cwd
			if d.session && def.Cwd == "" {
				def.Cwd = s.dir
			}
		})
	}
	return info, layout, true
}

// CurrentLayout describes the active workspace and its layout tree for
// the socket; ok is false when there is no workspace. Each pane has one
// surface definition with surface_type "terminal", surface_id, name (the
// title, if any), custom_name, cwd and focus; Scrollback is left empty for
// the caller. The layout is nil for a workspace without panes. It reads
// each pane's foreground process, outside the lock.
func (m *Manager) CurrentLayout() (info WorkspaceInfo, layout *LayoutNode, ok bool) {
	return m.layoutAt(true, 0, layoutDetail{probe: true})
}

// ActiveTree describes the active workspace and its layout tree like
// [Manager.CurrentLayout], but without reading the panes' processes or
// titles, so a window can call it on every event: each pane's surface
// definition carries only SurfaceType, SurfaceID, CustomName and Focus.
// The layout is nil for a workspace without panes; ok is false when there
// is no workspace.
func (m *Manager) ActiveTree() (info WorkspaceInfo, layout *LayoutNode, ok bool) {
	return m.layoutAt(true, 0, layoutDetail{})
}

// Layout describes the workspace at index (any workspace, not only the
// active one) and its layout tree, for session files; ok is false when
// index is out of range or the manager is closed. Like
// [Manager.CurrentLayout], each pane has one surface definition with
// SurfaceType "terminal", SurfaceID, Name (the OSC title, if any),
// CustomName and Focus; in addition Command is the command line the pane
// was started with ("" for a shell, see [Surface.Command]), Env the
// environment variables it was given (PaneSpec.Env; nil for none) and
// Cwd is its live directory (OSC 7, else its foreground process's),
// falling back to the directory it was started in when neither is known. The layout is
// nil for a workspace without panes. It reads each pane's foreground
// process, outside the lock.
func (m *Manager) Layout(index int) (info WorkspaceInfo, layout *LayoutNode, ok bool) {
	return m.layoutAt(false, index, layoutDetail{probe: true, session: true})
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

// CreateFromLayout appends a workspace titled title, in cwd (see
// [Manager.CanonicalCwd]), whose panes have the layout's shape and ratios
// (after [LayoutNode.Normalize] to at most MaxPanes panes) and are started
// from their surface definitions: each pane's first definition gives its
// CustomName (sanitized), Cwd ("" = the workspace's; it must exist), Command
// ("" = a shell) and Env; the pane whose definition has Focus set (the
// first such one) becomes the workspace's focused pane, else its first
// pane. Other fields (ids, titles, scrollback, prompts) are ignored. With
// activate (or when it is the first workspace) it becomes the active one.
// It returns the workspace and its surfaces in depth-first layout order.
// Nothing is started when a cwd is invalid; a program that fails to start
// closes the ones already started.
func (m *Manager) CreateFromLayout(title, cwd string, layout LayoutNode, activate bool) (WorkspaceInfo, []*Surface, error) {
	tree := cloneLayout(layout)
	tree.Normalize(m.maxPanes)
	var specs []PaneSpec
	focus := -1
	var walk func(n *LayoutNode)
	walk = func(n *LayoutNode) {
		if n.Type != NodeSplit {
			d := n.Surfaces[0] // Normalize gives every pane one
			if d.Focus && focus < 0 {
				focus = len(specs)
			}
			specs = append(specs, PaneSpec{Name: d.CustomName, Cwd: d.Cwd, Command: d.Command, Env: d.Env})
			return
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(&tree)
	return m.create(title, cwd, tree, specs, nil, focus, activate)
}

// cloneLayout copies the tree's slices so that normalizing the copy does
// not change the caller's layout.
func cloneLayout(n LayoutNode) LayoutNode {
	c := n
	c.Surfaces = append([]SurfaceDefinition(nil), n.Surfaces...)
	c.Ratios = append([]float64(nil), n.Ratios...)
	if n.Children != nil {
		c.Children = make([]LayoutNode, len(n.Children))
		for i := range n.Children {
			c.Children[i] = cloneLayout(n.Children[i])
		}
	}
	return c
}
