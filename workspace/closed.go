package workspace

import (
	"slices"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
)

// This file holds undo close: a closed pane or workspace keeps its
// programs running, out of every layout and list, for Options.UndoWindow;
// Reopen puts the last one back where it was, with the same surface ids
// and processes; after the window its programs are killed as a close
// without undo does at once.

// DefaultUndoWindow is how long a closed pane or workspace can be
// reopened by default (Options.UndoWindow).
const DefaultUndoWindow = time.Minute

// maxClosed caps the closed panes and workspaces kept for Reopen; closing
// one more closes the oldest for good.
const maxClosed = 16

// ErrNothingToReopen: Reopen found no pane or workspace closed within the
// undo window.
var ErrNothingToReopen = errorf(ErrNotFound, "Nothing to reopen: no pane or workspace was closed in the last minute")

// closedItem is a closed pane or workspace kept for Reopen; guarded by
// Manager.mu.
type closedItem struct {
	seq   uint64
	timer clock.Timer
	// ss are the surfaces closed (one for a pane), their terminals alive.
	ss []*Surface
	// ws is the closed workspace (with its tree and focus as they were),
	// nil for a pane; index is where it was in the list.
	ws    *wsState
	index int
	// A pane's place: the workspace it was in, the node that took its
	// space (nil when it was the workspace's only pane), the split
	// direction, whether it came before that node, and its share.
	wsID   uint64
	sib    *node
	dir    Direction
	before bool
	share  float64
}

// undoWindow is Options.UndoWindow with its default; <= 0 means no undo.
func (m *Manager) undoWindow() time.Duration {
	switch w := m.o.UndoWindow; {
	case w == 0:
		return DefaultUndoWindow
	case w < 0:
		return 0
	default:
		return w
	}
}

// keepClosedLocked keeps a closed item for Reopen, or closes its
// terminals at once when undo is off. It returns the terminals to close
// now (the item's without undo, the oldest item's when over the cap);
// the caller closes them with closeTerminalsLocked.
func (m *Manager) keepClosedLocked(it *closedItem) []*Surface {
	w := m.undoWindow()
	if w <= 0 {
		return it.ss
	}
	m.closedSeq++
	it.seq = m.closedSeq
	seq := it.seq
	it.timer = m.clock.AfterFunc(w, func() { m.expire(seq) })
	m.closedItems = append(m.closedItems, it)
	if len(m.closedItems) <= maxClosed {
		return nil
	}
	old := m.closedItems[0]
	m.closedItems = slices.Delete(m.closedItems, 0, 1)
	old.timer.Stop()
	return old.ss
}

// expire closes a kept item's terminals once its undo window passed.
func (m *Manager) expire(seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	i := slices.IndexFunc(m.closedItems, func(it *closedItem) bool { return it.seq == seq })
	if i < 0 {
		return // reopened meanwhile
	}
	it := m.closedItems[i]
	m.closedItems = slices.Delete(m.closedItems, i, i+1)
	m.closeTerminalsLocked(it.ss)
}

// WhenGone returns a channel closed once surface id is gone for good:
// closed and no longer kept for [Manager.Reopen] (its undo window passed,
// the cap of kept items pushed it out, it was closed without undo, or the
// manager closed), at once when it is neither open nor kept. A pane
// closed and reopened is not gone. The managed worktree of a closed pane
// waits for it before its teardown (core's worktree owner), so a reopened
// pane finds its directory. Safe for concurrent use.
func (m *Manager) WhenGone(id uint64) <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch := make(chan struct{})
	kept := slices.ContainsFunc(m.closedItems, func(it *closedItem) bool {
		return slices.ContainsFunc(it.ss, func(s *Surface) bool { return s.id == id })
	})
	if m.closed || m.surfaces[id] == nil && !kept {
		close(ch)
		return ch
	}
	if m.goneWaiters == nil {
		m.goneWaiters = map[uint64][]chan struct{}{}
	}
	m.goneWaiters[id] = append(m.goneWaiters[id], ch)
	return ch
}

