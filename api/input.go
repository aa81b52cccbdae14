package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// sendTextMax is the largest send_text payload in bytes (spec §9).
const sendTextMax = 64 << 10

// inputTarget resolves the surface of send_text/send_keystroke: the given
// id, else the active workspace's first pane.
func (s *server) inputTarget(id *uint64, unknown, none string) (*workspace.Surface, error) {
	if id != nil {
		sf, ok := s.m.Surface(*id)
		if !ok {
			return nil, ipc.InvalidParams("%s", unknown)
		}
		return sf, nil
	}
	sf, ok := s.m.ActiveSurface()
	if !ok {
		return nil, ipc.InvalidParams("%s", none)
	}
	return sf, nil
}

// sendInput writes to a pane, mapping a pane whose program is gone to
// -32602.
func sendInput(sf *workspace.Surface, p []byte) error {
	return inputErr(sf, sf.Terminal().SendInput(p))
}

// sendInputNow is sendInput written from this goroutine when the pane's
// writer is idle (terminal.Terminal.SendInputNow): a window's keys.
func sendInputNow(sf *workspace.Surface, p []byte) error {
	return inputErr(sf, sf.Terminal().SendInputNow(p))
}

// inputErr maps an error of a pane's input: a pane whose program is gone
// is -32602.
func inputErr(sf *workspace.Surface, err error) error {
	if errors.Is(err, terminal.ErrClosed) {
		return ipc.InvalidParams("surface %d has exited", sf.ID())
	}
	return fail(err)
}

// sendTextRequest validates a send_text request: the gate, the params
// and the target pane. unrestricted reports that only ai_unrestricted
// opened the gate (the write is then logged).
func (s *server) sendTextRequest(params json.RawMessage) (p proto.SurfaceSendTextParams, sf *workspace.Surface, unrestricted bool, err error) {
	scripting := s.o.Scripting()
	unrestricted = !scripting && s.o.Unrestricted()
	if !scripting && !unrestricted {
		return p, nil, false, ipc.Errorf(ipc.CodeMethodNotFound, proto.MsgSendTextGate)
	}
	if err := proto.DecodeParams(params, &p); err != nil {
		return p, nil, false, err
	}
	if p.Text == "" && !p.Submit {
		return p, nil, false, ipc.InvalidParams("Missing 'text' parameter")
	}
	if len(p.Text) > sendTextMax {
		return p, nil, false, ipc.InvalidParams("Text exceeds 64 KiB limit")
	}
	if w := p.InputWaitMS; w != nil && (*w < 0 || *w > maxInputWait.Milliseconds()) {
		return p, nil, false, ipc.InvalidParams("input_wait_ms must be between 0 and %d", maxInputWait.Milliseconds())
	}
	sf, err = s.inputTarget(p.SurfaceID, "Surface not found", "No active terminal")
	return p, sf, unrestricted, err
}

// sendTextReady is send_text's [ipc.Before] hook, run outside the
// executor (no other mutation waits on it) and before the dispatch
// timeout starts: a submitted text for an agent pane is held until the
// agent reads its input (its TUI turned bracketed paste on, and for
// opencode the kitty keyboard protocol too: workspace.Surface.InputReady;
// text submitted before that is lost or taken apart, found with Claude
// Code 2.1.332 in a flow's new pane), at most input_wait_ms (agentInputWait
// when not given), then typed anyway; the result's input_ready says
// which. This is the one wait for that condition: our clients (the flow
// engine, paneflow send --submit, the MCP bridge) pass a longer
// input_wait_ms with a client timeout to match instead of waiting
// themselves.
func (s *server) sendTextReady(ctx context.Context, params json.RawMessage) error {
	p, sf, _, err := s.sendTextRequest(params)
	if err != nil {
		return err
	}
	limit := agentInputWait
	if p.InputWaitMS != nil {
		limit = time.Duration(*p.InputWaitMS) * time.Millisecond
	}
	if p.Submit && p.Text != "" && limit > 0 && sf.AgentTool() != "" {
		s.awaitInputReady(ctx, sf, limit)
	}
	return nil
}

