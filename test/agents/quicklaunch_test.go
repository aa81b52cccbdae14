//go:build linux

package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// TestOpencodeQuickLaunchPrompt: the window's quick launch (and
// spawn_agent, and a spec pane's prompt) opens opencode 1.18.33 in a new
// pane with surface.split's prompt, opencode found on the server's PATH
// as a user has it. The prompt must be in opencode's input box once its
// TUI is up (its window title set), and an Enter then submits it: its
// plugin reports the turn and the model gets the prompt. Before, the
// prompt went in while opencode was still loading (its pane printed
// nothing, so it looked settled after 1.8 s): the terminal echoed it and
// opencode's screen then showed its empty input box.
func TestOpencodeQuickLaunchPrompt(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t, fakemodel.Turn{Text: "quick launch answered."})
	model.SetSide("A title")
	e := newEnv(t, model, options{
		env: []string{"PATH=" + filepath.Dir(agents["opencode"]) + ":" + os.Getenv("PATH"),
			"OPENCODE_DISABLE_MODELS_FETCH=true", "OPENCODE_DISABLE_AUTOUPDATE=true", "npm_config_offline=true"},
		setup: func(e *env) {
			e.write(".config/opencode/opencode.json", `{"provider":{"fake":{"npm":"@ai-sdk/openai-compatible","options":{"baseURL":"`+model.URL+`/v1","apiKey":"x"},"models":{"fake-model":{"tool_call":true}}}},"model":"fake/fake-model","permission":{"*":"allow"}}`+"\n")
		}})
	cl := &ipc.Client{Path: e.sock, Timeout: 30 * time.Second}
	var res struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	const prompt = "summarise the quick launch readme"
	if err := cl.Call(context.Background(), "surface.split", map[string]any{"surface_id": 1, "direction": "vertical",
		"cwd": e.project, "command": "opencode", "prompt": prompt, "name": "OpenCode quick"}, &res); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatUint(res.SurfaceID, 10)
	title := func() string {
		var ls struct {
			Surfaces []struct {
				ID    uint64 `json:"surface_id"`
				Title string `json:"title"`
			}
		}
		out, _ := e.cli("ls")
		_ = json.Unmarshal([]byte(out), &ls)
		for _, s := range ls.Surfaces {
			if s.ID == res.SurfaceID {
				return s.Title
			}
		}
		return ""
	}
	e.waitFor("opencode's TUI with the prompt in its input box", func() bool {
		if title() != "OpenCode" {
			return false
		}
		out, _ := e.cli("read", id, "--raw")
		return strings.Contains(out, prompt)
	})
	// Enter submits what the input box holds. Its turn start is seen by
	// the model's request below: the plugin's hook may take longer than
	// send's confirmation allows on a loaded machine.
	if _, err := e.cli("send", id, "", "--submit"); err != nil && !strings.Contains(err.Error(), "no turn start was confirmed") {
		t.Fatal(err)
	}
	e.waitFor("the model's request with the prompt", func() bool {
		for _, r := range model.Requests() {
			if strings.Contains(string(r.Body), prompt) {
				return true
			}
		}
		return false
	})
}
