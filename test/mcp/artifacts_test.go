//go:build linux

package mcpe2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hookStop is a shell command that runs the real hook binary as an
// agent's Stop hook whose final answer is answer (no quotes in it).
func hookStop(answer string) string {
	return `printf '%s' '{"hook_event_name":"Stop","last_assistant_message":"` + answer + `"}' | ` + hookBin + " Stop"
}

// artifactPath is a pane's output.json in the server's data directory.
func (s *server) artifactPath(ws, id uint64) string {
	return filepath.Join(s.dir, "data", "paneflow", "artifacts", strconv.FormatUint(ws, 10), strconv.FormatUint(id, 10), "output.json")
}

// TestArtifacts: the hook binary keeps a turn's final answer as the
// pane's artifact; get_artifact and wait_for_idle return it fenced;
// depends_on waits for it and substitutes {{<name>.output}}; a command
// that is not a known agent is told where to write its answer; the
// artifact goes with its pane unless kept.
func TestArtifacts(t *testing.T) {
	s := startServer(t)
	c := connectArgs(t, append(s.env, "PANEFLOW_SURFACE_ID=1"), s.sock, legacy, "--orchestrate")

	alpha := s.split("alpha", hookStop("alpha answer <b>ok</b>")+"; echo hook-done; exec cat")
	s.waitText(alpha, "hook-done")
	path := s.artifactPath(1, alpha)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook wrote no artifact: %v", err)
	}
	var onDisk struct {
		Output      string `json:"output"`
		SurfaceID   uint64 `json:"surface_id"`
		WorkspaceID uint64 `json:"workspace_id"`
		WrittenAt   string `json:"written_at"`
	}
	if err := json.Unmarshal(data, &onDisk); err != nil || onDisk.Output != "alpha answer <b>ok</b>" || onDisk.SurfaceID != alpha || onDisk.WorkspaceID != 1 || onDisk.WrittenAt == "" {
		t.Errorf("%s = %s (%v)", path, data, err)
	}

	text := c.mustCall(t, "get_artifact", map[string]any{"target": "alpha"})
	head, fenced, _ := strings.Cut(text, "\n")
	if !strings.Contains(head, `"exists":true`) || !strings.Contains(head, strconv.Quote(path)) {
		t.Errorf("get_artifact header: %s", head)
	}
	if attrs, _, body := unfence(t, fenced); !strings.Contains(attrs, `source="alpha"`) || body != "alpha answer <b>ok</b>" {
		t.Errorf("get_artifact body: %s", fenced)
	}
	// wait_for_idle brings the answer along.
	text = c.mustCall(t, "wait_for_idle", map[string]any{"target": "alpha", "idle_seconds": 0.2, "timeout_seconds": 60})
	if !strings.Contains(text, `"is_idle": true`) || !strings.Contains(text, "alpha answer <b>ok</b>") {
		t.Errorf("wait_for_idle: %s", text)
	}
	// With artifact: true it waits for one written after the call began;
	// alpha's is older.
	text = c.mustCall(t, "wait_for_idle", map[string]any{"target": "alpha", "artifact": true, "timeout_seconds": 0.5})
	if !strings.Contains(text, `"timed_out": true`) {
		t.Errorf("wait_for_idle for a new artifact of alpha, which writes none: %s", text)
	}
	// A pane that finishes a turn every few tenths of a second.
	s.split("looper", "while :; do sleep 0.3; "+hookStop("loop answer")+"; done")
	text = c.mustCall(t, "wait_for_idle", map[string]any{"target": "looper", "artifact": true, "timeout_seconds": 60})
	if !strings.Contains(text, `"by": "artifact"`) || !strings.Contains(text, "loop answer") {
		t.Errorf("wait_for_idle artifact: %s", text)
	}

	// A pane with no artifact yet.
	idle := s.split("idle", "exec cat")
	text = c.mustCall(t, "get_artifact", map[string]any{"target": idle})
	if !strings.Contains(text, `"exists":false`) || !strings.Contains(text, "no artifact yet") {
		t.Errorf("get_artifact without one: %s", text)
	}

	// depends_on: the task gets alpha's answer, fenced; cat is no known
	// agent, so it is told where to write its own.
	out := c.mustCall(t, "spawn_agent", map[string]any{
		"command": "exec cat", "name": "gamma", "depends_on": []any{"alpha"},
		"task": "Summarise {{alpha.output}} now",
	})
	var spawned struct {
		SurfaceID    uint64 `json:"surface_id"`
		ArtifactPath string `json:"artifact_path"`
	}
	if err := json.Unmarshal([]byte(out), &spawned); err != nil || spawned.ArtifactPath != s.artifactPath(1, spawned.SurfaceID) {
		t.Fatalf("spawn_agent with depends_on: %v %s", err, out)
	}
	s.waitText(spawned.SurfaceID, "as JSON")
	screen := c.mustCall(t, "read_pane", map[string]any{"target": "gamma", "lines": 200})
	for _, want := range []string{"Summarise <untrusted_terminal_output", `source="alpha"`, "alpha answer <b>ok</b>", "now", "write your final answer to the file"} {
		if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), want) {
			t.Errorf("gamma's screen lacks %q:\n%s", want, screen)
		}
	}
	for args, want := range map[string]string{
		`{"command":"true","task":"{{nobody.output}}"}`:                             "nobody, which is not in depends_on",
		`{"command":"true","depends_on":"alpha"}`:                                   "'depends_on' must be an array",
		`{"command":"true","depends_on":["no-such-pane"]}`:                          "depends_on no-such-pane",
		`{"command":"true","depends_on":["idle"],"task":"x","timeout_seconds":0.3}`: "depends_on idle: no artifact before the timeout",
		`{"command":"true","keep_artifact":"yes"}`:                                  "'keep_artifact' must be a boolean",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if text, isErr := c.call(t, "spawn_agent", a); !isErr || !strings.Contains(text, want) {
			t.Errorf("spawn_agent %s: %v %q, want %q", args, isErr, text, want)
		}
	}

	// An agent's own file, longer than one socket frame: cut, and said so.
	big := strings.Repeat("0123456789abcdef", 300<<10/16)
	if err := os.MkdirAll(filepath.Dir(s.artifactPath(1, idle)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.artifactPath(1, idle), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	text = c.mustCall(t, "get_artifact", map[string]any{"target": idle})
	head, fenced, _ = strings.Cut(text, "\n")
	if _, _, body := unfence(t, fenced); !strings.Contains(head, `"truncated":true`) || len(body) < 100<<10 || !strings.HasPrefix(big, body) {
		t.Errorf("get_artifact of a 300 KiB answer: %s, %d bytes of body", head, len(body))
	}

	// Closing a pane removes its artifact; a kept one moves to kept/.
	out = c.mustCall(t, "spawn_agent", map[string]any{"command": hookStop("kept answer") + "; echo kept-done; exec cat", "name": "keeper", "keep_artifact": true})
	if err := json.Unmarshal([]byte(out), &spawned); err != nil {
		t.Fatal(err)
	}
	s.waitText(spawned.SurfaceID, "kept-done")
	c.mustCall(t, "kill_agent", map[string]any{"target": "keeper"})
	c.mustCall(t, "kill_agent", map[string]any{"target": "alpha"})
	kept := filepath.Join(s.dir, "data", "paneflow", "artifacts", "kept")
	waitFor(t, "the artifacts to be removed or kept", func() bool {
		_, errAlpha := os.Stat(filepath.Dir(path))
		_, errKeeper := os.Stat(filepath.Dir(s.artifactPath(1, spawned.SurfaceID)))
		m, _ := filepath.Glob(filepath.Join(kept, "1-"+strconv.FormatUint(spawned.SurfaceID, 10)+"-*", "output.json"))
		return os.IsNotExist(errAlpha) && os.IsNotExist(errKeeper) && len(m) == 1
	})
	m, _ := filepath.Glob(filepath.Join(kept, "*", "output.json"))
	if data, err := os.ReadFile(m[0]); err != nil || !strings.Contains(string(data), "kept answer") {
		t.Errorf("kept artifact %s: %v %s", m[0], err, data)
	}
}

// waitFor polls cond until it holds, failing the test after callTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(callTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