// sendText types text into a pane (spec ipc.md §9). It runs in the
// executor, after sendTextReady.
func (s *server) sendText(_ context.Context, params json.RawMessage) (any, error) {
	p, sf, unrestricted, err := s.sendTextRequest(params)
	if err != nil {
		return nil, err
	}
	emu := sf.Terminal().Emulator()
	tool := sf.AgentTool()
	agent, _ := proto.AgentByBinary(tool)
	modes := emu.Modes()
	bracketed := modes.BracketedPaste
	paste := p.Submit && p.Text != "" && (tool != "" || bracketed) // nothing to paste in a bare submit
	typed := p.Paste == nil && p.Submit && agent.Submit == proto.SubmitTyped && typeableForGemini(p.Text)
	if typed {
		paste = false
	}
	if p.Paste != nil {
		paste = *p.Paste
	}
	res := proto.SurfaceSendTextResult{
		Sent: true, Length: len(p.Text), Submitted: p.Submit, Paste: paste,
		AgentTarget: tool != "", TerminalBracketedPaste: bracketed, TerminalKittyKeyboard: modes.KittyKeys,
		InputReady:       tool == "" || sf.InputReady(),
		OutputGeneration: emu.Generation(),
	}
	if tool != "" {
		res.AgentTool = &tool
	}
	if unrestricted {
		s.o.Logf("paneflow: ai_unrestricted: send_text to surface %d: %d bytes, submit=%t, paste=%t", sf.ID(), len(p.Text), p.Submit, paste)
	}
	if p.Text != "" {
		data := []byte(p.Text)
		switch {
		case typed:
			data = []byte(geminiTyped(p.Text))
		case paste && bracketed:
			data = bracketPaste(p.Text)
		}
		if err := sendInput(sf, data); err != nil {
			return nil, err
		}
	}
	if !p.Submit {
		return res, nil
	}
	mode := proto.SubmitInlineCR
	w := enterWait{gen: emu.Generation(), delay: s.o.PasteDelay}
	switch {
	case (paste || typed) && p.Text != "":
		mode = proto.SubmitDeferredPasteCR
		if typed {
			mode = proto.SubmitDeferredTypedCR
		}
		if cmd, ok := geminiSlashCommand(p.Text); ok && typed {
			w.ready = func(screen []string) bool { return geminiCompleted(screen, cmd) }
		}
	case p.Text == "" && p.Paste == nil && agent.Submit == proto.SubmitTyped:
		// A bare Enter for keys typed before it: only the output's rest.
		mode, w.delay, w.rest = proto.SubmitDeferredCR, 0, true
	default:
		if err := sendInput(sf, []byte{'\r'}); err != nil {
			return nil, err
		}
	}
	if mode != proto.SubmitInlineCR && !s.m.Go(func(stop <-chan struct{}) { deferredEnter(sf, w, stop) }) {
		return nil, ipc.Errorf(ipc.CodeBusy, "Paneflow is shutting down")
	}
	res.SubmitMode = &mode
	return res, nil
}

// enterWait is what a deferred Enter (deferredEnter) waits for.
type enterWait struct {
	delay time.Duration // first, whatever else
	gen   uint64        // the output generation before the text: its echo moves past it
	// rest: there is no echo to wait for (a bare submit), only the
	// output's rest.
	rest  bool
	ready func(screen []string) bool // when not nil, last: the screen holds this
}

// deferredEnter presses Enter after a paste: once w.delay has passed, the
// program echoed something since the paste (its output generation moved
// past w.gen; not waited for when w.rest), and its output then rested for
// pasteSettle; pasteEchoGrace after the delay at the latest. The rest
// matters: Gemini CLI takes an Enter that reaches it within 40 ms of a
// paste for a newline (its guard against pasted text submitting itself),
// measured when its event loop handles the two, so an Enter sent as soon
// as the echo showed left the prompt in its input box; a bare Enter right
// after keys it had echoed was once left in the box too (at load 40, Gemini
// CLI 0.61.0). When w.ready is not nil, the Enter then also waits until it
// holds for the screen's rows, completionWait at the latest. Nothing is
// sent if the pane closes or the manager stops first.
func deferredEnter(sf *workspace.Surface, w enterWait, stop <-chan struct{}) {
	t := time.NewTimer(w.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-sf.Closed():
		return
	case <-stop:
		return
	}
	emu := sf.Terminal().Emulator()
	deadline := time.Now().Add(pasteEchoGrace)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		g, ch := emu.Watch()
		echoed := w.rest || g != w.gen
		if echoed {
			left = min(left, pasteSettle)
		}
		t.Reset(left)
		select {
		case <-ch:
			continue // the echo, or more output: wait for it to rest
		case <-t.C:
		case <-sf.Closed():
			return
		case <-stop:
			return
		}
		if echoed {
			break // echoed, then quiet for pasteSettle
		}
	}
	if w.ready != nil {
		t.Reset(completionWait)
	wait:
		for {
			_, ch := emu.Watch()
			if w.ready(emu.ScreenLines()) {
				break
			}
			select {
			case <-ch:
			case <-t.C:
				break wait
			case <-sf.Closed():
				return
			case <-stop:
				return
			}
		}
	}
	_ = sf.Terminal().SendInput([]byte{'\r'}) // the pane may have exited meanwhile
}

