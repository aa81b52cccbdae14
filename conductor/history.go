package conductor

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// turnLog is a pane's turns, oldest first, at most proto.AIHistoryMaxTurns
// (the oldest dropped). It is guarded by the conductor's lock.
type turnLog struct {
	turns []turnRec
}

// turnRec is one turn as the frames told it.
type turnRec struct {
	n            uint64
	tool         string
	start, end   time.Time // end zero while running
	tools        []string
	result, how  string
	prompt       string
	sessionID    uint64 // the session (session.id) the turn is of
	endedByFrame bool
}

// noteTurnLocked records what frame f did to session s in its pane's log:
// a turn started (started; with its prompt, when the hook gave it), a
// tool ran, the turn ended. It runs after the frame changed s.
func (c *Conductor) noteTurnLocked(s *session, f frame, started bool, now time.Time) {
	method, toolName, result := f.method, f.toolName, f.lastResult
	if s.surface == 0 {
		return
	}
	if c.history == nil {
		c.history = map[uint64]*turnLog{}
	}
	log := c.history[s.surface]
	if started {
		if log == nil {
			log = &turnLog{}
			c.history[s.surface] = log
		}
		if cur := log.current(s.id); cur != nil {
			cur.end, cur.how = now, "superseded"
		}
		log.turns = append(log.turns, turnRec{n: s.turn, tool: s.tool, start: now, sessionID: s.id})
		if len(log.turns) > proto.AIHistoryMaxTurns {
			log.turns = slices.Delete(log.turns, 0, len(log.turns)-proto.AIHistoryMaxTurns)
		}
	}
	if log == nil {
		return
	}
	cur := log.current(s.id)
	if cur == nil {
		return
	}
	switch method {
	case MethodPromptSubmit:
		if f.prompt != "" {
			cur.prompt = f.prompt
		}
	case MethodToolUse:
		if toolName != "" && !slices.Contains(cur.tools, toolName) {
			cur.tools = append(cur.tools, toolName)
		}
	case MethodStop:
		cur.end, cur.how, cur.result = now, "stop", result
	case MethodExit:
		cur.end, cur.how = now, "exit"
	case MethodSessionEnd:
		cur.end, cur.how = now, "session_end"
	}
}

// current returns the running turn of session id, or nil.
func (l *turnLog) current(id uint64) *turnRec {
	for i := len(l.turns) - 1; i >= 0; i-- {
		if t := &l.turns[i]; t.sessionID == id {
			if t.end.IsZero() {
				return t
			}
			return nil
		}
	}
	return nil
}

// History returns the turns of the agents in pane surfaceID, oldest
// first (none for a pane no agent reported turns in).
func (c *Conductor) History(surfaceID uint64) proto.AIHistoryResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := proto.AIHistoryResult{SurfaceID: surfaceID, Turns: []proto.AITurn{}}
	log := c.history[surfaceID]
	if log == nil {
		return res
	}
	for _, t := range log.turns {
		w := proto.AITurn{Turn: t.n, Tool: t.tool, StartedAt: t.start.UTC().Format(time.RFC3339Nano),
			Prompt: t.prompt, Tools: append([]string{}, t.tools...), Result: t.result, End: t.how}
		if !t.end.IsZero() {
			end := t.end.UTC().Format(time.RFC3339Nano)
			d := t.end.Sub(t.start).Milliseconds()
			w.EndedAt, w.DurationMS = &end, &d
		}
		res.Turns = append(res.Turns, w)
	}
	return res
}

// aiHistory answers ai.history.
func (c *Conductor) aiHistory(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.AIHistoryParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.SurfaceID == 0 {
		return nil, ipc.InvalidParams("invalid params: surface_id is required")
	}
	return c.History(p.SurfaceID), nil
}
