package proto

import "encoding/json"

// State is an agent's wire state (spec conductor.md §2, §4).
type State string

// The wire states. StateIdle reports a pane with no agent session (a
// hooked session that has not had its first prompt yet is idle too).
// StateUnknownRunning is an agent that sends no hooks: one the process
// scan found, or one whose launch shim reported that its hooks cannot run.
const (
	StateIdle            State = "idle"
	StateThinking        State = "thinking"
	StateWaitingForInput State = "waiting_for_input"
	StateFinished        State = "finished"
	StateErrored         State = "errored"
	StateStalled         State = "stalled"
	StateUnknownRunning  State = "unknown_running"
)

// Reasons an agent's state is not hooked ([AgentStatus].Reason): the
// process scan found it (ReasonNoHook), or its launch shim reported that
// its hooks cannot run (a reason of its own, e.g. "untrusted_folder: …").
const ReasonNoHook = "no_hook"

// Note is a string member the server does not read (an ai.* frame's
// session_id and notification_type, which the hook binary sends for
// diagnostics): decoding accepts any value (anything but a string is ""),
// so a client's mistake there is never an error.
type Note string

// UnmarshalJSON keeps a string, and makes anything else "".
func (n *Note) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		s = ""
	}
	*n = Note(s)
	return nil
}

