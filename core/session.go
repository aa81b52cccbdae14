package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/subsystem"
	"github.com/paneflow-go/paneflow/workspace"
)

// Session saving's pace: a change (a pane opened, closed, renamed,
// moved; an agent's session id) is written at most sessionDelay after it,
// many changes in that time in one write; and every sessionPoll the
// session is captured again and written if it differs (a shell's
// directory changes without an event).
const (
	sessionDelay = 250 * time.Millisecond
	sessionPoll  = 15 * time.Second
)

// sessionEvents are what make the session keeper save: the model's
// structural events and the agents' frames (their session ids).
var sessionEvents = []string{
	bus.TypeSurfaceCreated, bus.TypeSurfaceClosed, bus.TypeSurfaceExited, bus.TypeSurfaceRenamed,
	bus.TypeFocusChanged, bus.TypeWorkspaceCreated, bus.TypeWorkspaceClosed, bus.TypeWorkspaceSelected,
	bus.TypeWorkspaceChanged, bus.TypeLayoutChanged,
	bus.TypeAISessionStart, bus.TypeAIPromptSubmit, bus.TypeAIToolUse, bus.TypeAINotification,
	bus.TypeAIStop, bus.TypeAIExit, bus.TypeAISessionEnd,
}

// sessionKeeper is the "session" subsystem: the server owns the session
// file (package session). At Init it restores the file into the model
// (agents resumed in their own conversations, panes given their managed
// worktrees back), then follows the bus and saves, atomically, within
// sessionDelay of every change and whenever a periodic capture differs,
// so a server killed with SIGKILL loses at most that much; Shutdown
// saves a last time while the panes still run.
//
// The core starts it after the socket is claimed (a second server on the
// same socket restores nothing) and before the teams backend, so it
// stops before the socket and the panes close. Its maps are guarded by
// mu; the goroutine run writes the file.
type sessionKeeper struct {
	path      string // "": the subsystem runs and keeps nothing
	m         *workspace.Manager
	worktrees *worktreeOwner
	// restored is closed once Init restored the file (or skipped), so the
	// worktree owner prunes only what no restored pane runs in.
	restored chan struct{}
	once     sync.Once

	logf  func(string, ...any)
	clock clock.Clock
	sub   *bus.Subscription
	stop  chan struct{}
	done  chan struct{}
	fire  chan struct{}

	mu     sync.Mutex
	agents map[uint64]session.Pane // surface → its agent (Agent, AgentSession)
	armed  bool                    // a save is due within sessionDelay
	last   []byte                  // the session last written
	saves  int                     // files written, for tests
}

// newSessionKeeper returns the keeper of the session file at path ("":
// none) over m.
func newSessionKeeper(path string, m *workspace.Manager, worktrees *worktreeOwner) *sessionKeeper {
	return &sessionKeeper{
		path: path, m: m, worktrees: worktrees, restored: make(chan struct{}),
		agents: map[uint64]session.Pane{}, stop: make(chan struct{}), done: make(chan struct{}),
		fire: make(chan struct{}, 1),
	}
}

// Name is the subsystem's name, "session".
func (*sessionKeeper) Name() string { return "session" }

// markRestored lets the worktree owner prune.
func (k *sessionKeeper) markRestored() { k.once.Do(func() { close(k.restored) }) }

// Init restores the session file, then starts saving. A missing file is
// a first start; a corrupt one was moved aside by session.Load and is
// reported, and the server starts without it.
func (k *sessionKeeper) Init(h *subsystem.Host) error {
	defer k.markRestored()
	if k.path == "" {
		return nil // keeps nothing; Shutdown does nothing
	}
	if h.Bus == nil {
		return errors.New("needs the event bus")
	}
	k.logf, k.clock = h.Logf, clock.Or(h.Clock)
	k.sub = h.Bus.Subscribe("core.session", bus.MatchTypes(sessionEvents...), 4096)
	s, err := session.Load(k.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		k.logf("paneflow: %v; starting without it", err)
	default:
		warns, err := session.RestoreWith(k.m, s, session.RestoreOptions{Resume: true, Restored: k.restoredPane})
		for _, w := range warns {
			k.logf("paneflow: session: %s", w)
		}
		if err != nil {
			k.logf("paneflow: %v", err)
		}
	}
	// Journals no restored pane adopted belong to panes a killed server
	// never saved.
	if err := k.m.PruneHistory(); err != nil {
		k.logf("paneflow: %v", err)
	}
	go k.run()
	return nil
}

