package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// TestRunAgainstIPCServer drives Run through the real ipc client and server,
// with handlers standing in for the api package.
func TestRunAgainstIPCServer(t *testing.T) {
	reg := ipc.NewRegistry()
	reg.Register("surface.list", func(context.Context, json.RawMessage) (any, error) {
		return surfaceList{PaneCount: 4, Surfaces: fixture()}, nil
	})
	reg.Register("surface.read", func(_ context.Context, p json.RawMessage) (any, error) {
		var in struct {
			SurfaceID uint64 `json:"surface_id"`
		}
		if err := json.Unmarshal(p, &in); err != nil {
			return nil, ipc.InvalidParams("%v", err)
		}
		return map[string]any{"text": "pane " + string(p), "lines": 1, "total_lines": 1, "eof": true, "output_generation": 1}, nil
	})
	reg.Register("surface.send_text", func(context.Context, json.RawMessage) (any, error) {
		return nil, ipc.Errorf(ipc.CodeMethodNotFound, "surface.send_text disabled; set PANEFLOW_IPC_SCRIPTING=1 to enable")
	})
	reg.Register("surface.wait", func(_ context.Context, p json.RawMessage) (any, error) {
		var in waitParams
		if err := json.Unmarshal(p, &in); err != nil {
			return nil, ipc.InvalidParams("%v", err)
		}
		if in.TimeoutMS < 1000 {
			return nil, ipc.Errorf(ipc.CodeTimeout, "request timeout")
		}
		return map[string]any{"matched": true, "panes": in.SurfaceIDs}, nil
	}, ipc.Long())
	reg.RegisterStream("events.subscribe", func(_ context.Context, _ json.RawMessage, w ipc.FrameWriter) error {
		if err := w.WriteFrame(json.RawMessage(`{"type":"subscribed","id":1}`)); err != nil {
			return err
		}
		return w.WriteFrame(json.RawMessage(`{"type":"surface_changed","surface_id":2,"output_generation":9}`))
	})
	srv := ipctest.Start(t, reg)
	env := map[string]string{"PANEFLOW_SOCKET_PATH": srv.Path}
	getenv := func(k string) string { return env[k] }

	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"read", "claude", "--raw"}, ExitOK, `pane {"fenced":false,"surface_id":2}`, ""},
		{[]string{"read", "cla"}, ExitNoTarget, "", "paneflow: ambiguous target 'cla'; matches: 2(claude), 3(claude-2)\n"},
		{[]string{"send", "claude", "hi"}, ExitFailure, "", "PANEFLOW_IPC_SCRIPTING=1 paneflow serve"},
		{[]string{"wait", "--match", "cmdline:claude", "--pattern", "x", "--all"}, ExitOK, "{\n  \"matched\": true,\n  \"panes\": [\n    2,\n    3\n  ]\n}\n", ""},
		{[]string{"wait", "--match", "claude", "--pattern", "x", "--timeout", "0.5"}, ExitTimeout, "", "paneflow: timeout after 0.5s waiting for /x/\n"},
		{[]string{"watch"}, ExitOK, "{\"type\":\"subscribed\",\"id\":1}\n{\"type\":\"surface_changed\",\"surface_id\":2,\"output_generation\":9}\n", ""},
		{[]string{"ps"}, ExitFailure, "", "paneflow: paneflow error -32601: method not found: fleet.list\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, getenv)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if stdout.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestEmptyParamsEncodeThemselves: params-less calls send {} as before,
// encoded without reflection (ipc takes an AppendJSON first).
func TestEmptyParamsEncodeThemselves(t *testing.T) {
	if got := string(emptyParams.AppendJSON(nil)); got != "{}" {
		t.Errorf("emptyParams.AppendJSON = %s, want {}", got)
	}
	if b, err := json.Marshal(emptyParams); err != nil || string(b) != "{}" {
		t.Errorf("json.Marshal(emptyParams) = %s, %v; want {}", b, err)
	}
}