// completionWait bounds how long the deferred Enter of a slash command
// typed into the Gemini CLI waits for its completion (geminiCompleted):
// at load 25 the row came 1.2 s after the keys.
const completionWait = 10 * time.Second

// geminiSlashCommand returns the command of a text that is one slash
// command without arguments ("/quit" → "quit").
func geminiSlashCommand(text string) (string, bool) {
	cmd, ok := strings.CutPrefix(text, "/")
	return cmd, ok && cmd != "" && !strings.ContainsFunc(cmd, unicode.IsSpace)
}

// geminiCompleted reports whether the Gemini CLI's completion rows on a
// screen are those of the slash command cmd as typed: a row "cmd   <its
// description>" whose label column is only as wide as cmd, so no longer
// command is listed with it. Gemini CLI 0.61 submits a slash command on
// Enter only once its completion found the typed text to be an exact
// command, which it records in the same render as the rows it completed
// for that text; until then Enter over completion rows completes the text
// instead of submitting it (the command stays in the box). Typed at once,
// "/quit" first shows no rows, then every command's (the completion of
// "/"), then "quit   Exit the cli": only the last is drawn after the exact
// match was recorded. A user presses Enter on that row; so does `send
// --submit`.
func geminiCompleted(screen []string, cmd string) bool {
	for _, l := range screen {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), cmd+"   ")
		if ok && rest != "" && rest[0] != ' ' {
			return true
		}
	}
	return false
}

// typeableForGemini reports whether a submitted text goes to the Gemini
// CLI typed rather than pasted: it has no control characters but line
// breaks, and does not start with the two characters Gemini's prompt
// takes as commands when typed into an empty box ("!" switches to shell
// mode, "?" shows the shortcuts). Why typed: Gemini 0.61 takes an Enter
// for a newline while a React state set by the paste (recentUnsafePaste,
// cleared by a 40 ms timer) is still seen by its key handler, which is
// re-subscribed only after a render; on a loaded machine node can read
// the Enter before that render however long after the echo it comes
// (seen in CI: Enter 62 ms after the echo, 150 ms after the paste).
// Typed text has only a guard on the times node read the keys (an Enter
// within 30 ms of a character, and none at all once it turned the kitty
// keyboard protocol on), which the deferred Enter's wait for the echo
// always satisfies.
func typeableForGemini(text string) bool {
	if text == "" || text[0] == '!' || text[0] == '?' {
		return false
	}
	for _, r := range text {
		if r == '\n' || r == '\r' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// geminiTyped is text as typed into Gemini's prompt: each line break
// ("\r\n", "\r" or "\n") becomes LF, which Gemini reads as Ctrl+J, its
// key for a new line in the prompt.
func geminiTyped(text string) string {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
}

// bracketPaste wraps text in ESC[200~ … ESC[201~ after removing every ESC
// and C1 control (U+0080–U+009F, and stray bytes 0x80–0x9F), so the text
// cannot end the paste early. Line endings are left alone.
func bracketPaste(text string) []byte {
	out := make([]byte, 0, len(text)+12)
	out = append(out, "\x1b[200~"...)
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == 0x1b:
		case r >= 0x80 && r <= 0x9f:
		case r == utf8.RuneError && size == 1 && text[i] >= 0x80 && text[i] <= 0x9f:
		default:
			out = append(out, text[i:i+size]...)
		}
		i += size
	}
	return append(out, "\x1b[201~"...)
}

