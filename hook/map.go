package hook

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The ai.* methods Map produces (spec conductor.md §3). The server accepts
// them as notifications: it runs them and sends no reply.
const (
	MethodSessionStart = "ai.session_start"
	MethodPromptSubmit = "ai.prompt_submit"
	MethodToolUse      = "ai.tool_use"
	MethodNotification = "ai.notification"
	MethodStop         = "ai.stop"
	MethodExit         = "ai.exit"
	MethodSessionEnd   = "ai.session_end"
)

// The environment the hook binary reads. Paneflow sets the first three in
// every pane; the launch shim sets PANEFLOW_AI_TOOL and PANEFLOW_AI_PID for
// the agent it starts and PANEFLOW_AI_EXIT_CODE for the Exit event.
const (
	EnvSocketPath  = "PANEFLOW_SOCKET_PATH"  // absolute socket path (pipe name on Windows); absent: do nothing
	EnvSurfaceID   = "PANEFLOW_SURFACE_ID"   // the pane, a decimal id > 0
	EnvWorkspaceID = "PANEFLOW_WORKSPACE_ID" // the pane's workspace, a decimal id > 0
	EnvTool        = "PANEFLOW_AI_TOOL"      // the agent's binary name, 1–64 of [A-Za-z0-9-]
	EnvPID         = "PANEFLOW_AI_PID"       // the session key: the shim's pid, 1–2147483647
	EnvExitCode    = "PANEFLOW_AI_EXIT_CODE" // the agent's exit code (a 32-bit integer), for Exit
	EnvLog         = "PANEFLOW_HOOK_LOG"     // a file the hook binary appends diagnostics to
)

// Limits of what Map copies into a frame (spec limits.md, "Agent sessions").
// Lengths count runes; longer text is cut at a rune boundary.
const (
	// MaxStdin is how much of stdin the hook binary reads (16 MiB). Map
	// itself accepts any length, and salvages the fields that precede a cut.
	MaxStdin = 16 << 20

	MaxToolName   = 128  // tool_name (the server's active_tool_name)
	MaxMessage    = 512  // message of ai.notification
	MaxLastResult = 2048 // last_result of ai.stop
	MaxPrompt     = 1024 // prompt of ai.prompt_submit
	MaxSessionID  = 128  // session_id
	MaxPath       = 1024 // transcript_path; a longer path is left out, not cut
	MaxToolID     = 64   // tool (the agent's binary name)
	MaxPID        = 1<<31 - 1
)

// MaxParamsBytes bounds the JSON encoding of the params Map returns, with
// every string at its limit and every rune escaped. It is far below the
// server's 256 KiB frame cap (ipc.MaxFrame).
const MaxParamsBytes = 32 << 10

// ClaudeEvents are the Claude Code hook events Paneflow installs (spec
// conductor.md §7), in the order they are written.
var ClaudeEvents = []string{"UserPromptSubmit", "Notification", "Stop", "PreToolUse", "PostToolUse"}

// OpencodeEvents are the events the launch shim's opencode plugin sends
// (shim.OpencodePlugin), in the order it names them.
var OpencodeEvents = []string{"chat.message", "tool.execute.before", "tool.execute.after", "session.idle", "permission.asked", "permission.updated"}

// CodexEvents are the Codex hook events the launch shim installs, each
// under the same name here. Interrupt is the only event Codex (0.169.0)
// fires when the user ends a turn, a denied permission prompt included:
// without it the pane kept waiting on the answered question.
var CodexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop", "Interrupt"}

// HTTPEvents are the events the server's http-hook endpoint (package
// hookhttp) takes: Claude Code's http hooks and the opencode plugin's
// posts.
var HTTPEvents = slices.Concat(ClaudeEvents, OpencodeEvents)

// kind is what an event means to the state machine.
type kind int

const (
	kindSessionStart kind = iota // ai.session_start; needs a pid
	kindPrompt                   // ai.prompt_submit
	kindToolUse                  // ai.tool_use with tool_name
	kindNotification             // ai.notification, only for questions and permission prompts
	kindPermission               // ai.notification built from a permission request
	kindStop                     // ai.stop with last_result, else the transcript_path to read it from
	kindCodexNotify              // ai.stop, for Codex notify's agent-turn-complete only
	kindInterrupt                // ai.stop without a result: the user ended the turn
	kindExit                     // ai.exit with exit_code; no payload
	kindSessionEnd               // ai.session_end; no payload
)

// eventSpec describes one event name the hook binary is invoked with.
type eventSpec struct {
	kind kind
	tool string // the agent the name implies, or "" when several use it
}

