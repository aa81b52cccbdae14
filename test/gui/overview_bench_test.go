//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// overviewAgents is how many agents the overview lists in
// BenchmarkOverviewFlood, and overviewUpdateEvery how often one of them
// changes state during the flood.
const (
	overviewAgents      = 100
	overviewUpdateEvery = 50 * time.Millisecond
	overviewFloodBytes  = 40_000_000
)

// floodFPS cats file into pane id and returns the frame rate the pane's
// widget reported during the flood (median of its 1 s windows wholly
// inside the flood; the whole flood's average when none is).
func (a *app) floodFPS(id, file string, n int) float64 {
	from := a.log.count()
	t0 := time.Now()
	took := a.catFlood(id, file, n)
	t1 := t0.Add(took)
	time.Sleep(2 * time.Second) // the widget reports a window a second after it
	lines, _ := a.log.snapshot(from)
	var fps []float64
	frames := 0
	for _, p := range probes(lines) {
		if p.at.Before(t0) || p.at.After(t1.Add(1100*time.Millisecond)) {
			continue
		}
		frames += p.frames
		if p.at.Add(-time.Second).After(t0) && !p.at.After(t1) {
			fps = append(fps, p.fps)
		}
	}
	if len(fps) == 0 {
		return float64(frames) / took.Seconds()
	}
	return slices.Sorted(slices.Values(fps))[len(fps)/2]
}

// BenchmarkOverviewFlood measures the window's frame rate (the flooding
// pane's, from its render probe) while the agents overview lists 100
// agents, one of which changes state every 50 ms, and another pane
// floods: first with neither the overview nor updates (the baseline),
// then with the updates, then with the overview open and no updates, then
// with both.
// The target is 30 fps.
func BenchmarkOverviewFlood(b *testing.B) {
	need(b)
	dir := tempDir(b)
	file := filepath.Join(dir, "sgr.txt")
	if err := os.WriteFile(file, sgrData(overviewFloodBytes), 0o644); err != nil {
		b.Fatal(err)
	}
	x, err := startX(benchScreenW, benchScreenH)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(x.stop)
	for range b.N {
		a := startApp(b, x, "PANEFLOW_RENDER_PROBE=1")
		id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
		a.waitOutput(id, promptRe)
		// 100 agent panes in two more workspaces (64 panes at most in one).
		var agents []uint64
		for w := range 2 {
			var panes []map[string]any
			for range overviewAgents / 2 {
				panes = append(panes, map[string]any{"command": "exec sleep 100000"})
			}
			var res struct {
				SurfaceIDs []uint64 `json:"surface_ids"`
			}
			a.rpc(&res, "workspace.up", map[string]any{"name": fmt.Sprintf("fleet-%d", w), "layout": "tiled", "panes": panes})
			agents = append(agents, res.SurfaceIDs...)
		}
		a.rpc(nil, "workspace.select", map[string]any{"index": 0})
		for i, sid := range agents {
			a.rpc(nil, "ai.session_start", map[string]any{"surface_id": sid, "tool": "claude"})
			if i%5 == 0 {
				a.rpc(nil, "ai.notification", map[string]any{"surface_id": sid, "tool": "claude", "message": "Allow Bash to run the tests?"})
			} else {
				a.rpc(nil, "ai.prompt_submit", map[string]any{"surface_id": sid, "tool": "claude"})
			}
		}
		// The window's own size (resizeTo's fixed waits fail on a loaded
		// machine, and the ratio below does not need a given size).
		cols, rows := a.paneSize(id, 1)
		base := a.floodFPS(id, file, 1)
		updates := 0
		// startUpdates makes one agent change state every
		// overviewUpdateEvery until stop, which returns how many did.
		startUpdates := func() (stop func() int) {
			done := make(chan struct{})
			var wg sync.WaitGroup
			n := 0
			wg.Go(func() {
				tick := time.NewTicker(overviewUpdateEvery)
				defer tick.Stop()
				for i := 0; ; i++ {
					select {
					case <-done:
						return
					case <-tick.C:
					}
					sid := agents[(i*7)%len(agents)]
					method := "ai.stop"
					if i%2 == 1 {
						method = "ai.prompt_submit"
					}
					if _, err := a.tryRPC(method, map[string]any{"surface_id": sid, "tool": "claude"}); err == nil {
						n++
					}
				}
			})
			return func() int { close(done); wg.Wait(); return n }
		}
		stopUpdates := startUpdates()
		closedUpdating := a.floodFPS(id, file, 2)
		updates += stopUpdates()

		g := a.geometry()
		centre := image.Rect(g.W/4, g.H/4, g.W*3/4, g.H*3/4)
		before := a.screenshot("before-overview")
		a.xdo("windowfocus", "--sync", a.win)
		a.xdo("key", "ctrl+shift+a")
		a.eventually("the overview on screen", func() (bool, string) {
			n := changed(before, a.screenshot("overview"), centre, 0)
			return n > 5000, fmt.Sprintf("%d pixels changed in the centre", n)
		})
		openQuiet := a.floodFPS(id, file, 3)
		stopUpdates = startUpdates()
		open := a.floodFPS(id, file, 4)
		updates += stopUpdates()
		a.screenshot("overview-after")
		fmt.Printf("\nOverviewFlood (%d agents, one update every %v, %d updates; SGR %d MB into the %dx%d pane)\n",
			overviewAgents, overviewUpdateEvery, updates, overviewFloodBytes/1_000_000, cols, rows)
		fmt.Printf("  fps, overview closed, no agent updates  %.1f\n  fps, overview closed, agents updating   %.1f\n  fps, overview open, no agent updates    %.1f\n  fps, overview open, agents updating     %.1f   (target ≥ %d: %s)\n",
			base, closedUpdating, openQuiet, open, targetFPS, map[bool]string{true: "ok", false: "MISS"}[open >= targetFPS])
		b.ReportMetric(base, "fps-closed")
		b.ReportMetric(closedUpdating, "fps-closed-updating")
		b.ReportMetric(openQuiet, "fps-overview-quiet")
		b.ReportMetric(open, "fps-overview")
		a.stop()
	}
}
