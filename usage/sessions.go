package usage

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/bus"
)

// sessionKey names an agent session as the conductor's frames do: the
// pane, the agent, and the process that sends the frames (the launch
// shim; 0 for hooks without one).
type sessionKey struct {
	surface uint64
	tool    string
	pid     int
}

// session is one agent session the subsystem follows; owned by the loop.
type session struct {
	key         sessionKey
	workspaceID uint64
	// since is when the session began: its records from before (a
	// resumed session's history) are not counted.
	since    time.Time
	sources  []*source
	hotUntil time.Time // polled often until then
	nextPoll time.Time // when its files are read next (zero: at once)
	ending   bool      // exited: read until endAt, then dropped
	endAt    time.Time
}

// source is one record file of a session (Claude Code's subagents write
// files of their own, followed as part of it); owned by the loop.
type source struct {
	path   string
	s      *session
	tail   *tail
	format format
	// subagents, for Claude Code: <transcript without .jsonl>/subagents,
	// whose *.jsonl files are the session's subagents' transcripts.
	subDir  string
	subs    map[string]*source
	scanned time.Time // when subDir was last listed
}

// subagentScan is how often a Claude Code session's subagents directory
// is listed while its transcript does not grow.
const subagentScan = 5 * time.Second

func (src *source) close() {
	src.tail.close()
	for _, sub := range src.subs {
		sub.close()
	}
}

// pending is a record read and not yet counted.
type pending struct {
	s   *session
	rec Record
}

// handle applies one bus event (on the loop).
func (u *Usage) handle(e bus.Event) {
	now := u.clock.Now()
	switch e := e.(type) {
	case bus.AISessionStart:
		u.frame(e.AgentFrame, now)
	case bus.AIPromptSubmit:
		s := u.frame(e.AgentFrame, now)
		u.turnStarted(s)
	case bus.AIToolUse:
		u.frame(e.AgentFrame, now)
	case bus.AINotification:
		u.frame(e.AgentFrame, now)
	case bus.AIStop:
		u.frame(e.AgentFrame, now)
	case bus.AIExit:
		u.end(u.frame(e.AgentFrame, now), now)
	case bus.AISessionEnd:
		u.end(u.frame(e.AgentFrame, now), now)
	case bus.AgentState:
		if e.SurfaceID == 0 {
			break
		}
		if e.State == "thinking" || e.State == "stalled" || e.State == "waiting_for_input" || e.State == "unknown_running" {
			u.working[e.SurfaceID] = true
		} else {
			delete(u.working, e.SurfaceID)
		}
		for _, s := range u.sessions {
			if s.key.surface == e.SurfaceID {
				s.hotUntil, s.nextPoll = now.Add(hotFor), time.Time{}
			}
		}
		u.kick()
	case bus.SurfaceClosed:
		for _, s := range u.sessions {
			if s.key.surface == e.SurfaceID {
				u.end(s, now)
			}
		}
		delete(u.working, e.SurfaceID)
		u.mu.Lock()
		u.forgetPaneLocked(e.SurfaceID)
		u.mu.Unlock()
	}
}

// frame follows the session a frame is about (creating it) and the
// record file it names; it returns the session, or nil for a frame of an
// agent whose records Paneflow does not read.
func (u *Usage) frame(f bus.AgentFrame, now time.Time) *session {
	tool := toolOf(f.Tool)
	if formatFor(tool) == nil {
		return nil
	}
	k := sessionKey{surface: f.SurfaceID, tool: tool, pid: f.PID}
	s := u.sessions[k]
	if s == nil {
		since := f.At
		if since.IsZero() {
			since = now
		}
		s = &session{key: k, workspaceID: f.WorkspaceID, since: since}
		u.sessions[k] = s
		u.mu.Lock()
		u.sessionStartedLocked(s)
		u.mu.Unlock()
	}
	if f.WorkspaceID != 0 {
		s.workspaceID = f.WorkspaceID
	}
	s.hotUntil, s.nextPoll = now.Add(hotFor), time.Time{}
	if p := f.TranscriptPath; p != "" {
		u.follow(s, p)
	}
	u.kick()
	return s
}

