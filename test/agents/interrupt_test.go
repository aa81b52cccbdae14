//go:build linux

package agents

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// TestInterruptClaude: `paneflow interrupt` while Claude Code's TUI runs
// an approved command presses Escape (the key Claude takes, encoded for
// its keyboard mode): Claude stops the command, says it was interrupted
// and waits at its prompt, and the model is not asked again.
func TestInterruptClaude(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e, _ := claudeInteractive(t, pollLoop(dir, "never"), fakemodel.Turn{Text: "must not be asked"})
	e.mustCLI("send", "1", "1") // "1. Yes"
	e.waitStatus("thinking while the command runs", func(s status) bool { return s.State == "thinking" })
	e.waitFor("the approved command to run", func() bool {
		return exec.Command("pgrep", "-f", filepath.Join(dir, "go")).Run() == nil
	})

	var res struct {
		Sent    bool     `json:"sent"`
		Tool    string   `json:"tool"`
		Pressed []string `json:"pressed"`
	}
	if err := json.Unmarshal([]byte(e.mustCLI("interrupt", "1")), &res); err != nil || !res.Sent || res.Tool != "claude" || strings.Join(res.Pressed, " ") != "escape" {
		t.Fatalf("paneflow interrupt answered %+v (%v), want claude's escape", res, err)
	}
	e.waitFor("the interrupted command to end", func() bool {
		return exec.Command("pgrep", "-f", filepath.Join(dir, "go")).Run() != nil
	})
	e.waitScreen("Claude Code's interruption on the screen", "Interrupted")
	e.waitScreen("Claude Code's prompt again", "accept edits on")
	if n := e.model.Turns(); n != 1 {
		t.Errorf("the model was asked %d times, want once: the interrupted agent went on", n)
	}
}
