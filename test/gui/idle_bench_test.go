//go:build linux

package gui

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// BenchmarkIdleFleet measures what an idle window costs with many panes:
// one pane shown, the 100 agent panes of startFleet in two other
// workspaces, nothing changing, the CPU over idleFor of the window
// attached to a server (startApp; the server's own CPU beside it) and of
// the window hosting its panes (--embedded), one after the other in one
// run (issue 26's target: an attached window with 100 panes idles at
// ≤ 50 ms per 5 s, as the embedded one does).
func BenchmarkIdleFleet(b *testing.B) {
	need(b)
	x, err := startX(benchScreenW, benchScreenH)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(x.stop)
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
				w = procCPU(b, a.pid())
				if a.server != nil {
					s = procCPU(b, a.server.pid())
				}
				return w, s
			}
			w0, s0 := cpu()
			time.Sleep(idleFor)
			w1, s1 := cpu()
			rows = append(rows, row{m.name, w1 - w0, s1 - s0})
			a.stop()
			if a.server != nil {
				a.server.stop()
			}
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		fmt.Printf("\nIdleFleet (one pane shown, %d agent panes in 2 other workspaces; CPU over %v idle, target ≤ %v for the window)\n",
			overviewAgents, idleFor, targetIdleCPU)
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
