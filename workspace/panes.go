package workspace

import (
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/terminal"
)

// This file holds the panes' lifecycle: starting programs (through
// Options.Start), placing them in a workspace, and splitting, closing,
// focusing, renaming and resizing panes.

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
	// Prompt, when set, is prefilled into the pane once its output
	// settled (Options.PromptSettle): typed, never submitted (see
	// [PrefillBytes]), so it needs no scripting gate.
	Prompt string
	// ScrollbackCap, when positive, caps the pane's scrollback in lines
	// (a pane profile's cap: agent, review, cached); the smaller of it
	// and Options.Scrollback applies. 0 means no cap of its own.
	ScrollbackCap int
}

// scrollback returns the scrollback of a pane of spec: the manager's,
// capped by the spec's.
func (m *Manager) scrollback(spec PaneSpec) int {
	sb := m.o.Scrollback
	if spec.ScrollbackCap <= 0 || sb == terminal.NoScrollback {
		return sb
	}
	if sb == 0 {
		sb = terminal.DefaultScrollback
	}
	return min(sb, spec.ScrollbackCap)
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
	t, err := m.o.Start(terminal.Options{
		Argv: argv, Dir: cwd, Env: env,
		Cols: m.o.Cols, Rows: m.o.Rows, Scrollback: m.scrollback(spec),
		ScreenHistoryBytes: m.o.ScreenHistoryBytes,
		Background:         true,
	})
	if err != nil {
		return nil, fmt.Errorf("workspace: start %q: %w", argv[0], err)
	}
	if in := m.o.Input; in != nil {
		t.TapInput(func(p []byte) { in(id, p) }) // lasts as long as the terminal
	}
	sf := &Surface{
		id: id, m: m, term: t, dir: cwd, command: spec.Command, words: splitCommand(spec.Command), argv: shown, env: maps.Clone(spec.Env),
		custom: SanitizeName(spec.Name), gone: make(chan struct{}),
	}
	t.TapInput(sf.noteEnter) // lasts as long as the terminal
	m.openHistory(sf, "")
	return sf, nil
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
		wg.Go(func() {
			s.term.Close()
			s.closeHistory(true)
		})
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
			m.wg.Go(func() { m.prefill(s, prompt) })
		}
	}
}

// promptInputWait bounds how long a pane's start prompt waits for its
// agent to read its input; after it the prompt is typed anyway. A loaded
// machine took opencode a minute to come up.
const promptInputWait = 2 * time.Minute

// prefill types a pane's start prompt once its program can take it: its
// output settled (Options.PromptSettle), and for an agent
// ([Surface.AgentTool]) once it reads its input ([Surface.InputReady],
// the condition send_text's submit waits for), then its drawing rested.
// An agent that loads silently for seconds (opencode 1.18.33) looked
// settled long before: the prompt went to the terminal's echo and was
// gone once the agent took the screen over.
func (m *Manager) prefill(s *Surface, prompt string) {
	if !s.WaitSettled(m.o.PromptSettle, m.stop) {
		return
	}
	if s.AgentTool() != "" && !s.InputReady() {
		if !s.waitInputReady(promptInputWait, m.stop) {
			return
		}
		if !s.InputReady() {
			m.warnf("paneflow: surface %d: %s did not read its input within %s; its start prompt is typed anyway", s.id, s.AgentTool(), promptInputWait)
		}
		rest := Settle{Floor: m.o.PromptSettle.Quiet, Quiet: m.o.PromptSettle.Quiet, Max: m.o.PromptSettle.Max}
		if !s.WaitSettled(rest, m.stop) {
			return
		}
	}
	s.term.SendInput(PrefillBytes(prompt, s.term.Emulator().Modes()))
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
		m.wg.Go(func() {
			s.term.Close()
			s.closeHistory(true) // closed for good
		})
		for _, ch := range m.goneWaiters[s.id] {
			close(ch)
		}
		delete(m.goneWaiters, s.id)
	}
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

// CloseSurface closes a pane: its space goes to its neighbour, and its
// program is killed once the undo window passed (Options.UndoWindow;
// [Manager.Reopen] brings it back before that). Closing the last pane of
// a workspace closes the workspace too, unless it is the only one, which
// then stays empty.
func (m *Manager) CloseSurface(id uint64) error {
	s, err := m.lockSurface(id)
	if err != nil {
		return err
	}
	ws := s.ws
	var evs []bus.Event
	var gone []*Surface
	if ws.root.count() == 1 && len(m.wss) > 1 {
		evs, gone = m.removeWorkspaceLocked(m.indexLocked(ws))
	} else {
		it := &closedItem{ss: []*Surface{s}, wsID: ws.id, share: 1}
		if p := s.leaf.parent; p != nil {
			i := p.index(s.leaf)
			it.dir, it.before, it.share = p.dir, i == 0, p.ratios[i]
			it.sib = p.children[max(i-1, 0)]
			if i == 0 {
				it.sib = p.children[1]
			}
		}
		gone = m.keepClosedLocked(it)
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
	s, err := m.lockSurface(id)
	if err != nil {
		return 0, err
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
	s, err := m.lockSurface(id)
	if err != nil {
		return "", err
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