// events maps the event argument to its meaning. The canonical names are
// Claude Code's, which the installed configs of Claude, Codex and Gemini all
// use (spec conductor.md §5, §6.1); Gemini's and opencode's own names are
// accepted too, so a hand-written config works.
//
// SubagentStop is deliberately absent (the original mapped it to ai.stop):
// a subagent finishing says nothing about the main agent, which goes on
// thinking, and reporting "finished" would fire a wrong notification.
var events = map[string]eventSpec{
	"SessionStart":       {kind: kindSessionStart},
	"UserPromptSubmit":   {kind: kindPrompt},
	"PreToolUse":         {kind: kindToolUse},
	"PostToolUse":        {kind: kindToolUse},
	"PostToolUseFailure": {kind: kindToolUse},
	"Notification":       {kind: kindNotification},
	"PermissionRequest":  {kind: kindPermission},
	"Stop":               {kind: kindStop},
	"Exit":               {kind: kindExit},
	"SessionEnd":         {kind: kindSessionEnd},
	// Codex's Interrupt (0.169.0): the user ended the turn (denied a
	// permission prompt, or Esc while it worked); the only event Codex
	// fires then.
	"Interrupt": {kind: kindInterrupt},

	// Gemini CLI's names (docs/hooks/reference.md).
	"BeforeAgent": {kind: kindPrompt, tool: "gemini"},
	"AfterAgent":  {kind: kindStop, tool: "gemini"},
	"BeforeTool":  {kind: kindToolUse, tool: "gemini"},
	"AfterTool":   {kind: kindToolUse, tool: "gemini"},

	// Codex `notify = ["…/paneflow-ai-hook", "codex-notify"]`: the payload
	// is the last argument.
	"codex-notify": {kind: kindCodexNotify, tool: "codex"},

	// opencode bus events and plugin hooks, for a plugin that runs
	// `paneflow-ai-hook <event.type>` with the event JSON on stdin.
	"chat.message":        {kind: kindPrompt, tool: "opencode"},
	"tool.execute.before": {kind: kindToolUse, tool: "opencode"},
	"tool.execute.after":  {kind: kindToolUse, tool: "opencode"},
	"session.idle":        {kind: kindStop, tool: "opencode"},
	"permission.asked":    {kind: kindPermission, tool: "opencode"},
	"permission.updated":  {kind: kindPermission, tool: "opencode"},
}

// geminiEvents are Gemini's own hook_event_name values: a payload carrying
// one comes from Gemini even when the command line says "Stop".
var geminiEvents = map[string]bool{
	"BeforeAgent": true, "AfterAgent": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true, "PreCompress": true,
}

// notificationTypes are the Notification subtypes that mean "the agent waits
// for the user": Claude's permission prompt and elicitation dialog, and
// Gemini's tool permission. Idle reminders, auth banners and a missing type
// are dropped (spec conductor.md §5).
var notificationTypes = map[string]bool{
	"permission_prompt":  true,
	"elicitation_dialog": true,
	"ToolPermission":     true,
}

// ReadsStdin reports whether the hook binary should read stdin for this
// invocation: not for Exit and SessionEnd (the shim runs them with no
// payload), not for unknown events, and not when the payload is on the
// command line (Codex notify), where stdin may be a terminal that never
// ends.
func ReadsStdin(event string, argv []string) bool {
	if _, ok := argvPayload(event, argv); ok {
		return false
	}
	spec, ok := events[event]
	return ok && spec.kind != kindExit && spec.kind != kindSessionEnd
}

// argvPayload returns the JSON object given on the command line: the last
// argument, or the event argument itself when Codex runs a bare
// `notify = ["…/paneflow-ai-hook"]`.
func argvPayload(event string, argv []string) (string, bool) {
	last := event
	if len(argv) > 0 {
		last = argv[len(argv)-1]
	}
	if strings.HasPrefix(strings.TrimLeft(last, " \t\r\n"), "{") {
		return last, true
	}
	return "", false
}

// invocation returns the event and the payload one hook invocation
// stands for: the payload from the command line when argvPayload finds
// one there (the event is then "codex-notify" for a bare Codex notify
// program, which gets no event argument), else stdin.
func invocation(event string, argv []string, stdin []byte) (string, []byte) {
	s, ok := argvPayload(event, argv)
	if !ok {
		return event, stdin
	}
	if len(argv) == 0 {
		event = "codex-notify"
	}
	return event, []byte(s)
}