// Closed reports how many closed panes and workspaces can be reopened.
func (m *Manager) Closed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.closedItems)
}

// Reopened says what [Manager.Reopen] brought back.
type Reopened struct {
	// Workspace is true when a whole workspace came back.
	Workspace bool
	// WorkspaceID and Index are the workspace the panes are in now.
	WorkspaceID uint64
	Index       int
	// SurfaceIDs are the panes reopened, with the ids they had.
	SurfaceIDs []uint64
}

// Reopen brings back the pane or workspace closed last within the undo
// window (Options.UndoWindow), with its programs as they are now (a
// program that exited meanwhile shows as exited): a pane goes back next
// to the pane that took its space, in the same direction and share (next
// to the focused pane of its workspace, or of the active one, when that
// one is gone too), a workspace at its index. The pane (or the
// workspace's focused pane) gets the focus and its workspace becomes the
// active one. It fails with [ErrNothingToReopen] when there is nothing to
// reopen, and with ErrLimit when the pane or workspace cap is reached (the
// item stays kept).
func (m *Manager) Reopen() (Reopened, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Reopened{}, ErrClosed
	}
	n := len(m.closedItems)
	if n == 0 {
		m.mu.Unlock()
		return Reopened{}, ErrNothingToReopen
	}
	it := m.closedItems[n-1]
	var r Reopened
	var evs []bus.Event
	var err error
	if it.ws != nil {
		r, evs, err = m.reopenWorkspaceLocked(it)
	} else {
		r, evs, err = m.reopenPaneLocked(it)
	}
	if err != nil {
		m.mu.Unlock()
		return Reopened{}, err
	}
	it.timer.Stop()
	m.closedItems = m.closedItems[:n-1]
	m.mu.Unlock()
	m.publish(evs...)
	return r, nil
}

// reviveLocked makes a live surface again of a closed one: a new Surface
// (the old one stays closed for whoever holds it) with the same id,
// terminal, names and Enter record, registered and watched.
func (m *Manager) reviveLocked(old *Surface, ws *wsState) *Surface {
	s := &Surface{
		id: old.id, m: m, term: old.term, dir: old.dir, command: old.command, words: old.words, argv: old.argv, env: old.env,
		custom: old.custom, gone: make(chan struct{}), ws: ws,
	}
	s.enter = old.LastEnter()
	old.term.TapInput(s.noteEnter)
	m.surfaces[s.id] = s
	m.wg.Add(1)
	go m.watch(s)
	return s
}

// reopenPaneLocked puts a closed pane back (see Reopen).
func (m *Manager) reopenPaneLocked(it *closedItem) (Reopened, []bus.Event, error) {
	ws := m.wsByIDLocked(it.wsID)
	sib, dir, before, share := it.sib, it.dir, it.before, it.share
	if ws == nil || sib == nil || !ws.root.holds(sib) {
		// Where it was is gone: next to the focused pane.
		if ws == nil {
			if m.active < 0 {
				return Reopened{}, nil, errorf(ErrNotFound, msgNoActiveWorkspace)
			}
			ws = m.wss[m.active]
		}
		sib, dir, before, share = nil, Vertical, false, 0.5
		if ws.focus != nil {
			sib = ws.focus.leaf
		} else {
			sib = ws.root.firstLeaf()
		}
	}
	if ws.root.count() >= m.maxPanes {
		return Reopened{}, nil, errorf(ErrLimit, "%s (%d)", msgMaxPanes, m.maxPanes)
	}
	s := m.reviveLocked(it.ss[0], ws)
	leaf := newLeaf(s)
	if sib == nil {
		ws.root = leaf
	} else {
		ws.root = insertLeaf(ws.root, sib, leaf, dir, before, share)
	}
	ws.focus = s
	index := m.indexLocked(ws)
	evs := []bus.Event{bus.SurfaceCreated{SurfaceID: s.id, WorkspaceID: ws.id, Name: s.custom}, bus.LayoutChanged{WorkspaceID: ws.id}}
	if m.active != index {
		m.active = index
		evs = append(evs, m.selectedEventLocked())
	}
	evs = append(evs, bus.FocusChanged{SurfaceID: s.id, WorkspaceID: ws.id})
	return Reopened{WorkspaceID: ws.id, Index: index, SurfaceIDs: []uint64{s.id}}, evs, nil
}

