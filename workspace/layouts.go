package workspace

// This file holds what saving and restoring a session needs from the
// model: any workspace's layout with each pane's live directory and
// original command, and a workspace created from such a layout with one
// pane spec per leaf. They follow the manager's rules: one lock, nothing
// slow under it (panes are probed and programs started outside it),
// events published after unlocking.

// Layout describes the workspace at index (any workspace, not only the
// active one) and its layout tree; ok is false when index is out of range
// or the manager is closed. Like [Manager.CurrentLayout], each pane has
// one surface definition with SurfaceType "terminal", SurfaceID, Name (the
// OSC title, if any), CustomName and Focus; in addition Command is the
// command line the pane was started with ("" for a shell, see
// [Surface.Command]) and Cwd is its live directory (OSC 7, else its
// foreground process's), falling back to the directory it was started
// in when neither is known. The layout is nil for a workspace without
// panes. It reads each pane's foreground process, outside the lock.
func (m *Manager) Layout(index int) (info WorkspaceInfo, layout *LayoutNode, ok bool) {
	m.mu.Lock()
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
			return SurfaceDefinition{
				SurfaceType: "terminal", SurfaceID: s.id, CustomName: s.custom,
				Command: s.command, Focus: ws.focus == s,
			}
		})
		layout = &l
	}
	m.mu.Unlock()
	if layout != nil {
		layout.EachSurface(func(d *SurfaceDefinition) {
			s := byID[d.SurfaceID]
			p := s.probe()
			d.Name, d.Cwd = p.title, p.cwd
			if d.Cwd == "" {
				d.Cwd = s.dir
			}
		})
	}
	return info, layout, true
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
