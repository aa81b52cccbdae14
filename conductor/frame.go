package conductor

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// The ai.* methods the conductor registers (spec conductor.md §3).
const (
	MethodSessionStart = proto.MethodAISessionStart
	MethodPromptSubmit = proto.MethodAIPromptSubmit
	MethodToolUse      = proto.MethodAIToolUse
	MethodNotification = proto.MethodAINotification
	MethodStop         = proto.MethodAIStop
	MethodExit         = proto.MethodAIExit
	MethodSessionEnd   = proto.MethodAISessionEnd
)

// methods lists the ai.* methods in lifecycle order.
var methods = proto.AIMethods[:]

// maxPID is the largest pid a frame may carry (spec limits.md).
const maxPID = proto.MaxPID

// frame is one decoded ai.* request: only what the state machine uses,
// validated and sanitized.
type frame struct {
	method         string
	workspaceID    uint64 // 0: not given
	surfaceID      uint64 // 0: not given
	pid            int    // 0: not given
	tool           string // "": not given
	toolName       string // ai.tool_use
	message        string // ai.notification
	prompt         string // ai.prompt_submit
	lastResult     string // ai.stop
	transcriptPath string // the agent's session record, absolute and cleaned; "" when not given
	sessionID      string // the agent's own session id; "" when not given
	exitCode       int    // ai.exit
	// unhooked is set by an ai.session_start with "hooked": false: the
	// launch shim started an agent whose hooks cannot run (reason says
	// why, for the user).
	unhooked bool
	reason   string
}

// decodeFrame decodes and validates the params of method. Every problem is
// a -32602 error naming the field: a field of the wrong type, a pid outside
// 1..2147483647, a tool that is not 1–64 of [A-Za-z0-9-], hook_payload not
// an object, ai.exit without an exit_code that fits 32 bits. Text fields
// are sanitized and cut to their limits; blank ones count as absent.
func decodeFrame(method string, params json.RawMessage) (frame, error) {
	f := frame{method: method}
	var w proto.AIFrameParams
	if err := proto.DecodeParams(params, &w); err != nil {
		return f, err
	}
	hp, err := decodePayload(w.HookPayload)
	if err != nil {
		return f, err
	}
	if w.WorkspaceID != nil {
		f.workspaceID = *w.WorkspaceID
	}
	if w.SurfaceID != nil {
		f.surfaceID = *w.SurfaceID
	} else if id, ok := hp.uint("surface_id"); ok {
		f.surfaceID = id
	}
	if w.PID != nil {
		if *w.PID < 1 || *w.PID > maxPID {
			return f, ipc.InvalidParams("invalid params: pid must be 1 to %d, got %d", maxPID, *w.PID)
		}
		f.pid = int(*w.PID)
	}
	tool, hasTool := "", false
	if w.Tool != nil {
		tool, hasTool = *w.Tool, true
	} else if t, ok := hp.str("tool"); ok {
		tool, hasTool = t, true
	}
	if hasTool {
		if !proto.ValidTool(tool) {
			return f, ipc.InvalidParams("invalid params: tool must be 1 to 64 of A-Z a-z 0-9 -, got %q", truncate(tool, 80))
		}
		f.tool = tool
	}
	if tp := firstText(hp, w.TranscriptPath, "transcript_path"); len(tp) <= maxPathBytes && filepath.IsAbs(tp) && !strings.ContainsRune(tp, 0) {
		f.transcriptPath = filepath.Clean(tp)
	}
	sid := string(w.SessionID)
	f.sessionID = sanitize(firstText(hp, &sid, "session_id"), maxSessionID, true)
	switch method {
	case MethodSessionStart:
		if w.Hooked != nil && !*w.Hooked {
			f.unhooked = true
			if w.Reason != nil {
				f.reason = sanitize(*w.Reason, MaxReason, false)
			}
		}
	case MethodToolUse:
		f.toolName = sanitize(firstText(hp, w.ToolName, "tool_name"), MaxActiveToolName, true)
	case MethodNotification:
		f.message = sanitize(firstText(hp, w.Message, "message"), MaxMessage, false)
	case MethodPromptSubmit:
		f.prompt = sanitize(firstText(hp, w.Prompt, "prompt"), MaxPrompt, false)
	case MethodStop:
		for _, top := range []*string{w.LastResult, w.Summary, w.Result} {
			if top != nil {
				if f.lastResult = sanitize(*top, MaxLastResult, false); f.lastResult != "" {
					break
				}
			}
		}
		for _, key := range []string{"last_result", "summary", "result"} {
			if f.lastResult != "" {
				break
			}
			s, _ := hp.str(key)
			f.lastResult = sanitize(s, MaxLastResult, false)
		}
	case MethodExit:
		code, ok := int64(0), false
		if w.ExitCode != nil {
			code, ok = *w.ExitCode, true
		} else if c, found := hp.int("exit_code"); found {
			code, ok = c, true
		}
		if !ok {
			return f, ipc.InvalidParams("invalid params: ai.exit needs exit_code")
		}
		if code < -1<<31 || code > 1<<31-1 {
			return f, ipc.InvalidParams("invalid params: exit_code %d does not fit 32 bits", code)
		}
		f.exitCode = int(code)
	}
	return f, nil
}

// payload is a decoded hook_payload; its fields are read leniently (a
// field of an unexpected type counts as absent), since it is the agent's
// own data.
type payload map[string]json.RawMessage

// decodePayload decodes hook_payload: absent or null is empty, an object
// is read, anything else is -32602.
func decodePayload(raw json.RawMessage) (payload, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var p payload
	if raw[0] != '{' || json.Unmarshal(raw, &p) != nil {
		return nil, ipc.InvalidParams("invalid params: hook_payload must be an object")
	}
	return p, nil
}

// str returns the string field key.
func (p payload) str(key string) (string, bool) {
	var s string
	if raw, ok := p[key]; !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// uint returns the unsigned integer field key.
func (p payload) uint(key string) (uint64, bool) {
	var n uint64
	if raw, ok := p[key]; !ok || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// int returns the integer field key.
func (p payload) int(key string) (int64, bool) {
	var n int64
	if raw, ok := p[key]; !ok || json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// firstText returns *top when it is not blank, else the payload's string
// field key (when key is not "").
func firstText(hp payload, top *string, key string) string {
	if top != nil && strings.TrimSpace(*top) != "" {
		return *top
	}
	if key == "" {
		return ""
	}
	s, _ := hp.str(key)
	return s
}

// truncate cuts s to at most n bytes at a rune boundary, for messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xc0 != 0x80 }
