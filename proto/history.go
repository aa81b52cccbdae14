package proto

import "time"

// This file holds ai.history: an agent pane's turns, from the hook frames
// the conductor accepted.

// AIHistoryParams are ai.history's params.
type AIHistoryParams struct {
	// SurfaceID is the pane (required).
	SurfaceID uint64 `json:"surface_id"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p AIHistoryParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uint("surface_id", p.SurfaceID)
	return o.close()
}

// AITurn is one turn of an agent in a pane: from a submitted prompt (or a
// tool call that woke an idle agent) to the frame that ended it.
type AITurn struct {
	// Turn numbers the turns of all agents, as surface.status does.
	Turn uint64 `json:"turn"`
	// Tool is the agent ("claude").
	Tool string `json:"tool"`
	// StartedAt is when the turn began (RFC 3339, the server's clock).
	StartedAt string `json:"started_at"`
	// EndedAt is when it ended (ai.stop, ai.exit, the session's end);
	// absent while it runs.
	EndedAt *string `json:"ended_at,omitempty"`
	// DurationMS is EndedAt − StartedAt in milliseconds; absent while it
	// runs.
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Prompt is what the user submitted to start the turn, when the
	// agent's hook said (ai.prompt_submit's prompt, cut to MaxPrompt
	// runes): user text, untrusted; absent otherwise.
	Prompt string `json:"prompt,omitempty"`
	// Tools are the tools the agent ran in the turn (ai.tool_use), each
	// once, in the order first used.
	Tools []string `json:"tools_used"`
	// Result is the turn's summary (ai.stop's last_result): agent output,
	// untrusted.
	Result string `json:"result,omitempty"`
	// End says how it ended: "stop", "exit", "session_end",
	// "superseded" (the next turn began without one of those), "" while
	// it runs.
	End string `json:"end,omitempty"`
}

// AIHistoryResult is ai.history's result: the pane's turns, oldest first
// (the newest AIHistoryMaxTurns).
type AIHistoryResult struct {
	SurfaceID uint64   `json:"surface_id"`
	Turns     []AITurn `json:"turns"`
}

// AIHistoryMaxTurns is how many turns the server keeps per pane.
const AIHistoryMaxTurns = 100

// TurnShownIn is the turn a screen first shown at shown (RFC 3339, as
// [HeldScreen.FirstShown]) was shown in or after: the newest of turns
// (oldest first) that had begun by then, since an agent draws its answer
// as its turn ends. ok is false when shown does not parse or precedes
// every turn.
func TurnShownIn(shown string, turns []AITurn) (turn AITurn, ok bool) {
	at, err := time.Parse(time.RFC3339Nano, shown)
	if err != nil {
		return AITurn{}, false
	}
	for i := len(turns) - 1; i >= 0; i-- {
		start, err := time.Parse(time.RFC3339Nano, turns[i].StartedAt)
		if err == nil && !at.Before(start) {
			return turns[i], true
		}
	}
	return AITurn{}, false
}