// AIFrameParams are the params of the ai.* methods: one agent hook event,
// from the hook binary (flat members, as a notification) or the launch
// shim (ai.session_start and ai.exit, as requests). Members missing at the
// top level are read from HookPayload, the agent's own payload, which the
// original hook forwarded whole. The server validates and sanitizes them:
// pid 1..2147483647, tool 1–64 of [A-Za-z0-9-] ([ValidTool]), exit_code
// 32 bits and required by ai.exit; text is cut to its limit (MaxMessage
// and the others).
type AIFrameParams struct {
	WorkspaceID *uint64 `json:"workspace_id,omitempty"`
	SurfaceID   *uint64 `json:"surface_id,omitempty"`
	// PID is the session's key: the launch shim's pid.
	PID *int64 `json:"pid,omitempty"`
	// Tool is the agent's binary name (nil: "claude").
	Tool *string `json:"tool,omitempty"`
	// SessionID is the agent's own session id (the conductor passes it
	// on to the usage subsystem with the frame's event).
	SessionID Note `json:"session_id,omitempty"`
	// ToolName is ai.tool_use's running tool.
	ToolName *string `json:"tool_name,omitempty"`
	// NotificationType is what ai.notification's question is about (not
	// read by the server).
	NotificationType Note `json:"notification_type,omitempty"`
	// Message is ai.notification's question.
	Message *string `json:"message,omitempty"`
	// Prompt is ai.prompt_submit's prompt, as the user submitted it (for
	// the pane's timeline, ai.history).
	Prompt *string `json:"prompt,omitempty"`
	// LastResult, else Summary, else Result is ai.stop's summary of the
	// turn; without any, TranscriptPath is read for it.
	LastResult *string `json:"last_result,omitempty"`
	Summary    *string `json:"summary,omitempty"`
	Result     *string `json:"result,omitempty"`
	// TranscriptPath is the agent's record of its session (absolute), on
	// any frame whose payload named one: the usage subsystem reads the
	// tokens used from it, the conductor ai.stop's summary.
	TranscriptPath *string `json:"transcript_path,omitempty"`
	// ExitCode is ai.exit's (required there).
	ExitCode *int64 `json:"exit_code,omitempty"`
	// Hooked false (ai.session_start from the launch shim) says that the
	// agent's hooks cannot run, and Reason why.
	Hooked *bool   `json:"hooked,omitempty"`
	Reason *string `json:"reason,omitempty"`
	// HookPayload is the agent's payload, an object, read for what the
	// top level lacks (surface_id, tool, tool_name, message, prompt,
	// last_result, summary, result, transcript_path, exit_code).
	HookPayload json.RawMessage `json:"hook_payload,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p AIFrameParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uintPtr("workspace_id", p.WorkspaceID)
	o.uintPtr("surface_id", p.SurfaceID)
	o.int64Ptr("pid", p.PID)
	o.strPtr("tool", p.Tool)
	o.strOmit("session_id", string(p.SessionID))
	o.strPtr("tool_name", p.ToolName)
	o.strOmit("notification_type", string(p.NotificationType))
	o.strPtr("message", p.Message)
	o.strPtr("prompt", p.Prompt)
	o.strPtr("last_result", p.LastResult)
	o.strPtr("summary", p.Summary)
	o.strPtr("result", p.Result)
	o.strPtr("transcript_path", p.TranscriptPath)
	o.int64Ptr("exit_code", p.ExitCode)
	o.boolPtr("hooked", p.Hooked)
	o.strPtr("reason", p.Reason)
	o.rawOmit("hook_payload", p.HookPayload)
	return o.close()
}

// Limits of an ai.* frame's members (spec limits.md, "Agent sessions"):
// text is counted in runes and cut there, a longer transcript path is
// ignored.
const (
	MaxToolID         = 64   // tool (the agent's binary name)
	MaxActiveToolName = 128  // tool_name (active_tool_name)
	MaxMessage        = 512  // message (the waiting question)
	MaxLastResult     = 2048 // last_result (the turn's summary)
	MaxPrompt         = 1024 // prompt (what the user submitted)
	MaxReason         = 512  // reason (why an agent runs without hooks)
	MaxPID            = 1<<31 - 1
)

// ValidTool reports whether s is an acceptable tool id: 1 to
// [MaxToolID] characters of [A-Za-z0-9-].
func ValidTool(s string) bool {
	if s == "" || len(s) > MaxToolID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// AIAck is the result of an ai.* request sent with an id (notifications
// get no reply): the session's state after the frame, nil when no session
// remains (after ai.session_end), and its pane.
type AIAck struct {
	OK        bool    `json:"ok"`
	State     *State  `json:"state"`
	SurfaceID *uint64 `json:"surface_id"`
	// Cleared is set for ai.session_end: whether a session was removed
	// (an errored session is kept, so its crash stays visible).
	Cleared *bool `json:"cleared,omitempty"`
}

// HooksEndpointResult is the result of hooks.endpoint: where Claude Code's
// http hooks post (http://127.0.0.1:PORT/hook) and the secret they must
// send as "Authorization: Bearer TOKEN". The secret is the server's, made
// at random when the endpoint opened; it is as private as the socket.
type HooksEndpointResult struct {
	URL   string `json:"url"`
	Token string `json:"token"`
}

// MCPHookTool is the MCP bridge's unlisted tool that a Codex mcp_tool
// hook calls to report one lifecycle event (see mcp.HookTool); the
// launch shim names it in the hooks it gives Codex.
const MCPHookTool = "paneflow_hook_event"

// HooksReportParams are hooks.report's: one hook event of the agent in
// pane SurfaceID, as paneflow-ai-hook gets it (the event name, the JSON
// payload on stdin, the tool and session key from the environment). The
// server finds the pane's workspace itself.
type HooksReportParams struct {
	// Event is the hook event's name, one of hook.CodexEvents.
	Event string `json:"event"`
	// SurfaceID is the pane the agent runs in (> 0).
	SurfaceID uint64 `json:"surface_id"`
	// Tool is the agent's binary name (PANEFLOW_AI_TOOL); "" infers it.
	Tool string `json:"tool,omitempty"`
	// PID is the session key (PANEFLOW_AI_PID, the launch shim's pid);
	// 0 when unknown.
	PID int `json:"pid,omitempty"`
	// Payload is the event's JSON object (required: one missing is
	// refused as one that is not an object).
	Payload json.RawMessage `json:"payload,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p HooksReportParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("event", p.Event)
	o.uint("surface_id", p.SurfaceID)
	o.strOmit("tool", p.Tool)
	if p.PID != 0 {
		o.int("pid", int64(p.PID))
	}
	o.rawOmit("payload", p.Payload)
	return o.close()
}

