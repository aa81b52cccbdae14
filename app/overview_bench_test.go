//go:build !windows

package app

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/workspace"
)

// BenchmarkOverviewRefresh is the UI goroutine's cost of one update of
// an open agents overview listing 100 agents (one agent changed state;
// every row is rebuilt). At 60 frames a second a frame has 16.7 ms.
func BenchmarkOverviewRefresh(b *testing.B) {
	a := test.NewApp()
	defer a.Quit()
	s := &shell{a: a, w: a.NewWindow("bench"), side: newSidebar(func(int) {}, func(uint64) {}, func() {}, func() {}, "")}
	snap := &snapshot{Open: map[uint64]uint64{}, Workspaces: []workspace.WorkspaceInfo{{ID: 1, Title: "fleet"}}}
	cwd := b.TempDir()
	for i := range 100 {
		id := uint64(i + 1)
		snap.Surfaces = append(snap.Surfaces, workspace.SurfaceInfo{ID: id, WorkspaceID: 1, Name: fmt.Sprintf("agent-%d", i), Cwd: &cwd})
		snap.Open[id] = 1
		st := stateThinking
		if i%5 == 0 {
			st = stateWaiting
		}
		s.agents.apply(bus.AgentState{SurfaceID: id, Tool: "claude", PID: 1000 + i, State: st, Hooked: true, Message: "Allow Bash to run the tests?"})
	}
	s.snap = snap
	s.comp = &composer{}
	// The size the GUI benchmark's window has, so the overview shows as
	// many rows as there (a tiny window would show none to refill).
	s.area = newSplitArea(func([]int, []float64) {})
	s.center = container.NewStack(s.area)
	s.w.SetContent(container.NewBorder(nil, nil, s.side.root, nil, s.center))
	s.w.Resize(fyne.NewSize(1280, 800))
	s.mu.Lock()
	s.openOverviewLocked()
	s.mu.Unlock()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		st := stateThinking
		if i%2 == 0 {
			st = stateFinished
		}
		s.mu.Lock()
		s.agents.apply(bus.AgentState{SurfaceID: 2, Tool: "claude", PID: 1001, State: st, Hooked: true, LastResult: "done"})
		s.refreshOverviewLocked(0)
		s.mu.Unlock()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	s.mu.Lock()
	s.closeOverlaysLocked()
	s.mu.Unlock()
}
