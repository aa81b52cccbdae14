//go:build !windows

package app

import (
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
)

// BenchmarkOverviewRefresh is the UI goroutine's cost of one update of
// an open agents overview listing 100 agents (one agent changed state;
// every row is rebuilt). At 60 frames a second a frame has 16.7 ms.
func BenchmarkOverviewRefresh(b *testing.B) {
	// The size the GUI benchmark's window has (fleetShell's), so the
	// overview shows as many rows as there (a tiny window would show none
	// to refill).
	s := fleetShell(b, 100)
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