// restoredPane gives a restored pane its agent record (so a restart
// before the resumed agent reports again still resumes it), its screen
// history on disk and its managed worktree.
func (k *sessionKeeper) restoredPane(s *workspace.Surface, p session.Pane) {
	if p.Agent != "" {
		k.mu.Lock()
		k.agents[s.ID()] = session.Pane{Agent: p.Agent, AgentSession: p.AgentSession}
		k.mu.Unlock()
	}
	if p.History != "" {
		if err := s.AdoptHistory(p.History); err != nil && k.logf != nil {
			k.logf("paneflow: session: %v", err)
		}
	}
	if p.Worktree != nil && k.worktrees != nil {
		w := *p.Worktree
		w.Action = proto.ActionReuse // ours again only if the registry says so
		k.worktrees.Adopt(s.ID(), w)
	}
}

// paneOf is what the session keeps of pane id beyond its layout.
func (k *sessionKeeper) paneOf(id uint64) session.Pane {
	k.mu.Lock()
	p := k.agents[id]
	k.mu.Unlock()
	if s, ok := k.m.Surface(id); ok {
		p.History = s.HistoryKey()
	}
	if k.worktrees != nil {
		if w, ok := k.worktrees.worktreeOf(id); ok {
			p.Worktree = &w
		}
	}
	return p
}

// note records what an event says of the panes' agents.
func (k *sessionKeeper) note(e bus.Event) {
	var f proto.AgentFrame
	gone := false
	switch ev := e.(type) {
	case bus.SurfaceClosed:
		f.SurfaceID, gone = ev.SurfaceID, true
	case bus.AIExit:
		f, gone = ev.AgentFrame, true
	case bus.AISessionEnd:
		f, gone = ev.AgentFrame, true
	case bus.AISessionStart:
		f = ev.AgentFrame
	case bus.AIPromptSubmit:
		f = ev.AgentFrame
	case bus.AIToolUse:
		f = ev.AgentFrame
	case bus.AINotification:
		f = ev.AgentFrame
	case bus.AIStop:
		f = ev.AgentFrame
	default:
		return
	}
	if f.SurfaceID == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if gone {
		delete(k.agents, f.SurfaceID)
		return
	}
	p := k.agents[f.SurfaceID]
	if f.Tool != "" && f.Tool != p.Agent {
		p = session.Pane{Agent: f.Tool}
	}
	if f.SessionID != "" {
		p.AgentSession = f.SessionID
	}
	if p.Agent != "" {
		k.agents[f.SurfaceID] = p
	}
}

// arm schedules a save within sessionDelay unless one is due already.
func (k *sessionKeeper) arm() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.armed {
		return
	}
	k.armed = true
	k.clock.AfterFunc(sessionDelay, func() {
		select {
		case k.fire <- struct{}{}:
		default:
		}
	})
}

// run follows the bus and saves until Shutdown.
func (k *sessionKeeper) run() {
	defer close(k.done)
	poll := time.NewTicker(sessionPoll)
	defer poll.Stop()
	var buf []bus.Event
	k.arm() // what Init restored
	for {
		select {
		case <-k.stop:
			return
		case <-k.sub.Done():
			return
		case <-k.sub.Ready():
			evs, _ := k.sub.Drain(buf)
			for _, e := range evs {
				k.note(e)
			}
			buf = evs
			k.arm()
		case <-k.fire:
			k.mu.Lock()
			k.armed = false
			k.mu.Unlock()
			k.save()
		case <-poll.C:
			k.save()
		}
	}
}

// save captures the model and writes the file when it changed.
func (k *sessionKeeper) save() {
	s := session.CaptureWith(k.m, k.paneOf)
	data, err := json.Marshal(s)
	if err != nil {
		k.logf("paneflow: session: %v", err)
		return
	}
	k.mu.Lock()
	same := bytes.Equal(data, k.last)
	k.mu.Unlock()
	if same {
		return
	}
	if err := session.Save(k.path, s); err != nil {
		k.logf("paneflow: %v", err)
		return
	}
	k.mu.Lock()
	k.last, k.saves = data, k.saves+1
	k.mu.Unlock()
}

// Shutdown stops following the bus and saves a last time, while the
// panes still run (the model shuts down after this subsystem).
func (k *sessionKeeper) Shutdown(ctx context.Context) error {
	if k.sub == nil {
		return nil
	}
	close(k.stop)
	k.sub.Close()
	select {
	case <-k.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	k.save()
	return nil
}
