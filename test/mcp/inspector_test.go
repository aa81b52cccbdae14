//go:build linux

package mcpe2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// inspector installs (once, into a cache outside the clone) and returns
// the MCP Inspector CLI, through scripts/mcp-inspector.sh.
var inspector = sync.OnceValues(func() (string, error) {
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "mcp-inspector.sh"))
	if err != nil {
		return "", err
	}
	var out, errb bytes.Buffer
	cmd := exec.Command("bash", script, "bin")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", errors.New("scripts/mcp-inspector.sh bin: " + err.Error() + "\n" + errb.String())
	}
	return strings.TrimSpace(out.String()), nil
})

// TestInspector drives the built bridge with an independent client, the
// MCP Inspector CLI (@modelcontextprotocol/inspector, pinned in the
// script), against a live paneflow serve: it lists the tools, calls them
// and reads a resource.
func TestInspector(t *testing.T) {
	bin, err := inspector()
	if err != nil {
		t.Fatalf("the MCP Inspector CLI is needed (npm and the npm registry on the first run): %v", err)
	}
	s := startServer(t)
	id := s.split("inspected", "echo inspector-sees-this; exec sleep 600")
	s.waitText(id, "inspector-sees-this")

	// run runs the inspector with args and returns its exit status and
	// the decoded {"result": …} on stdout.
	run := func(args ...string) (int, map[string]any, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		full := append([]string{"--cli", bridgeBin, "-e", "PANEFLOW_SOCKET_PATH=" + s.sock, "-q", "--format", "json"}, args...)
		cmd := exec.CommandContext(ctx, bin, full...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
		case err != nil:
			t.Fatalf("inspector %v: %v", args, err)
		}
		var res struct {
			Result map[string]any `json:"result"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("inspector %v: exit %d, stdout is not JSON (%v):\n%s\nstderr:\n%s", args, code, err, out.String(), errb.String())
		}
		return code, res.Result, errb.String()
	}
	text := func(res map[string]any) string {
		content, _ := res["content"].([]any)
		if len(content) != 1 {
			t.Fatalf("content %v", res)
		}
		c, _ := content[0].(map[string]any)
		s, _ := c["text"].(string)
		return s
	}

	code, res, errs := run("--method", "tools/list")
	if code != 0 {
		t.Fatalf("tools/list: exit %d: %s", code, errs)
	}
	var names []string
	for _, tl := range res["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if want := []string{"agent_status", "list_agents", "list_panes", "read_pane", "search_pane", "wait_for"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}

	code, res, errs = run("--method", "tools/call", "--tool-name", "list_panes")
	if code != 0 || !strings.Contains(text(res), `"name": "inspected"`) {
		t.Errorf("list_panes: exit %d %v %s", code, res, errs)
	}
	code, res, errs = run("--method", "tools/call", "--tool-name", "read_pane", "--tool-arg", "target=INSP", "lines=50")
	if code != 0 || !strings.Contains(text(res), "inspector-sees-this") || !strings.HasPrefix(text(res), `<untrusted_terminal_output source="INSP"`) {
		t.Errorf("read_pane: exit %d %v %s", code, res, errs)
	}
	code, res, errs = run("--method", "tools/call", "--tool-name", "search_pane", "--tool-args-json", `{"target":"inspected","pattern":"SEES"}`)
	if code != 0 || !strings.Contains(text(res), ": inspector-sees-this") {
		t.Errorf("search_pane: exit %d %v %s", code, res, errs)
	}
	code, res, errs = run("--method", "tools/call", "--tool-name", "wait_for", "--tool-args-json", `{"target":"inspected","idle_seconds":0.1}`)
	if code != 0 || !strings.Contains(text(res), `"idle": true`) {
		t.Errorf("wait_for: exit %d %v %s", code, res, errs)
	}
	// A tool failure: isError, exit 5.
	code, res, _ = run("--method", "tools/call", "--tool-name", "read_pane", "--tool-arg", "target=absent")
	if code != 5 || res["isError"] != true || !strings.Contains(text(res), "no surface matches 'absent'") {
		t.Errorf("read_pane of no pane: exit %d %v", code, res)
	}

	code, res, errs = run("--method", "resources/list")
	if code != 0 || !strings.Contains(mustJSON(t, res), `"uri":"pane://inspected/content"`) {
		t.Errorf("resources/list: exit %d %v %s", code, res, errs)
	}
	code, res, errs = run("--method", "resources/read", "--uri", "pane://inspected/content")
	if code != 0 || !strings.Contains(mustJSON(t, res), "inspector-sees-this") {
		t.Errorf("resources/read: exit %d %v %s", code, res, errs)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
