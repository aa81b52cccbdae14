//go:build !windows

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/workspace"
)

// testDeadline bounds every wait for a real program. Tests never assert
// on timing, only that things happen before it.
const testDeadline = 15 * time.Second

// env is a manager with the api registered on a fresh registry.
type env struct {
	t         testing.TB
	m         *workspace.Manager
	b         *bus.Bus
	reg       *ipc.Registry
	s         *server
	scripting atomic.Bool
	handlers  map[string]ipc.Handler
	befores   map[string]func(context.Context, json.RawMessage) error
}

// newEnv builds an env. Panes run /bin/sh unless wo.Shell says otherwise;
// the scripting gate is closed until e.scripting is set.
func newEnv(t testing.TB, wo workspace.Options, ao Options) *env {
	t.Helper()
	if wo.Shell == nil {
		wo.Shell = []string{"/bin/sh"}
	}
	b := bus.New()
	wo.Bus = b
	e := &env{t: t, m: workspace.NewManager(wo), b: b, reg: ipc.NewRegistry(), handlers: map[string]ipc.Handler{}, befores: map[string]func(context.Context, json.RawMessage) error{}}
	if ao.Scripting == nil {
		ao.Scripting = e.scripting.Load
	}
	e.s = newServer(e.reg, e.m, b, ao)
	e.s.register()
	e.befores = e.s.befores()
	for _, md := range e.s.methods() {
		e.handlers[md.name] = md.h
	}
	t.Cleanup(func() {
		e.m.Close()
		b.Close()
	})
	return e
}

// withWorkspace gives e one workspace (surface 1) and returns e.
func (e *env) withWorkspace(cwd string) *env {
	e.t.Helper()
	if _, err := e.m.CreateWorkspace("main", cwd, nil, true); err != nil {
		e.t.Fatal(err)
	}
	return e
}

// call runs a handler directly, after its Before hook if it has one.
func (e *env) call(method, params string) (any, error) {
	e.t.Helper()
	h, ok := e.handlers[method]
	if !ok {
		e.t.Fatalf("no method %s", method)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	if before := e.befores[method]; before != nil {
		if err := before(ctx, json.RawMessage(params)); err != nil {
			return nil, err
		}
	}
	return h(ctx, json.RawMessage(params))
}

// ok calls a method that must succeed and decodes its result into out.
func (e *env) ok(method, params string, out any) {
	e.t.Helper()
	res, err := e.call(method, params)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, params, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the socket encodes replies
	if err := enc.Encode(res); err != nil {
		e.t.Fatalf("%s %s: encoding the result: %v", method, params, err)
	}
	b := buf.Bytes()
	// Every reply must reach a client through the socket: with the
	// envelope ({"jsonrpc":"2.0","id":…,"result":…}) under the frame cap.
	if len(b)+64 > ipc.MaxFrame {
		e.t.Errorf("%s %s: a result of %d bytes does not fit a %d-byte frame", method, params, len(b), ipc.MaxFrame)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("%s %s: decoding %s: %v", method, params, b, err)
		}
	}
}

// rpcErr returns err as an *ipc.Error, failing the test otherwise.
func rpcErr(t testing.TB, err error) *ipc.Error {
	t.Helper()
	var ie *ipc.Error
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *ipc.Error", err, err)
	}
	return ie
}

// waitText waits until the pane's screen text contains want.
func waitText(t testing.TB, sf *workspace.Surface, want string) string {
	t.Helper()
	emu := sf.Terminal().Emulator()
	deadline := time.After(testDeadline)
	for {
		_, ch := emu.Watch()
		w, _ := emu.ReadText(4000, 0)
		if strings.Contains(w.Text, want) {
			return w.Text
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("pane %d never showed %q; it shows:\n%s", sf.ID(), want, w.Text)
		}
	}
}

// split starts a pane running command and returns it.
func (e *env) split(command string) *workspace.Surface {
	e.t.Helper()
	info, _, err := e.m.Split(0, workspace.Vertical, workspace.PaneSpec{Command: command})
	if err != nil {
		e.t.Fatal(err)
	}
	sf, _ := e.m.Surface(info.ID)
	return sf
}
