package proto

// SurfaceSendTextParams are surface.send_text's params (behind the
// scripting gate).
type SurfaceSendTextParams struct {
	// SurfaceID is the pane (nil: the active workspace's first pane).
	SurfaceID *uint64 `json:"surface_id,omitempty"`
	// Text is typed as given (at most 64 KiB); empty only with Submit.
	Text string `json:"text"`
	// Submit presses Enter after the text (the server decides how: see
	// the result's submit_mode).
	Submit bool `json:"submit"`
	// Paste forces a bracketed paste on (true) or off (false); nil lets
	// the server decide (a submitted text for an agent or a program that
	// asked for bracketed paste is pasted).
	Paste *bool `json:"paste,omitempty"`
	// InputWaitMS bounds how long a submitted text for an agent pane
	// waits for the agent to read its input (nil: 3 s; 0: no wait; at
	// most 5 min); the client's timeout must allow for it.
	InputWaitMS *int64 `json:"input_wait_ms,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceSendTextParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uintPtr("surface_id", p.SurfaceID)
	o.str("text", p.Text)
	o.boolean("submit", p.Submit)
	o.boolPtr("paste", p.Paste)
	o.int64Ptr("input_wait_ms", p.InputWaitMS)
	return o.close()
}

// Submit modes of [SurfaceSendTextResult]: how the Enter of a submitted
// text went in.
const (
	// SubmitInlineCR: the CR right after the text, as one write.
	SubmitInlineCR = "inline_cr"
	// SubmitDeferredPasteCR: a bracketed paste, then the Enter after the
	// paste delay, the echo and a rest of the output.
	SubmitDeferredPasteCR = "deferred_paste_cr"
	// SubmitDeferredTypedCR: the text typed without control characters
	// (line breaks as LF), then the deferred Enter (the Gemini CLI).
	SubmitDeferredTypedCR = "deferred_typed_cr"
	// SubmitDeferredCR: no text, and the Enter once the program's output
	// rested (a bare submit to the Gemini CLI, which can take an Enter
	// that comes while it still handles the keys before it as a stale
	// one).
	SubmitDeferredCR = "deferred_cr"
)

// SurfaceSendTextResult is surface.send_text's result.
type SurfaceSendTextResult struct {
	Sent      bool `json:"sent"`
	Length    int  `json:"length"`
	Submitted bool `json:"submitted"`
	Paste     bool `json:"paste"`
	// SubmitMode is one of the Submit* modes for a submit, else nil.
	SubmitMode  *string `json:"submit_mode"`
	AgentTarget bool    `json:"agent_target"`
	// AgentTool is the known agent running in the pane's foreground.
	AgentTool              *string `json:"agent_tool"`
	TerminalBracketedPaste bool    `json:"terminal_bracketed_paste"`
	// TerminalKittyKeyboard is the kitty keyboard protocol flags the
	// program switched on (0 = legacy keys). Agent TUIs that turn it on
	// (Gemini CLI) trust a bracketed paste, so the Enter after it always
	// submits.
	TerminalKittyKeyboard uint8 `json:"terminal_kitty_keyboard"`
	// InputReady reports whether the pane was ready for the text when it
	// was typed: false after a submit means the agent had not read its
	// input within input_wait_ms and the text went out anyway, which a
	// caller warns about.
	InputReady bool `json:"input_ready"`
	// OutputGeneration is the pane's output counter (surface.status's
	// output_generation) just before the text was typed: what a caller
	// confirming that the agent reacted compares with, since a wait for
	// its input may have let it print meanwhile.
	OutputGeneration uint64 `json:"output_generation"`
}

// SurfaceSendKeystrokeParams are surface.send_keystroke's params (behind
// the scripting gate): one named key with modifiers, e.g. "ctrl-c".
type SurfaceSendKeystrokeParams struct {
	// SurfaceID is the pane (nil: the active workspace's first pane).
	SurfaceID *uint64 `json:"surface_id,omitempty"`
	Keystroke string  `json:"keystroke"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceSendKeystrokeParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uintPtr("surface_id", p.SurfaceID)
	o.str("keystroke", p.Keystroke)
	return o.close()
}

// SentResult is surface.send_keystroke's result.
type SentResult struct {
	Sent bool `json:"sent"`
}

// Gate messages: the -32601 of a closed scripting gate (spec ipc.md §4).
const (
	MsgSendTextGate      = "surface.send_text disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"
	MsgSendKeystrokeGate = "surface.send_keystroke disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"
	MsgInterruptGate     = "surface.interrupt disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"
	// MsgScreenWriteGate is the -32601 of screen.input, screen.resize,
	// screen.reset and screen.clear_scrollback from an attachment made
	// inside a pane (AttachedFrame.ReadOnly) while the gate is closed.
	MsgScreenWriteGate = "screen writes from inside a pane are disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable"
)

// SurfaceInterruptParams are surface.interrupt's params.
type SurfaceInterruptParams struct {
	// SurfaceID is the pane (nil: the active workspace's first pane).
	SurfaceID *uint64 `json:"surface_id,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceInterruptParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uintPtr("surface_id", p.SurfaceID)
	return o.close()
}

// SurfaceInterruptResult is surface.interrupt's result: the keys pressed
// ([InterruptKeys] names) for the pane's agent Tool ("" when none is
// known), in order.
type SurfaceInterruptResult struct {
	Sent bool     `json:"sent"`
	Tool string   `json:"tool"`
	Keys []string `json:"pressed"`
}

// InterruptKeys are the keys (send_keystroke names) that stop an agent's
// turn and leave it at its prompt: Escape in the TUIs of Claude Code,
// Codex and Gemini CLI; opencode's TUI asks for a second Escape; a
// program that does not read keys as a TUI (interactive false: it has
// not turned bracketed paste on, as a print mode such as `claude -p`,
// `codex exec` or `opencode run`), or any other program, gets Ctrl+C,
// which its terminal turns into SIGINT. surface.interrupt and a budget's
// stop press them.
func InterruptKeys(tool string, interactive bool) []string {
	switch {
	case !interactive:
		return []string{"ctrl-c"}
	case tool == "opencode":
		return []string{"escape", "escape"}
	case tool == "claude", tool == "codex", tool == "gemini":
		return []string{"escape"}
	}
	return []string{"ctrl-c"}
}