// reopenWorkspaceLocked puts a closed workspace back (see Reopen).
func (m *Manager) reopenWorkspaceLocked(it *closedItem) (Reopened, []bus.Event, error) {
	if len(m.wss) >= m.maxWS {
		return Reopened{}, nil, errorf(ErrLimit, msgWorkspaceLimit)
	}
	ws := it.ws
	index := min(it.index, len(m.wss))
	r := Reopened{Workspace: true, WorkspaceID: ws.id, Index: index}
	var evs []bus.Event
	focus := ws.focus
	for _, old := range it.ss {
		s := m.reviveLocked(old, ws)
		old.leaf.surface, s.leaf = s, old.leaf
		if focus == old {
			ws.focus = s
		}
		r.SurfaceIDs = append(r.SurfaceIDs, s.id)
		evs = append(evs, bus.SurfaceCreated{SurfaceID: s.id, WorkspaceID: ws.id, Name: s.custom})
	}
	m.wss = slices.Insert(m.wss, index, ws)
	if m.active >= index {
		m.active++
	}
	m.active = index
	evs = append([]bus.Event{bus.WorkspaceCreated{WorkspaceID: ws.id, Index: index, Title: ws.title}}, evs...)
	evs = append(evs, bus.LayoutChanged{WorkspaceID: ws.id}, m.selectedEventLocked())
	if ws.focus != nil {
		evs = append(evs, bus.FocusChanged{SurfaceID: ws.focus.id, WorkspaceID: ws.id})
	}
	return r, evs, nil
}

// wsByIDLocked finds an open workspace by id.
func (m *Manager) wsByIDLocked(id uint64) *wsState {
	for _, ws := range m.wss {
		if ws.id == id {
			return ws
		}
	}
	return nil
}

// closeKeptLocked stops the undo timers and returns every kept surface,
// for Close.
func (m *Manager) closeKeptLocked() []*Surface {
	var out []*Surface
	for _, it := range m.closedItems {
		it.timer.Stop()
		out = append(out, it.ss...)
	}
	m.closedItems = nil
	return out
}

// holds reports whether n is in the tree rooted at root.
func (root *node) holds(n *node) bool {
	for ; n != nil; n = n.parent {
		if n == root {
			return true
		}
	}
	return false
}

// insertLeaf puts leaf next to sib (before or after it) in direction dir
// with share of the space they then split, and returns the tree's root:
// into sib's parent when that splits in dir (taking share from sib), else
// in a new split replacing sib. It undoes removeLeaf.
func insertLeaf(root, sib, leaf *node, dir Direction, before bool, share float64) *node {
	if p := sib.parent; p != nil && p.dir == dir {
		i := p.index(sib)
		take := share
		if p.ratios[i] <= take {
			take = p.ratios[i] / 2 // resized since: half of the neighbour's
		}
		p.ratios[i] -= take
		at := i + 1
		if before {
			at = i
		}
		p.children = insertAt(p.children, at, leaf)
		p.ratios = insertAt(p.ratios, at, take)
		leaf.parent = p
		return root
	}
	share = min(max(share, 0.05), 0.95)
	sp := &node{parent: sib.parent, dir: dir}
	if before {
		sp.children, sp.ratios = []*node{leaf, sib}, []float64{share, 1 - share}
	} else {
		sp.children, sp.ratios = []*node{sib, leaf}, []float64{1 - share, share}
	}
	if p := sib.parent; p != nil {
		p.children[p.index(sib)] = sp
	} else {
		root = sp
	}
	sib.parent, leaf.parent = sp, sp
	return root
}
