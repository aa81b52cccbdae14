package workspace

import (
	"slices"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
)

// This file holds the model methods a window needs and the socket API does
// not: listing panes cheaply (without probing their processes), the
// focused pane, and changing ratios from a divider drag. The window's
// layout tree is [Manager.ActiveTree], in layouts.go.
// They follow the manager's rules: one lock, nothing slow under it, events
// published after unlocking.

// PanePlace is where a pane sits: its id, its workspace and whether it is
// that workspace's focused pane. It is what [Manager.Panes] lists.
type PanePlace struct {
	ID          uint64
	WorkspaceID uint64
	Workspace   int // the workspace's index
	Focused     bool
}

// Panes lists every pane in workspace order, then depth-first layout
// order, without reading their processes (unlike [Manager.Surfaces]), so
// it is cheap enough for a UI to call on every event.
func (m *Manager) Panes() []PanePlace {
	refs := m.refs()
	out := make([]PanePlace, len(refs))
	for i, r := range refs {
		out[i] = PanePlace{ID: r.s.id, WorkspaceID: r.wsID, Workspace: r.index, Focused: r.focused}
	}
	return out
}

// FocusedSurface returns the focused pane of the workspace with id wsID;
// ok is false when the workspace does not exist or has no pane.
func (m *Manager) FocusedSurface(wsID uint64) (id uint64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ws := range m.wss {
		if ws.id == wsID {
			if ws.focus == nil {
				return 0, false
			}
			return ws.focus.id, true
		}
	}
	return 0, false
}

// SetRatios sets the shares of the split at path in the layout of the
// workspace with id wsID, as a divider drag does. The path lists child
// indexes from the root (empty: the root itself). The ratios must have one
// entry per child of that split; they are repaired like a layout's (each
// at least 0.01, summing to 1; non-finite entries become even shares).
// It publishes LayoutChanged. Errors wrap ErrNotFound (no such workspace
// or split) or ErrInvalid (wrong number of ratios).
func (m *Manager) SetRatios(wsID uint64, path []int, ratios []float64) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	i := slices.IndexFunc(m.wss, func(ws *wsState) bool { return ws.id == wsID })
	if i < 0 {
		m.mu.Unlock()
		return errorf(ErrNotFound, "workspace %d not found", wsID)
	}
	n := m.wss[i].root
	for _, k := range path {
		if n == nil || n.leaf() || k < 0 || k >= len(n.children) {
			m.mu.Unlock()
			return errorf(ErrNotFound, "no split at path %v", path)
		}
		n = n.children[k]
	}
	if n == nil || n.leaf() {
		m.mu.Unlock()
		return errorf(ErrNotFound, "no split at path %v", path)
	}
	if len(ratios) != len(n.children) {
		m.mu.Unlock()
		return errorf(ErrInvalid, "split at path %v has %d children, got %d ratios", path, len(n.children), len(ratios))
	}
	n.ratios = proto.NormalizeRatios(ratios, len(ratios))
	m.mu.Unlock()
	m.publish(bus.LayoutChanged{WorkspaceID: wsID})
	return nil
}

// Equalize gives every split of the workspace at index equal shares,
// keeping the tree's shape. It publishes LayoutChanged.
func (m *Manager) Equalize(index int) error {
	if err := m.lockIndex(index); err != nil {
		return err
	}
	ws := m.wss[index]
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || n.leaf() {
			return
		}
		for i := range n.ratios {
			n.ratios[i] = 1 / float64(len(n.ratios))
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(ws.root)
	m.mu.Unlock()
	m.publish(bus.LayoutChanged{WorkspaceID: ws.id})
	return nil
}
