package conductor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestHookFrames feeds the frames the hook binary produces for real agent
// payloads (the hook package's golden files, ../hook/testdata/*/*.frame.json)
// through the conductor: every one must be accepted and land in its pane.
// The file is read, not imported: subsystems do not import each other.
func TestHookFrames(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "hook", "testdata", "*", "*.frame.json"))
	if len(files) == 0 {
		t.Skip("no hook frames in ../hook/testdata")
	}
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var f struct {
				Dropped bool            `json:"dropped"`
				Method  string          `json:"method"`
				Params  json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			if f.Dropped {
				t.Skip("the hook sends nothing for this payload")
			}
			h := newHarness(t, Options{})
			h.panes.add(Pane{SurfaceID: 7, WorkspaceID: 2, Workspace: 1, Name: "agent", PID: 0})
			ack, err := h.send(f.Method, string(f.Params))
			if err != nil {
				t.Fatalf("%s %s: %v", f.Method, f.Params, err)
			}
			if ack.SurfaceID == nil || *ack.SurfaceID != 7 {
				t.Errorf("%s landed in %v, want pane 7", f.Method, ack.SurfaceID)
			}
		})
	}
}
