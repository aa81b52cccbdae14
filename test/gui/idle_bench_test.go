//go:build linux

package gui

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idleFleetFor is how long BenchmarkIdleFleet measures; it reports the
// CPU per idleFor.
const idleFleetFor = 4 * idleFor

// schedCPU is the CPU time pid's threads have run, to the nanosecond:
// the sum of their /proc/PID/task/TID/schedstat run times (procCPU counts
// in clock ticks of 10 ms, too coarse for an idle window).
func schedCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			continue
		}
		ns, _ := strconv.ParseInt(f[0], 10, 64)
		sum += time.Duration(ns)
	}
	return sum
}

// BenchmarkIdleFleet measures what an idle window costs with many panes:
// one pane shown, the 100 agent panes of startFleet in two other
// workspaces, nothing changing, the CPU per idleFor (measured over
// idleFleetFor, thread by thread to the nanosecond) of the window
// attached to a server (startApp; the server's own CPU beside it) and of
// the window hosting its panes (--embedded), one after the other in one
// run (issue 26's target: an attached window with 100 panes idles at
// ≤ 50 ms per 5 s, as the embedded one does).
func BenchmarkIdleFleet(b *testing.B) {
	need(b)
	x := benchX(b)
	for range b.N {
		type row struct {
			name           string
			window, server time.Duration
		}
		var rows []row
		for _, m := range []struct {
			name  string
			start func(testing.TB, *xserver, ...string) *app
		}{{"embedded", startEmbedded}, {"attached", startApp}} {
			a := m.start(b, x)
			a.waitOutput(strconv.FormatUint(a.ls().Surfaces[0].ID, 10), promptRe)
			a.startFleet()
			time.Sleep(2 * time.Second) // the last frames and the reader's tick settle
			cpu := func() (w, s time.Duration) {
				w = schedCPU(b, a.pid())
				if a.server != nil {
					s = schedCPU(b, a.server.pid())
				}
				return w, s
			}
			w0, s0 := cpu()
			time.Sleep(idleFleetFor)
			w1, s1 := cpu()
			per := idleFleetFor / idleFor
			rows = append(rows, row{m.name, (w1 - w0) / per, (s1 - s0) / per})
			a.stop()
			if a.server != nil {
				a.server.stop()
			}
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		fmt.Printf("\nIdleFleet (one pane shown, %d agent panes in 2 other workspaces; CPU per %v idle over %v, target ≤ %v for the window)\n",
			overviewAgents, idleFor, idleFleetFor, targetIdleCPU)
		fmt.Printf("  %-10s %10s %10s\n", "window", "window-ms", "server-ms")
		for _, r := range rows {
			srv := "-"
			if r.name == "attached" {
				srv = fmt.Sprintf("%.1f", ms(r.server))
			}
			fmt.Printf("  %-10s %10.1f %10s\n", r.name, ms(r.window), srv)
			b.ReportMetric(ms(r.window), "idle-cpu-ms-"+r.name)
		}
		b.ReportMetric(ms(rows[1].server), "idle-cpu-ms-server")
	}
}