// Map turns one hook invocation into the ai.* notification to send: event
// is the first argument of paneflow-ai-hook, argv the arguments after it,
// stdin the payload the agent wrote (nil when not read, see [ReadsStdin])
// and env looks up the environment (os.Getenv). ok is false when there is
// nothing to send: an unknown event, a payload that is neither blank nor a
// JSON object, a notification that is not a question, a SessionStart
// without a pid, an Exit without an exit code, or a process outside any
// Paneflow pane (no valid PANEFLOW_SURFACE_ID or PANEFLOW_WORKSPACE_ID).
//
// params holds only the fields the server reads, never the payload itself:
// tool, surface_id, workspace_id, pid, session_id, transcript_path (the
// agent's session record, absolute, when the payload names one: the server
// reads turn summaries and token usage from it) and, per method,
// prompt, tool_name, message and notification_type, last_result, exit_code. Its JSON encoding is at most
// [MaxParamsBytes] whatever the input. The tool is PANEFLOW_AI_TOOL when
// valid, else inferred from the event and payload (Gemini's event names,
// Codex's turn_id and notify keys, opencode's events), else "claude".
func Map(event string, argv []string, stdin []byte, env func(string) string) (method string, params map[string]any, ok bool) {
	event, data := invocation(event, argv, stdin)
	spec, ok := events[event]
	if !ok {
		return "", nil, false
	}
	params = map[string]any{}
	if id, ok := envUint(env, EnvSurfaceID); ok && id > 0 {
		params["surface_id"] = id
	}
	if id, ok := envUint(env, EnvWorkspaceID); ok && id > 0 {
		params["workspace_id"] = id
	}
	if len(params) == 0 {
		return "", nil, false // not in a Paneflow pane
	}

	p := payload{}
	if spec.kind != kindExit && spec.kind != kindSessionEnd {
		if p, ok = parsePayload(data); !ok {
			return "", nil, false
		}
	}
	tool := env(EnvTool)
	if !validTool(tool) {
		tool = inferTool(spec, p)
	}
	params["tool"] = tool
	if pid, ok := envUint(env, EnvPID); ok && pid >= 1 && pid <= MaxPID {
		params["pid"] = int(pid)
	} else if pid, ok := p.uint("pid"); ok && pid >= 1 && pid <= MaxPID {
		params["pid"] = int(pid)
	}
	if id := clean(sessionID(p), MaxSessionID); id != "" {
		params["session_id"] = id
	}
	// The agent's own record of the session, on every frame that has it:
	// the server reads the turn's summary (ai.stop without last_result)
	// and the tokens used from it.
	if tp := p.str("transcript_path"); isAbs(tp) && utf8.ValidString(tp) && utf8.RuneCountInString(tp) <= MaxPath {
		params["transcript_path"] = tp
	}

	switch spec.kind {
	case kindSessionStart:
		if _, ok := params["pid"]; !ok {
			return "", nil, false
		}
		return MethodSessionStart, params, true
	case kindPrompt:
		if pr := clean(p.str("prompt"), MaxPrompt); pr != "" {
			params["prompt"] = pr
		}
		return MethodPromptSubmit, params, true
	case kindToolUse:
		if name := clean(p.firstStr("tool_name", "tool"), MaxToolName); name != "" {
			params["tool_name"] = name
		}
		return MethodToolUse, params, true
	case kindNotification:
		nt := p.str("notification_type")
		if !notificationTypes[nt] {
			return "", nil, false
		}
		if nt == "ToolPermission" {
			nt = "permission_prompt" // Gemini's name for the same question
		}
		params["notification_type"] = nt
		if msg := clean(p.firstStr("message", "title"), MaxMessage); msg != "" {
			params["message"] = msg
		}
		return MethodNotification, params, true
	case kindPermission:
		params["notification_type"] = "permission_prompt"
		if msg := clean(permissionText(spec, p), MaxMessage); msg != "" {
			params["message"] = msg
		}
		return MethodNotification, params, true
	case kindCodexNotify:
		if p.str("type") != "agent-turn-complete" {
			return "", nil, false
		}
		stopFields(p, params)
		return MethodStop, params, true
	case kindStop:
		stopFields(p, params)
		return MethodStop, params, true
	case kindInterrupt:
		// The turn ended with no answer: no last_result, and no
		// transcript to read one from (its last answer is an older turn's).
		return MethodStop, params, true
	case kindExit:
		code, err := strconv.ParseInt(strings.TrimSpace(env(EnvExitCode)), 10, 32)
		if err != nil {
			return "", nil, false
		}
		params["exit_code"] = int(code)
		return MethodExit, params, true
	case kindSessionEnd:
		return MethodSessionEnd, params, true
	}
	return "", nil, false
}

// stopFields adds the turn's summary to an ai.stop: the first non-blank of
// the spec's top-level summaries, Claude's and Codex's last assistant
// message, Gemini's prompt_response and Codex notify's kebab-case key
// (without one, the server reads it from the transcript path Map added).
func stopFields(p payload, params map[string]any) {
	if r := clean(p.firstStr("last_result", "summary", "result", "last_assistant_message",
		"prompt_response", "last-assistant-message"), MaxLastResult); r != "" {
		params["last_result"] = r
	}
}

