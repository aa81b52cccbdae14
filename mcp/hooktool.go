package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneflow-go/paneflow/proto"
)

// HookTool is the tool a Codex hook of type mcp_tool calls to report one
// of the agent's lifecycle events (issue 25): the launch shim points
// Codex's hooks at it when the agent runs this bridge, so no hook process
// starts per event. It is not listed (tools/list never shows it, so no
// model is offered it) and reports only for the bridge's own pane
// ([Options.SelfSurface]); see [Bridge.hookEvent].
const HookTool = proto.MCPHookTool

// HookArgs are [HookTool]'s arguments, as the shim's hook config writes
// them (shim.CodexMCPOverrides): literal event, tool and pid, and the
// payload fields Codex interpolates from the hook's input. The pid is a
// string: Codex 0.169.0 hashes a TOML integer in a hook's input in a form
// we could not reproduce, and a hook whose hash does not match never runs.
type HookArgs struct {
	Event   string          `json:"event"`
	Tool    string          `json:"tool"`
	PID     string          `json:"pid"`
	Payload json.RawMessage `json:"payload"`
}

// hookTimeout bounds the report's socket call: the agent waits for the
// hook (Codex gives it 5 s), and the server answers a hook frame at once.
const hookTimeout = 2 * time.Second

// hookMiddleware answers tools/call of [HookTool], which is registered
// nowhere else: the SDK would refuse a tool it does not list.
func (b *Bridge) hookMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok && p.Name == HookTool {
				return b.hookEvent(ctx, p.Arguments), nil
			}
		}
		return next(ctx, method, req)
	}
}

// hookEvent forwards one hook event to the server's hooks.report for the
// bridge's own pane, which maps it as paneflow-ai-hook would. What it can
// do is what the agent's own hooks can: say what the agent in this pane
// is doing. It names no other pane (arguments carry none), sends no
// input, starts and closes nothing, so the bridge stays read-only over
// the panes. Like the hook binary it never fails the agent's hook: a
// report that could not be made is logged (the bridge's stderr, which
// the agent keeps) and answered as done.
func (b *Bridge) hookEvent(ctx context.Context, raw json.RawMessage) *sdk.CallToolResult {
	done := &sdk.CallToolResult{Content: []sdk.Content{}}
	if b.o.SelfSurface == 0 || b.o.Dial != nil {
		b.o.Logf("paneflow-mcp: %s: no pane of this host to report for; ignored", HookTool)
		return done
	}
	var a HookArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		b.o.Logf("paneflow-mcp: %s: %v", HookTool, err)
		return done
	}
	pid, _ := strconv.Atoi(a.PID)
	p := proto.HooksReportParams{Event: a.Event, SurfaceID: b.o.SelfSurface, Tool: a.Tool, PID: pid, Payload: a.Payload}
	if err := b.call(ctx, b.ipcClient(hookTimeout), proto.MethodHooksReport, p, nil); err != nil {
		b.o.Logf("paneflow-mcp: %s %s: %v", HookTool, a.Event, err)
	}
	return done
}
