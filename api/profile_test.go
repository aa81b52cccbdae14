//go:build !windows

package api

import (
	"fmt"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// TestPaneProfiles: workspace.up's and surface.split's profile caps the
// pane's scrollback (cached 1 000 lines, review 2 000); a normal pane
// keeps the configured scrollback.
func TestPaneProfiles(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	const cmd = "seq 1 3000; echo all-printed; exec sleep 1000"
	var up struct {
		SurfaceIDs []uint64 `json:"surface_ids"`
	}
	e.ok("workspace.up", fmt.Sprintf(`{"panes":[{"command":%q,"profile":"cached"},{"command":%q,"profile":"normal"},{"command":%q}]}`, cmd, cmd, cmd), &up)
	var split proto.SurfaceSplitResult
	e.ok("surface.split", fmt.Sprintf(`{"direction":"vertical","surface_id":%d,"command":%q,"profile":"review"}`, up.SurfaceIDs[0], cmd), &split)
	ids := append(up.SurfaceIDs, split.SurfaceID)
	want := []func(int) bool{
		func(n int) bool { return n == 1000 },
		func(n int) bool { return n > 2000 },
		func(n int) bool { return n > 2000 },
		func(n int) bool { return n == 2000 },
	}
	for i, id := range ids {
		sf, ok := e.m.Surface(id)
		if !ok {
			t.Fatalf("pane %d is gone", id)
		}
		waitText(t, sf, "all-printed")
		if n := sf.Terminal().Emulator().HistoryLen(); !want[i](n) {
			t.Errorf("pane %d (#%d) keeps %d scrollback lines", id, i, n)
		}
	}
}
