package teams

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/paneflow-go/paneflow/proto"
)

// SessionName is the one tmux session Paneflow pretends to run.
const SessionName = "paneflow"

// Options configures [New].
type Options struct {
	// Host is the workspace model; required.
	Host Host
	// SocketPath is the Paneflow socket, used as the first field of the
	// TMUX value handed to Claude Code ("" gives "paneflow").
	SocketPath string
	// BackendSocket is where the CustomPaneBackend server listens ("" if
	// it does not).
	BackendSocket string
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
	// ClaudeConfigDir is where Claude Code keeps its teams/ for a lead
	// whose environment is not known ("" means [ClaudeConfigDir] of
	// Paneflow's own environment).
	ClaudeConfigDir string
}

// Registry maps tmux-style ids to Paneflow panes and runs the tmux
// commands and backend requests against them. Create it with [New] and
// stop it with [Close]. All methods are safe for concurrent use; each
// request runs under one lock (see the package doc).
type Registry struct {
	o    Options
	host Host
	logf func(format string, args ...any)

	mu        sync.Mutex
	closed    bool
	nextPane  int
	nextWin   int
	panes     map[int]*pane  // %N → pane
	bySurface map[uint64]int // surface id → %N
	windows   map[uint64]int // workspace id → @N
	dying     map[uint64]int // surface id → %N of killed panes whose exit is still to report
	subs      map[*subscriber]struct{}
	stop      chan struct{}
	wg        sync.WaitGroup
	// exitHook, when set (tests), runs after each exit was handled.
	exitHook func()
	// configs caches the teams' config.json files (own lock; never read
	// under mu).
	configs teamConfigs
}

// pane is one registered pane; guarded by Registry.mu.
type pane struct {
	n       int
	surface uint64
	// owned: the registry started it (split, respawn, spawn_agent) and
	// may close it; the lead and the user's panes are only addressed.
	owned bool
	// lead is the %N of the team's lead, -1 for none.
	lead  int
	title string
	// remain is the pane's remain-on-exit: "off" (close when the program
	// ends; tmux's default), "on" (keep) or "failed" (keep when the code
	// is not 0).
	remain string
	// What the teammate's command line or metadata says.
	team, agent, color, role string
	// env is a lead's environment as its launch shim reported it
	// ("K=V"): what the panes it spawns over the backend inherit.
	env []string
}

// Member is one registered pane as [Registry.Members] lists it
// (teams.list's [proto.TeamMember]).
type Member = proto.TeamMember

