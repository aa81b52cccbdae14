package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// gateError explains a closed scripting gate (-32601 from send_text or
// send_keystroke) and how to open it.
func gateError(err error) error {
	return exitErrorf(ExitFailure, "writing into panes is disabled on this Paneflow server (%v); start the server with PANEFLOW_IPC_SCRIPTING=1 (e.g. `PANEFLOW_IPC_SCRIPTING=1 paneflow serve`) to allow send and key", err)
}

// isGateClosed reports whether err is the scripting gate's -32601.
func isGateClosed(err error) bool {
	code, ok := rpcCode(err)
	return ok && code == ipc.CodeMethodNotFound
}

// snapshot reads surface.status before a submit; nil when it fails (then
// no confirmation is attempted: the send itself will report a missing
// pane).
func snapshot(ctx context.Context, c caller, id uint64) *proto.SurfaceStatusResult {
	st, err := proto.Client{Caller: c}.SurfaceStatus(ctx, proto.SurfaceTarget(id))
	if err != nil {
		return nil
	}
	return &st
}

// confirmStart waits until the agent in pane id visibly started its turn
// after a submit (proto.Client.ConfirmTurnStart, against before). It
// returns the start_reason, or an error saying the text was delivered but
// no start was seen.
func (s *session) confirmStart(ctx context.Context, c caller, id uint64, before *proto.SurfaceStatusResult) (string, error) {
	return proto.Client{Caller: c}.ConfirmTurnStart(ctx, id, *before)
}

// sendInputWait bounds how long `send --submit` has the server hold the
// text for an agent pane that has not read its input yet (send_text's
// input_wait_ms) before it is typed anyway.
const sendInputWait = 30 * time.Second

// sendOne sends text to one pane and, for a submit to an agent pane,
// confirms the turn started. It returns the result to print.
func (s *session) sendOne(ctx context.Context, c caller, id uint64, text string, submit, paste bool) (json.RawMessage, error) {
	p := map[string]any{"surface_id": id, "text": text, "submit": submit}
	if paste {
		p["paste"] = true // never an explicit false: the server decides then
	}
	send := c
	if submit && text != "" {
		// The server holds the text until an agent pane reads its input
		// (its TUI turned bracketed paste on), at most sendInputWait.
		p["input_wait_ms"] = sendInputWait.Milliseconds()
		long, err := s.dial(sendInputWait + waitCallMargin)
		if err != nil {
			return nil, err
		}
		send = long
	}
	var before *proto.SurfaceStatusResult
	if submit {
		before = snapshot(ctx, c, id)
	}
	var res struct {
		AgentTarget bool  `json:"agent_target"`
		InputReady  *bool `json:"input_ready"`
	}
	raw, err := callInto(ctx, send, "surface.send_text", p, &res)
	if err != nil {
		return nil, err
	}
	if submit && text != "" && res.AgentTarget && res.InputReady != nil && !*res.InputReady {
		fmt.Fprintf(s.stderr, "paneflow: warning: the agent in pane %d had not read its input (bracketed paste still off) after %v; the text was typed anyway\n", id, sendInputWait)
	}
	if !submit || !res.AgentTarget || before == nil {
		return raw, nil
	}
	reason, err := s.confirmStart(ctx, c, id, before)
	if err != nil {
		return raw, err
	}
	return withFields(raw, "started", true, "start_reason", reason)
}

func runSend(ctx context.Context, s *session, in *input) error {
	text := in.args[1]
	submit, paste, broadcast := in.bool("submit"), in.bool("paste"), in.bool("broadcast")
	c, err := s.connect()
	if err != nil {
		return err
	}
	if !broadcast {
		t, err := s.target(ctx, c, in)
		if err != nil {
			return err
		}
		raw, err := s.sendOne(ctx, c, t.ID, text, submit, paste)
		if isGateClosed(err) {
			return gateError(err)
		}
		if err != nil {
			return err
		}
		return s.printRaw(raw)
	}
	targets, err := s.resolve(ctx, c, in.args[0])
	if err != nil {
		return err
	}
	type failure struct {
		SurfaceID uint64 `json:"surface_id"`
		Error     string `json:"error"`
	}
	out := struct {
		Sent      []uint64  `json:"sent"`
		Failed    []failure `json:"failed"`
		Submitted bool      `json:"submitted"`
	}{Sent: []uint64{}, Failed: []failure{}, Submitted: submit}
	for i, t := range targets {
		raw, err := s.sendOne(ctx, c, t.ID, text, submit, paste)
		if err != nil && i == 0 && isGateClosed(err) {
			return gateError(err) // the gate is the server's: no other pane would take it either
		}
		if err != nil && ctx.Err() != nil {
			return err // interrupted: stop here, report nothing half-done as a pane failure
		}
		if raw != nil {
			out.Sent = append(out.Sent, t.ID) // delivered, even if the start was not confirmed
		}
		if err != nil {
			out.Failed = append(out.Failed, failure{t.ID, err.Error()})
		}
	}
	if err := s.printJSON(out); err != nil {
		return err
	}
	if len(out.Failed) > 0 {
		return &exitError{Code: ExitFailure}
	}
	return nil
}

func runKey(ctx context.Context, s *session, in *input) error {
	err := s.simple(ctx, in, "surface.send_keystroke", map[string]any{"keystroke": in.args[1]})
	if isGateClosed(err) {
		return gateError(err)
	}
	return err
}

func runInterrupt(ctx context.Context, s *session, in *input) error {
	err := s.simple(ctx, in, proto.MethodSurfaceInterrupt, map[string]any{})
	if isGateClosed(err) {
		return gateError(err)
	}
	return err
}