// follow makes path one of s's record files. A file another session
// followed is its no more: the latest session to name it owns it.
func (u *Usage) follow(s *session, path string) {
	src := u.sources[path]
	if src != nil {
		if src.s != s {
			old := src.s
			old.sources = deleteSource(old.sources, src)
			src.s = s
			s.sources = append(s.sources, src)
			for _, sub := range src.subs {
				sub.s = s
			}
		}
		return
	}
	src = &source{path: path, s: s, tail: newTail(path, s.since.Add(-sinceSlack)), format: formatFor(s.key.tool)}
	if s.key.tool == "claude" && strings.HasSuffix(path, ".jsonl") {
		src.subDir = filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
		src.subs = map[string]*source{}
	}
	u.sources[path] = src
	s.sources = append(s.sources, src)
}

func deleteSource(list []*source, src *source) []*source {
	for i, x := range list {
		if x == src {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// end marks s ended: its files are read a little longer (an agent's last
// lines follow its last hook), then dropped.
func (u *Usage) end(s *session, now time.Time) {
	if s == nil || s.ending {
		return
	}
	s.ending, s.endAt, s.nextPoll = true, now.Add(endGrace), time.Time{}
	u.kick()
}

// poll reads the files of the sessions due (every one when final: at
// shutdown), counts what it finds, drops the sessions that ended, and
// carries out what budgets decided.
func (u *Usage) poll(final bool) {
	now := u.clock.Now()
	var found []pending
	for _, s := range u.sessions {
		if !final && now.Before(s.nextPoll) {
			continue
		}
		// On a grid of hotEvery, so that the sessions' polls fall
		// together: one wake-up reads them all.
		s.nextPoll = now.Add(u.interval(s, now)).Truncate(hotEvery)
		for _, src := range s.sources {
			u.read(src, &found)
		}
	}
	infos := map[uint64]PaneInfo{}
	for _, p := range found {
		if id := p.s.key.surface; id != 0 {
			if _, ok := infos[id]; !ok {
				info, _ := u.o.Panes.Pane(id)
				infos[id] = info
			}
		}
	}
	u.mu.Lock()
	for _, p := range found {
		u.countLocked(p, infos[p.s.key.surface], now)
	}
	acts := u.checkLocked(now)
	events := u.flushEventsLocked()
	if u.ledgerDueLocked(now) || final {
		if err := u.ledger.save(); err != nil {
			u.o.Logf("paneflow: %v", err)
		}
		u.savedAt = now
	}
	u.mu.Unlock()
	u.act(acts)
	for _, e := range events {
		u.o.Bus.Publish(e)
	}
	for k, s := range u.sessions {
		if s.ending && (final || !now.Before(s.endAt)) {
			for _, src := range s.sources {
				src.close()
				delete(u.sources, src.path)
			}
			delete(u.sessions, k)
		}
	}
}

// read reads what src's file (and, for Claude Code, its subagents' files)
// gained.
func (u *Usage) read(src *source, found *[]pending) {
	before := len(*found)
	emit := func(r Record) { *found = append(*found, pending{s: src.s, rec: r}) }
	line := func(b []byte) { src.format.line(b, emit) }
	if _, err := src.tail.poll(pollBudget, line, src.format.reset); err != nil {
		u.o.Logf("paneflow: usage: %s: %v", src.path, err)
	}
	if src.subDir == "" {
		return
	}
	// New subagents are looked for when the session's transcript grew
	// (a subagent starts with a line there) or every subagentScan; the
	// ones found are polled like the transcript.
	now := u.clock.Now()
	if n := len(*found); n > before || now.Sub(src.scanned) >= subagentScan {
		src.scanned = now
		if entries, err := os.ReadDir(src.subDir); err == nil {
			for _, e := range entries {
				p := filepath.Join(src.subDir, e.Name())
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") && src.subs[p] == nil {
					src.subs[p] = &source{path: p, s: src.s, tail: newTail(p, src.tail.since), format: formatFor("claude")}
				}
			}
		}
	}
	for _, sub := range src.subs {
		u.read(sub, found)
	}
}