// sendKeystroke presses one named key (spec ipc.md §10).
func (s *server) sendKeystroke(_ context.Context, params json.RawMessage) (any, error) {
	if !s.o.Scripting() {
		return nil, ipc.Errorf(ipc.CodeMethodNotFound, proto.MsgSendKeystrokeGate)
	}
	var p proto.SurfaceSendKeystrokeParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Keystroke == "" {
		return nil, ipc.InvalidParams("Missing 'keystroke' parameter")
	}
	if strings.ContainsAny(p.Keystroke, "\r\n") {
		return nil, ipc.InvalidParams("keystroke must not contain CR or LF bytes")
	}
	sf, err := s.inputTarget(p.SurfaceID, "No active terminal", "No active terminal")
	if err != nil {
		return nil, err
	}
	ev, err := terminal.ParseKey(p.Keystroke)
	if err != nil {
		return nil, ipc.InvalidParams("Invalid keystroke %q: %s", p.Keystroke, strings.TrimPrefix(err.Error(), "terminal: "))
	}
	b, ok := terminal.EncodeKey(ev, sf.Terminal().Emulator().Modes())
	if !ok {
		return proto.SentResult{Sent: true}, nil // no encoding: nothing to write
	}
	if bytes.ContainsAny(b, "\r\n") {
		return nil, ipc.InvalidParams("keystroke '%s' would submit (CR/LF); use surface.send_text with submit=true (`paneflow send --submit`) instead", p.Keystroke)
	}
	if err := sendInput(sf, b); err != nil {
		return nil, err
	}
	return proto.SentResult{Sent: true}, nil
}

// surfaceInterrupt stops the pane's agent's turn with the keys its tool
// takes for that (proto.InterruptKeys: Escape in an agent TUI, twice in
// opencode's, Ctrl+C otherwise), each encoded for the modes the program
// set (the agents use the kitty keyboard protocol, where Escape is a CSI
// sequence). It is a write into the pane, so the scripting gate applies.
func (s *server) surfaceInterrupt(_ context.Context, params json.RawMessage) (any, error) {
	if !s.o.Scripting() {
		return nil, ipc.Errorf(ipc.CodeMethodNotFound, proto.MsgInterruptGate)
	}
	var p proto.SurfaceInterruptParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	sf, err := s.inputTarget(p.SurfaceID, "No active terminal", "No active terminal")
	if err != nil {
		return nil, err
	}
	tool := ""
	if s.o.Agents != nil {
		if st, ok := s.o.Agents.SurfaceStatus(sf.ID(), sf.Terminal().Emulator().Generation()); ok {
			if a, ok := st.(proto.AgentStatus); ok {
				tool = a.Tool
			}
		}
	}
	keys := proto.InterruptKeys(tool, sf.Terminal().Emulator().Modes().BracketedPaste)
	for _, k := range keys {
		ev, err := terminal.ParseKey(k)
		if err != nil {
			return nil, errors.New("interrupt key " + k + ": " + err.Error())
		}
		if b, ok := terminal.EncodeKey(ev, sf.Terminal().Emulator().Modes()); ok {
			if err := sendInput(sf, b); err != nil {
				return nil, err
			}
		}
	}
	return proto.SurfaceInterruptResult{Sent: true, Tool: tool, Keys: keys}, nil
}

// agentInputWait is how long send_text holds a submitted text for an
// agent pane until its program turns bracketed paste on when the request
// gives no input_wait_ms: short enough for a client with the default
// call timeout (ipc.DefaultCallTimeout, 10 s), e.g. a script on the raw
// socket; a program that never turns it on costs each such send this
// much. maxInputWait bounds input_wait_ms.
const (
	agentInputWait = 3 * time.Second
	maxInputWait   = 5 * time.Minute
)

// awaitInputReady returns once sf's program reads its input
// (workspace.Surface.InputReady), the pane closed, ctx ended, or limit
// passed on the server's clock (then the text goes out as before). It
// wakes on each output change, never polls.
func (s *server) awaitInputReady(ctx context.Context, sf *workspace.Surface, limit time.Duration) {
	emu := sf.Terminal().Emulator()
	expired := make(chan struct{})
	t := s.o.Clock.AfterFunc(limit, func() { close(expired) })
	defer t.Stop()
	for {
		_, ch := emu.Watch()
		if sf.InputReady() {
			return
		}
		select {
		case <-ch:
		case <-sf.Closed():
			return
		case <-ctx.Done():
			return
		case <-expired:
			return
		}
	}
}
