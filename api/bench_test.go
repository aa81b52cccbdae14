//go:build !windows

package api

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paneflow-go/paneflow/workspace"
)

// BenchmarkSurfaceRead reads 200 lines from a pane whose scrollback holds
// 10,000 lines of 100 characters (the handler alone, no socket).
func BenchmarkSurfaceRead(b *testing.B) {
	e := newEnv(b, workspace.Options{Cols: 120, Rows: 50}, Options{}).withWorkspace(b.TempDir())
	sf := e.split(`i=1; while [ $i -le 10000 ]; do printf '%0100d\n' $i; i=$((i+1)); done; echo END; exec cat`)
	waitText(b, sf, "END")
	h := e.handlers["surface.read"]
	params := json.RawMessage(`{"surface_id":` + itoa(sf.ID()) + `,"lines":200}`)
	b.ResetTimer()
	for b.Loop() {
		if _, err := h(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}