// permissionText is the question of a permission request: what the agent
// wants to run or touch. Claude and Codex send tool_name and tool_input;
// opencode's permission event has a title in its properties.
func permissionText(spec eventSpec, p payload) string {
	if spec.tool == "opencode" {
		// title in older versions; 1.18.33 sends the permission ("bash")
		// and the patterns it asks for (the command).
		var props struct {
			Title      string   `json:"title"`
			Permission string   `json:"permission"`
			Patterns   []string `json:"patterns"`
		}
		if !p.object("properties", &props) {
			return "OpenCode needs permission"
		}
		if t := strings.TrimSpace(props.Title); t != "" {
			return "OpenCode needs permission: " + t
		}
		what := strings.TrimSpace(props.Permission)
		if pats := strings.TrimSpace(strings.Join(props.Patterns, ", ")); pats != "" {
			what = strings.TrimSpace(what + " " + pats)
		}
		if what != "" {
			return "OpenCode needs permission: " + what
		}
		return "OpenCode needs permission"
	}
	tool := strings.TrimSpace(p.str("tool_name"))
	var in struct {
		Command     string `json:"command"`
		FilePath    string `json:"file_path"`
		URL         string `json:"url"`
		Description string `json:"description"`
	}
	p.object("tool_input", &in)
	detail := in.Command
	for _, s := range []string{in.FilePath, in.URL, in.Description} {
		if strings.TrimSpace(detail) == "" {
			detail = s
		}
	}
	detail = strings.TrimSpace(detail)
	switch {
	case tool != "" && detail != "":
		return tool + " needs permission: " + detail
	case tool != "":
		return tool + " needs permission"
	case detail != "":
		return "Permission requested: " + detail
	}
	return "Permission requested"
}

// sessionID is the agent's session (Claude, Codex hooks, Gemini), Codex
// notify's thread, or opencode's session.
func sessionID(p payload) string {
	if id := p.firstStr("session_id", "thread-id", "sessionID"); id != "" {
		return id
	}
	var props struct {
		SessionID string `json:"sessionID"`
	}
	p.object("properties", &props)
	return props.SessionID
}

// inferTool names the agent when the shim did not: from the event name,
// then from payload traits, else Claude Code (whose persistent hooks run
// without the shim).
func inferTool(spec eventSpec, p payload) string {
	switch {
	case spec.tool != "":
		return spec.tool
	case geminiEvents[p.str("hook_event_name")] || p.str("notification_type") == "ToolPermission":
		return "gemini"
	case p["turn_id"] != nil || p["thread-id"] != nil || p.str("type") == "agent-turn-complete":
		return "codex"
	}
	return "claude"
}

// validTool reports whether s is an acceptable tool id: 1 to MaxToolID
// characters of [A-Za-z0-9-].
func validTool(s string) bool {
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

// envUint parses the decimal value of an environment variable.
func envUint(env func(string) string, key string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(env(key)), 10, 64)
	return n, err == nil
}

// clean makes s fit a frame: invalid UTF-8 replaced, surrounding space
// trimmed, cut to at most max runes.
func clean(s string, max int) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= max {
		return s // max runes take at least max bytes
	}
	n := 0
	for i := range s {
		if n == max {
			return strings.TrimSpace(s[:i])
		}
		n++
	}
	return s
}

// isAbs reports whether p is an absolute path on any system we run on: a
// Unix path, a Windows drive path or a UNC path. The hook does not know
// where the server runs, so it does not use the local rules.
func isAbs(p string) bool {
	switch {
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, `\\`):
		return true
	case len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'):
		c := p[0] | 0x20
		return 'a' <= c && c <= 'z'
	}
	return false
}

// Answer returns the agent's whole final answer carried by a turn-end
// invocation (the events Map turns into ai.stop), uncut, from the same
// payload keys as last_result; ok is false for other events and when the
// payload holds no answer (only a transcript path, or nothing). The hook
// binary keeps it as the pane's artifact (package internal/artifact).
func Answer(event string, argv []string, stdin []byte) (string, bool) {
	event, data := invocation(event, argv, stdin)
	spec, ok := events[event]
	if !ok || (spec.kind != kindStop && spec.kind != kindCodexNotify) {
		return "", false
	}
	p, ok := parsePayload(data)
	if !ok || (spec.kind == kindCodexNotify && p.str("type") != "agent-turn-complete") {
		return "", false
	}
	s := p.firstStr("last_result", "summary", "result", "last_assistant_message", "prompt_response", "last-assistant-message")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimSpace(s)
	return s, s != ""
}
