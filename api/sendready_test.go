//go:build !windows

package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/internal/exefile"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// fakeAgent starts a pane whose program is named claude (a copy of
// /bin/sh): it prints "agent-up", turns bracketed paste on only once the
// test writes to the returned FIFO, then echoes each line it reads as
// "got: <line>".
func fakeAgent(t *testing.T, e *env) (*workspace.Surface, string) {
	t.Helper()
	return fakeAgentRunning(t, e, "claude", "", "while read -r l; do echo \"got: $l\"; done")
}

// fakeAgentRunning is fakeAgent with the program's name, what it runs
// before it turns bracketed paste on (setup, e.g. switching the tty mode:
// bracketed paste on is what tells send_text the agent reads its input,
// so a real TUI is in raw mode by then, and a fake that switches after
// it races the submitted text), and what it runs once bracketed paste is on.
func fakeAgentRunning(t *testing.T, e *env, name, setup, then string) (*workspace.Surface, string) {
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
	agent := filepath.Join(dir, name)
	if err := exefile.Write(agent, data, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "agent.sh")
	body := fmt.Sprintf("echo agent-up\nread x < '%s'\n%s\nprintf '\\033[?2004h'\n%s\n", fifo, setup, then)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sf := e.split(fmt.Sprintf(`'%s' '%s'`, agent, script))
	waitText(t, sf, "agent-up") // the program runs as claude from here on
	if tool := sf.AgentTool(); tool != name {
		t.Fatalf("the fake agent's pane runs %q, want %s", tool, name)
	}
	return sf, fifo
}

// agentServer is a socket server (with a mutation executor) over a model
// on a fake clock whose active workspace has a shell pane and a fake
// agent (fakeAgent) pane, sf, with scripting on; ctx ends at the test's
// deadline.
type agentServer struct {
	fc   *clock.Fake
	e    *env
	sf   *workspace.Surface
	fifo string
	c    *ipc.Client
	ctx  context.Context
}