// HooksReportResult is hooks.report's result: Sent is the ai.* method
// the event became, "" when it said nothing to report (as the hook binary
// then sends nothing).
type HooksReportResult struct {
	Sent string `json:"sent"`
}

// AgentStatus is surface.status's result for a pane with a known agent
// (spec conductor.md §4, with reason, pid and exit_code added), before the
// server adds the pane's [EnterMarks]. Absent values are nil and encode as
// null.
type AgentStatus struct {
	SurfaceID uint64 `json:"surface_id"`
	State     State  `json:"state"`
	// Hooked is true when the state comes from the agent's hook frames,
	// false for an agent only the process scan found (state
	// unknown_running, reason "no_hook") and for one whose launch shim
	// reported that its hooks cannot run (reason: why, and what to do,
	// e.g. "untrusted_folder: …"; the state is unknown_running while it
	// runs, then finished or errored by its exit code).
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	Tool           string  `json:"tool"`
	PID            *int    `json:"pid"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
	WaitingMS      *int64  `json:"waiting_ms"` // while waiting_for_input
	IdleMS         *int64  `json:"idle_ms"`    // since the session's last frame
	// OutputGeneration is the pane's terminal output counter.
	OutputGeneration uint64 `json:"output_generation"`
	// TurnSeq grows each time a hooked agent of the pane starts a turn by
	// its own hook (ai.prompt_submit, or a tool call waking an agent that
	// was not working); 0 if none did. It means something only compared
	// with an earlier value for the same pane: `paneflow send --submit`
	// confirms a turn start by it, not by output.
	TurnSeq uint64 `json:"turn_seq"`
}

// Detection modes of [FleetListResult].
const (
	DetectProcessTree = "process_tree"
	DetectHooksOnly   = "hooks_only"
)

// FleetListResult is fleet.list's result.
type FleetListResult struct {
	// Agents are the hooked sessions and the agents found only by the
	// process scan, sorted by workspace, agent display order, then pid.
	Agents []FleetRow `json:"agents"`
	// Detection says how agents without hooks are found: DetectProcessTree,
	// or DetectHooksOnly where the process table is not read (then such
	// agents are not listed at all); "" from a server without a
	// conductor.
	Detection string `json:"detection,omitempty"`
}

// FleetRow is one agent in fleet.list (spec conductor.md §4). Unlike the
// original, rows of agents without hooks carry their pane and pid, and
// exit_code is reported. Absent values are nil and encode as null. The
// team members are there only for a pane in an agent team, usage only
// where the server counts it.
type FleetRow struct {
	PID            *int    `json:"pid"`
	Tool           string  `json:"tool"`
	State          State   `json:"state"`
	Hooked         bool    `json:"hooked"`
	Reason         *string `json:"reason"`
	SurfaceID      *uint64 `json:"surface_id"`
	SurfaceName    *string `json:"surface_name"`
	Workspace      *int    `json:"workspace"`
	ActiveToolName *string `json:"active_tool_name"`
	Message        *string `json:"message"`
	LastResult     *string `json:"last_result"`
	ExitCode       *int    `json:"exit_code"`
	WaitingMS      *int64  `json:"waiting_ms"`
	IdleMS         *int64  `json:"idle_ms"`
	Team           string  `json:"team,omitempty"`
	TeamName       string  `json:"team_name,omitempty"`
	Teammate       string  `json:"teammate,omitempty"`
	// Usage is what the agent's session in its pane used (surface.status's
	// "usage"), when the server counts usage and knows the pane's.
	Usage *UsageStatus `json:"usage,omitempty"`
}
