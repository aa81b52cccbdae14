//go:build !windows

package api

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

// fakeAgent starts a pane whose program is named claude (a copy of
// /bin/sh): it prints "agent-up", turns bracketed paste on only once the
// test writes to the returned FIFO, then echoes each line it reads as
// "got: <line>".
func fakeAgent(t *testing.T, e *env) (*workspace.Surface, string) {
	t.Helper()
	dir := t.TempDir()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(dir, "claude")
	if err := os.WriteFile(agent, data, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "agent.sh")
	body := fmt.Sprintf("echo agent-up\nread x < '%s'\nprintf '\\033[?2004h'\nwhile read -r l; do echo \"got: $l\"; done\n", fifo)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sf := e.split(fmt.Sprintf(`'%s' '%s'`, agent, script))
	waitText(t, sf, "agent-up") // the program runs as claude from here on
	if tool := agentTool(sf); tool != "claude" {
		t.Fatalf("the fake agent's pane runs %q, want claude", tool)
	}
	return sf, fifo
}

// TestSubmitReadinessDoesNotHoldTheExecutor: a submitted send_text to an
// agent pane that has not turned bracketed paste on waits for it outside
// the executor, so a rename (a mutation) completes while the send is still
// waiting; an input_ready surface.wait waits for the same thing. Once the
// agent reads its input, the text goes out bracketed and is submitted.
func TestSubmitReadinessDoesNotHoldTheExecutor(t *testing.T) {
	fc := clock.NewFake(time.Time{})
	e := newEnv(t, workspace.Options{}, Options{Clock: fc}).withWorkspace(t.TempDir())
	e.scripting.Store(true)
	sf, fifo := fakeAgent(t, e)
	shell, _ := e.m.ActiveSurface()
	exe := ipc.NewQueueExecutor(0)
	exe.Start()
	t.Cleanup(exe.Close)
	srv := ipctest.StartServer(t, &ipc.Server{Registry: e.reg, Executor: exe, DispatchTimeout: time.Hour})
	c := &ipc.Client{Path: srv.Path, Timeout: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()

	type sendReply struct {
		res sendTextResult
		err error
	}
	sent := make(chan sendReply, 1)
	go func() {
		var r sendReply
		r.err = c.Call(ctx, "surface.send_text", map[string]any{"surface_id": sf.ID(), "text": "hello agent", "submit": true}, &r.res)
		sent <- r
	}()
	if err := fc.BlockUntilArmed(ctx, 1); err != nil {
		t.Fatalf("send_text never started waiting for the agent's input: %v", err)
	}
	// The send is waiting now: a mutation goes through meanwhile.
	var renamed map[string]any
	if err := c.Call(ctx, "surface.rename", map[string]any{"surface_id": shell.ID(), "new_name": "other"}, &renamed); err != nil {
		t.Fatalf("surface.rename while a submit waits for the agent: %v", err)
	}
	select {
	case r := <-sent:
		t.Fatalf("send_text returned (%+v, %v) before the agent read its input", r.res, r.err)
	default:
	}
	if sf.Terminal().Emulator().Modes().BracketedPaste {
		t.Fatal("the fake agent turned bracketed paste on before the test let it")
	}

	// input_ready: a plain shell is ready at once; the agent once it
	// reads its input.
	var res waitResult
	if err := c.Call(ctx, "surface.wait", map[string]any{"surface_ids": []uint64{shell.ID()}, "input_ready": true}, &res); err != nil || !res.InputReady {
		t.Fatalf("input_ready on a shell pane = %+v, %v", res, err)
	}
	waited := make(chan error, 1)
	go func() {
		var res waitResult
		err := c.Call(ctx, "surface.wait", map[string]any{"surface_ids": []uint64{sf.ID()}, "input_ready": true}, &res)
		if err == nil && (!res.InputReady || len(res.Panes) != 1 || res.Panes[0] != sf.ID()) {
			err = fmt.Errorf("result %+v", res)
		}
		waited <- err
	}()
	if err := fc.BlockUntilArmed(ctx, 2); err != nil { // the shell's wait was decided at once, unarmed
		t.Fatalf("the input_ready wait never started: %v", err)
	}
	select {
	case err := <-waited:
		t.Fatalf("input_ready on the agent returned (%v) before it read its input", err)
	default:
	}

	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	if err := <-waited; err != nil {
		t.Fatalf("input_ready on the agent: %v", err)
	}
	r := <-sent
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.res.AgentTarget || !r.res.TerminalBracketedPaste || !r.res.Paste || r.res.SubmitMode == nil || *r.res.SubmitMode != "deferred_paste_cr" {
		t.Fatalf("send_text = %+v, want a bracketed paste to the agent with a deferred Enter", r.res)
	}
	// The agent read one line: the pasted text, submitted by the Enter.
	waitText(t, sf, "got: hello agent")
}