func startAgentServer(t *testing.T) agentServer {
	t.Helper()
	a := agentServer{fc: clock.NewFake(time.Time{})}
	a.e = newEnv(t, workspace.Options{}, Options{Clock: a.fc}).withWorkspace(t.TempDir())
	a.e.scripting.Store(true)
	a.sf, a.fifo = fakeAgent(t, a.e)
	exe := ipc.NewQueueExecutor(0)
	exe.Start()
	t.Cleanup(exe.Close)
	srv := ipctest.StartServer(t, &ipc.Server{Registry: a.e.reg, Executor: exe, DispatchTimeout: time.Hour})
	a.c = &ipc.Client{Path: srv.Path, Timeout: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	a.ctx = ctx
	return a
}

// TestSubmitReadinessDoesNotHoldTheExecutor: a submitted send_text to an
// agent pane that has not turned bracketed paste on waits for it outside
// the executor, so a rename (a mutation) completes while the send is still
// waiting, and for as long as the caller's input_wait_ms (past the default
// agentInputWait). Once the agent reads its input, the text goes out
// bracketed and is submitted.
func TestSubmitReadinessDoesNotHoldTheExecutor(t *testing.T) {
	a := startAgentServer(t)
	fc, e, sf, fifo, c, ctx := a.fc, a.e, a.sf, a.fifo, a.c, a.ctx
	shell, _ := e.m.ActiveSurface()

	type sendReply struct {
		res proto.SurfaceSendTextResult
		err error
	}
	sent := make(chan sendReply, 1)
	go func() {
		var r sendReply
		r.err = c.Call(ctx, "surface.send_text", map[string]any{"surface_id": sf.ID(), "text": "hello agent", "submit": true, "input_wait_ms": 120000}, &r.res)
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
	// Past the default wait, the caller's longer one still holds.
	fc.Advance(agentInputWait + time.Second)
	if n := fc.Pending(); n != 1 {
		t.Fatalf("%d timers armed after the default wait passed, want send_text's input wait still armed", n)
	}
	select {
	case r := <-sent:
		t.Fatalf("send_text returned (%+v, %v) before the agent read its input", r.res, r.err)
	default:
	}
	if sf.Terminal().Emulator().Modes().BracketedPaste {
		t.Fatal("the fake agent turned bracketed paste on before the test let it")
	}

	letAgentGo(t, fifo)
	r := <-sent
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !r.res.AgentTarget || !r.res.TerminalBracketedPaste || !r.res.InputReady || !r.res.Paste || r.res.SubmitMode == nil || *r.res.SubmitMode != "deferred_paste_cr" {
		t.Fatalf("send_text = %+v, want a bracketed paste to the agent with a deferred Enter", r.res)
	}
	// The agent read one line: the pasted text, submitted by the Enter.
	waitText(t, sf, "got: hello agent")
}

// TestSubmitInputWait: input_wait_ms bounds send_text's wait for an agent
// that never reads its input (the text is typed anyway and input_ready
// says so), 0 sends at once, bad values are refused, and surface.wait's
// former input_ready condition is refused with a pointer to input_wait_ms.
func TestSubmitInputWait(t *testing.T) {
	a := startAgentServer(t)
	fc, sf, c, ctx := a.fc, a.sf, a.c, a.ctx

	sent := make(chan error, 1)
	var res proto.SurfaceSendTextResult
	go func() {
		sent <- c.Call(ctx, "surface.send_text", map[string]any{"surface_id": sf.ID(), "text": "one", "submit": true, "input_wait_ms": 5000}, &res)
	}()
	if err := fc.BlockUntilArmed(ctx, 1); err != nil {
		t.Fatalf("send_text never started waiting: %v", err)
	}
	fc.Advance(5 * time.Second)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if !res.Sent || !res.AgentTarget || res.InputReady {
		t.Fatalf("send_text after the input wait ran out = %+v, want sent to the agent with input_ready false", res)
	}
	res = proto.SurfaceSendTextResult{}
	if err := c.Call(ctx, "surface.send_text", map[string]any{"surface_id": sf.ID(), "text": "two", "submit": true, "input_wait_ms": 0}, &res); err != nil || !res.Sent || res.InputReady {
		t.Fatalf("send_text with input_wait_ms 0 = %+v, %v", res, err)
	}
	for _, bad := range []int64{-1, maxInputWait.Milliseconds() + 1} {
		err := c.Call(ctx, "surface.send_text", map[string]any{"surface_id": sf.ID(), "text": "x", "submit": true, "input_wait_ms": bad}, nil)
		var ie *ipc.Error
		if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams || !strings.Contains(ie.Message, "input_wait_ms") {
			t.Errorf("input_wait_ms %d: %v, want -32602 naming input_wait_ms", bad, err)
		}
	}
	err := c.Call(ctx, "surface.wait", map[string]any{"surface_ids": []uint64{sf.ID()}, "input_ready": true}, nil)
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams || !strings.Contains(ie.Message, "input_wait_ms") {
		t.Errorf("surface.wait input_ready: %v, want -32602 pointing to input_wait_ms", err)
	}
}

// TestWaitSendCountsFromTheText: a surface.wait whose send first waits
// for the agent to read its input counts its timeout_ms from when the
// text was typed, not from the call: the agent's start-up does not eat
// the barrier's time.
func TestWaitSendCountsFromTheText(t *testing.T) {
	a := startAgentServer(t)
	fc, sf, fifo, c, ctx := a.fc, a.sf, a.fifo, a.c, a.ctx

	done := make(chan error, 1)
	var res proto.SurfaceWaitResult
	go func() {
		done <- c.Call(ctx, "surface.wait", map[string]any{"surface_ids": []uint64{sf.ID()}, "pattern": "^got: hi$", "timeout_ms": 1000,
			"send": map[string]any{"text": "hi", "submit": true, "input_wait_ms": 60000}}, &res)
	}()
	if err := fc.BlockUntilArmed(ctx, 1); err != nil {
		t.Fatalf("the send never started waiting for the agent's input: %v", err)
	}
	fc.Advance(2 * time.Second) // past timeout_ms, still within input_wait_ms
	letAgentGo(t, fifo)
	if err := <-done; err != nil {
		t.Fatalf("surface.wait with a send that waited for the agent: %v", err)
	}
	if !res.Matched {
		t.Fatalf("surface.wait = %+v, want the agent's answer matched", res)
	}
}

// TestSubmitTypedToGemini: a submitted text for the Gemini CLI is typed,
// not pasted (its paste guard can turn the Enter into a newline, see
// typeableForGemini), its line breaks as LF, then the deferred Enter; a
// text starting with "!" is still pasted; a bare submit (Enter for keys
// typed before) is deferred too, until the output rested. The fake gemini
// dumps the raw bytes it reads.
func TestSubmitTypedToGemini(t *testing.T) {
	for _, tt := range []struct {
		name, text, mode string
		paste            bool
		want             string // the bytes read, in hex
	}{
		{"typed", "line one\r\nline two", "deferred_typed_cr", false, "6c696e65206f6e650a6c696e652074776f0d"},
		{"bang is pasted", "!ls", "deferred_paste_cr", true, "1b5b3230307e216c731b5b3230317e0d"},
		{"bare submit", "", "deferred_cr", false, "0d"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
			e.scripting.Store(true)
			n := len(tt.want) / 2
			sf, fifo := fakeAgentRunning(t, e, "gemini", "stty raw -echo", fmt.Sprintf("head -c %d | od -An -tx1 | tr -d ' \\n'; echo ' 'end; sleep 30", n))
			letAgentGo(t, fifo)
			var res proto.SurfaceSendTextResult
			params, _ := json.Marshal(map[string]any{"surface_id": sf.ID(), "text": tt.text, "submit": true})
			e.ok("surface.send_text", string(params), &res)
			if res.Paste != tt.paste || res.SubmitMode == nil || *res.SubmitMode != tt.mode {
				t.Errorf("send_text = %+v, want paste=%t, submit_mode %s", res, tt.paste, tt.mode)
			}
			waitText(t, sf, tt.want+" end")
		})
	}
}

// TestSubmitGeminiSlashCommand: the deferred Enter of a slash command
// typed into the Gemini CLI waits past the echo until the screen shows
// Gemini's completion of that command alone (geminiCompleted). The fake
// gemini echoes the command, looks a second later whether the Enter came
// already ("early:" and its bytes), then draws the completion row and
// dumps what it reads next.
func TestSubmitGeminiSlashCommand(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	e.scripting.Store(true)
	sf, fifo := fakeAgentRunning(t, e, "gemini", "stty raw -echo",
		`head -c 5 >/dev/null; printf '> /quit\r\n'; sleep 1; stty min 0 time 0; `+
			`printf 'early:%s;\r\n' "$(dd bs=1 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')"; stty min 1; `+
			`printf ' quit   Exit the cli\r\n'; head -c 1 | od -An -tx1 | tr -d ' \n'; echo ' 'end; sleep 30`)
	letAgentGo(t, fifo)
	var res proto.SurfaceSendTextResult
	e.ok("surface.send_text", fmt.Sprintf(`{"surface_id":%d,"text":"/quit","submit":true}`, sf.ID()), &res)
	if res.SubmitMode == nil || *res.SubmitMode != proto.SubmitDeferredTypedCR {
		t.Errorf("send_text = %+v, want submit_mode %s", res, proto.SubmitDeferredTypedCR)
	}
	if text := waitText(t, sf, "0d end"); !strings.Contains(text, "early:;") {
		t.Errorf("the Enter came before Gemini's completion row:\n%s", text)
	}
}

// TestGeminiCompleted: the screens on which Enter submits a typed slash
// command to Gemini CLI 0.61, and what counts as one.
func TestGeminiCompleted(t *testing.T) {
	all := []string{" > /quit", "", " clear            Clear the screen", " quit             Exit the cli", " (0/42)"}
	for _, tt := range []struct {
		screen []string
		want   bool
	}{
		{[]string{" > /quit"}, false},
		{all, false},
		{[]string{" > /quit", " quit   Exit the cli"}, true},
		{[]string{" > /quit", " quit   "}, false},
	} {
		if got := geminiCompleted(tt.screen, "quit"); got != tt.want {
			t.Errorf("geminiCompleted(%q) = %t, want %t", tt.screen, got, tt.want)
		}
	}
	for text, want := range map[string]bool{"/quit": true, "/": false, "/chat save x": false, "quit": false} {
		if _, got := geminiSlashCommand(text); got != want {
			t.Errorf("geminiSlashCommand(%q) = %t, want %t", text, got, want)
		}
	}
}

// letAgentGo lets the fake agent of fakeAgentRunning go on: it turns
// bracketed paste on (its input is ready) and runs its script.
func letAgentGo(t *testing.T, fifo string) {
	t.Helper()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
}

// TestTypeableForGemini: which texts go to Gemini typed.
func TestTypeableForGemini(t *testing.T) {
	for text, want := range map[string]bool{
		"fix the bug":         true,
		"two\nlines\r\nthree": true,
		"é ✓ 日本":              true,
		"":                    false,
		"!ls":                 false,
		"?":                   false,
		"tab\there":           false,
		"esc\x1b[31m":         false,
		"c1\u0085":            false,
		"del\x7f":             false,
		"bad\xff":             false,
	} {
		if got := typeableForGemini(text); got != want {
			t.Errorf("typeableForGemini(%q) = %t, want %t", text, got, want)
		}
	}
}
