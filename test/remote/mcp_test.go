//go:build linux

package remote

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRemoteMCP: paneflow-mcp --host lists and reads the host's panes
// through one ssh, and waits there (wait_for: a Long call through the
// bridge).
func TestRemoteMCP(t *testing.T) {
	w := newWorld(t)
	w.host(portMain, "new", "--name", "mcp-ws", "--cwd", w.remote, "--command", "sh -c 'echo REMOTE-MCP-LINE; exec cat'")
	w.host(portMain, "rename", "cmdline:REMOTE-MCP-LINE", "mcp1")
	w.host(portMain, "wait", "--match", "mcp1", "--pattern", "^REMOTE-MCP-LINE$", "--from-start", "--timeout", "60s")

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.Command(filepath.Join(binDir, "paneflow-mcp"), "--host", w.url(portMain))
	cmd.Env = w.localEnv
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "remote-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to paneflow-mcp --host: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr.String())
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return strings.Join(text, "\n")
	}
	if out := call("list_panes", nil); !strings.Contains(out, "mcp1") {
		t.Fatalf("list_panes does not list the host's pane:\n%s", out)
	}
	if out := call("read_pane", map[string]any{"target": "mcp1"}); !strings.Contains(out, "REMOTE-MCP-LINE") {
		t.Fatalf("read_pane:\n%s", out)
	}
	if out := call("wait_for", map[string]any{"target": "mcp1", "idle_seconds": 0.3, "timeout_seconds": 60}); !strings.Contains(out, "idle") {
		t.Fatalf("wait_for:\n%s", out)
	}

	// A host without paneflow: the bridge says so at start.
	bad := exec.Command(filepath.Join(binDir, "paneflow-mcp"), "--host", w.url(portBare))
	bad.Env = w.localEnv
	out, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "paneflow host install") {
		t.Fatalf("paneflow-mcp --host to a host without paneflow: %v\n%s", err, out)
	}
}
