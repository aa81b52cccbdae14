package conductor

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// checkGolden compares got with testdata/name; -update rewrites it, and a
// mismatch is written to testdata/failed/name.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		failed := filepath.Join("testdata", "failed", name)
		os.MkdirAll(filepath.Dir(failed), 0o755)
		os.WriteFile(failed, got, 0o644)
		t.Errorf("%s differs from the golden file; got written to %s:\n%s", name, failed, got)
	}
}

// fleetScene builds a fleet of every kind of row.
func fleetScene(t *testing.T) *harness {
	h := newHarness(t, Options{})
	h.procs.set(
		// Pane 1: Claude Code through the shim (pid 500).
		fakeProc{pid: 500, ppid: 100, start: 5000, comm: "claude", argv: []string{"claude"}},
		fakeProc{pid: 501, ppid: 500, start: 5001, comm: "claude", argv: []string{"/home/u/.local/bin/claude"}},
		// Pane 2: Codex without hooks, and Gemini with user hooks (no pid).
		fakeProc{pid: 210, ppid: 200, start: 2100, comm: "codex", argv: []string{"codex"}},
		fakeProc{pid: 220, ppid: 200, start: 2200, comm: "node", argv: []string{"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}},
		// Outside every pane: an opencode whose frames carry only a pid.
		fakeProc{pid: 900, ppid: 1, start: 9000, comm: "opencode", argv: []string{"opencode"}},
	)
	h.activity(1)
	h.activity(2)
	h.mustSend(MethodSessionStart, `{"workspace_id":1,"surface_id":1,"pid":500,"tool":"claude"}`)
	h.mustSend(MethodPromptSubmit, `{"workspace_id":1,"surface_id":1,"pid":500,"tool":"claude"}`)
	h.clock.Advance(3 * time.Second)
	h.mustSend(MethodNotification, `{"workspace_id":1,"surface_id":1,"pid":500,"tool":"claude","message":"Claude needs your permission to use Bash"}`)
	h.mustSend(MethodToolUse, `{"workspace_id":1,"surface_id":2,"tool":"gemini","tool_name":"run_shell_command"}`)
	h.mustSend(MethodExit, `{"workspace_id":2,"surface_id":3,"pid":777,"tool":"codex","exit_code":1}`)
	h.mustSend(MethodStop, `{"workspace_id":2,"pid":900,"tool":"opencode","last_result":"Renamed foo to bar in 3 files."}`)
	h.clock.Advance(1500 * time.Millisecond)
	return h
}

func TestGoldenFleet(t *testing.T) {
	h := fleetScene(t)
	got, err := json.MarshalIndent(h.c.Fleet(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "fleet.golden", append(got, '\n'))
}

func TestGoldenStatus(t *testing.T) {
	h := fleetScene(t)
	var buf bytes.Buffer
	for _, id := range []uint64{1, 2, 3} {
		st, ok := h.c.SurfaceStatus(id, 40+id)
		if !ok {
			t.Fatalf("SurfaceStatus(%d): no agent", id)
		}
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	// A pane with only an unhooked agent.
	h.mustSend(MethodSessionEnd, `{"surface_id":2,"tool":"gemini"}`)
	h.procs.kill(220)
	h.activity(2)
	st, ok := h.c.SurfaceStatus(2, 42)
	if !ok {
		t.Fatal("SurfaceStatus(2): no agent, want the unhooked codex")
	}
	b, _ := json.Marshal(st)
	buf.Write(b)
	buf.WriteByte('\n')
	// A plain shell: the socket API answers "idle" itself.
	h.procs.kill(210)
	h.activity(2)
	if st, ok := h.c.SurfaceStatus(2, 42); ok {
		t.Errorf("SurfaceStatus(2) of a plain shell = %+v, want none", st)
	}
	checkGolden(t, "status.golden", buf.Bytes())
}