// New returns a registry for o.Host.
func New(o Options) *Registry {
	if o.Host == nil {
		panic("teams: New without a Host")
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if o.ClaudeConfigDir == "" {
		o.ClaudeConfigDir = ClaudeConfigDir(os.Environ())
	}
	return &Registry{
		o: o, host: o.Host, logf: logf,
		panes: map[int]*pane{}, bySurface: map[uint64]int{}, windows: map[uint64]int{}, dying: map[uint64]int{},
		subs: map[*subscriber]struct{}{}, stop: make(chan struct{}),
	}
}

// Close stops the exit watchers and ends the backend subscriptions; later
// requests fail. It does not close any pane.
func (r *Registry) Close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	close(r.stop)
	for s := range r.subs {
		s.closeLocked()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// paneID formats %N.
func paneID(n int) string { return "%" + strconv.Itoa(n) }

// parseNum parses the number after a one-character prefix ("%3", "@1").
func parseNum(s string, prefix byte) (int, bool) {
	if len(s) < 2 || s[0] != prefix {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	return n, err == nil && n >= 0 && strconv.Itoa(n) == s[1:]
}

// ensureLocked returns the registry entry of a surface, registering it
// (as a pane the registry does not own) under a new %N when needed.
func (r *Registry) ensureLocked(surface uint64) *pane {
	if n, ok := r.bySurface[surface]; ok {
		return r.panes[n]
	}
	p := &pane{n: r.nextPane, surface: surface, lead: -1, remain: "off"}
	r.nextPane++
	r.panes[p.n] = p
	r.bySurface[surface] = p.n
	return p
}

// liveLocked returns pane %n when it exists and its surface is open,
// forgetting it when the surface is gone.
func (r *Registry) liveLocked(n int) (*pane, PaneInfo, bool) {
	p, ok := r.panes[n]
	if !ok {
		return nil, PaneInfo{}, false
	}
	info, ok := r.host.Pane(p.surface)
	if !ok {
		r.forgetLocked(p)
		return nil, PaneInfo{}, false
	}
	return p, info, true
}

// forgetLocked drops p from the registry; its %N is never reused.
func (r *Registry) forgetLocked(p *pane) {
	delete(r.panes, p.n)
	if r.bySurface[p.surface] == p.n {
		delete(r.bySurface, p.surface)
	}
}

// windowLocked returns the @N of workspace ws, allocating it when needed.
func (r *Registry) windowLocked(ws uint64) int {
	if n, ok := r.windows[ws]; ok {
		return n
	}
	n := r.nextWin
	r.nextWin++
	r.windows[ws] = n
	return n
}

// workspaceOfLocked returns the workspace id of window @n.
func (r *Registry) workspaceOfLocked(n int) (uint64, bool) {
	for ws, w := range r.windows {
		if w == n {
			return ws, true
		}
	}
	return 0, false
}

// Attach registers the pane of a Claude Code lead (or any caller) and
// returns its ids: what the launch shim puts in TMUX_PANE, TMUX and the
// backend variables before it starts Claude Code.
//
// env is the lead's environment ("K=V"), kept for the teammates it
// spawns over the backend socket (nil keeps what an earlier attach gave).
func (r *Registry) Attach(surface uint64, env []string) (AttachInfo, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return AttachInfo{}, errClosed
	}
	info, ok := r.host.Pane(surface)
	if !ok {
		return AttachInfo{}, fmt.Errorf("teams: surface %d: %w", surface, ErrGone)
	}
	p := r.ensureLocked(surface)
	if env != nil {
		p.env = append([]string(nil), env...)
	}
	w := r.windowLocked(info.Workspace)
	sock := r.o.SocketPath
	if sock == "" {
		sock = SessionName
	}
	return AttachInfo{
		Pane: paneID(p.n), Window: "@" + strconv.Itoa(w), Session: SessionName,
		TMUX:          strings.ReplaceAll(sock, ",", "_") + ",0,0",
		ContextID:     contextID(p.n),
		BackendSocket: r.o.BackendSocket,
	}, nil
}

// AttachInfo is what [Registry.Attach] returns (teams.attach's
// [proto.TeamsAttachResult]).
type AttachInfo = proto.TeamsAttachResult

// Members lists the registered panes that are open, in %N order. A
// teammate's team name, and its name and colour when its command line
// did not say, come from Claude Code's config.json of the team, in the
// config directory of its lead's environment.
func (r *Registry) Members() []Member {
	r.mu.Lock()
	ns := make([]int, 0, len(r.panes))
	for n := range r.panes {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	out := make([]Member, 0, len(ns))
	paths := make([]string, 0, len(ns)) // config.json of each member's team
	for _, n := range ns {
		p, info, ok := r.liveLocked(n)
		if !ok {
			continue
		}
		m := Member{
			Pane: paneID(n), SurfaceID: p.surface, Window: "@" + strconv.Itoa(r.windowLocked(info.Workspace)),
			Name: p.title, Team: p.team, Agent: p.agent, Color: p.color, Role: p.role, Teammate: p.owned,
		}
		dir := r.o.ClaudeConfigDir
		if l, ok := r.panes[p.lead]; ok && p.lead >= 0 {
			m.LeadSurfaceID = l.surface
			if d := ClaudeConfigDir(l.env); d != "" {
				dir = d
			}
		}
		out = append(out, m)
		paths = append(paths, TeamConfigPath(dir, m.Team))
	}
	r.mu.Unlock()
	for i := range out {
		m := &out[i]
		if m.Team == "" {
			continue
		}
		m.TeamName = m.Team
		cfg := r.configs.get(paths[i], r.logf)
		if cfg == nil {
			continue
		}
		if cfg.Name != "" {
			m.TeamName = cfg.Name
		}
		if c := cfg.member(m.Pane, m.Agent); c != nil {
			if m.Agent == "" {
				m.Agent = c.Name
			}
			if m.Color == "" {
				m.Color = c.Color
			}
		}
	}
	return out
}

// register records a pane the registry started, under the new id n (or a
// fresh one when n < 0), and watches its program's exit.
func (r *Registry) registerLocked(n int, surface uint64, lead int) *pane {
	if n < 0 {
		n = r.nextPane
		r.nextPane++
	}
	p, ok := r.panes[n]
	if !ok {
		p = &pane{n: n, lead: lead, remain: "off"}
		r.panes[n] = p
	} else if r.bySurface[p.surface] == n {
		delete(r.bySurface, p.surface)
	}
	p.surface, p.owned = surface, true
	r.bySurface[surface] = n
	r.watchLocked(p.n, surface)
	return p
}

// watchLocked starts the goroutine that handles the end of surface's
// program as pane %n's.
func (r *Registry) watchLocked(n int, surface uint64) {
	done, code, ok := r.host.Done(surface)
	if !ok {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		select {
		case <-done:
			r.exited(n, surface, code())
		case <-r.stop:
		}
	}()
}

// exited handles the end of pane %n's program: subscribers get
// context_exited, and the pane closes unless remain-on-exit keeps it
// (tmux semantics: "failed" keeps it only for a non-zero code).
func (r *Registry) exited(n int, surface uint64, code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.exitHook != nil {
		defer r.exitHook()
	}
	if r.closed {
		return
	}
	if d, ok := r.dying[surface]; ok && d == n {
		delete(r.dying, surface)
		r.publishLocked(event{ctx: contextID(n), code: code})
		return
	}
	p, ok := r.panes[n]
	if !ok || p.surface != surface {
		return // respawned: its new program is watched instead
	}
	_, open := r.host.Pane(surface)
	r.publishLocked(event{ctx: contextID(n), code: code})
	keep := open && (p.remain == "on" || (p.remain == "failed" && code != 0))
	if keep {
		return
	}
	if open {
		if err := r.host.Close(surface); err != nil {
			r.logf("teams: close %s after exit: %v", paneID(n), err)
		}
	}
	r.forgetLocked(p)
}

// killLocked closes pane p when the registry owns it; the lead and the
// user's own panes are never closed by a teammate's call.
func (r *Registry) killLocked(p *pane) error {
	if !p.owned {
		return fmt.Errorf("pane %s was not started by a team; not killed", paneID(p.n))
	}
	r.forgetLocked(p)
	r.dying[p.surface] = p.n
	if err := r.host.Close(p.surface); err != nil {
		delete(r.dying, p.surface)
		if !isGone(err) {
			return err
		}
	}
	return nil
}
