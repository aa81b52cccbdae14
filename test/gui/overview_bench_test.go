//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"slices"
	"strconv"
	"strings"
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

// floodPhase is what one phase of BenchmarkOverviewFlood measured over
// its floods.
type floodPhase struct {
	fps     float64       // median frame rate of the probe's 1 s windows wholly inside a flood
	windows int           // how many such windows there were
	floods  int           // how many times the file was catted
	frames  float64       // frames drawn during the floods (windows straddling a flood's ends prorated)
	cpu     time.Duration // the app's CPU time (all its threads) during the floods
	ui      time.Duration // the part of cpu on the UI thread and Mesa's llvmpipe threads (uiCPU)
	took    time.Duration // the floods' wall time
	from    time.Time     // when the first flood started
	to      time.Time     // when the last flood ended
}

// cpuPerFrame is the app's CPU time per drawn frame, in milliseconds.
func (p floodPhase) cpuPerFrame() float64 {
	if p.frames == 0 {
		return 0
	}
	return p.cpu.Seconds() * 1000 / p.frames
}

// uiPerFrame is the CPU time per drawn frame of the UI thread and the
// software rasteriser, in milliseconds.
func (p floodPhase) uiPerFrame() float64 {
	if p.frames == 0 {
		return 0
	}
	return p.ui.Seconds() * 1000 / p.frames
}

// uiCPU is the CPU time pid's main thread (Fyne's UI and GL thread: the
// UI goroutine is locked to it) and its "llvmpipe-N" threads (Mesa's
// software rasteriser, which shades what the GL thread draws) have used:
// the cost of making and painting frames, apart from the terminal's
// reader and parser and the app's other goroutines. Threads that ended
// are not counted.
func uiCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", pid, tid))
		if err != nil {
			continue // ended meanwhile
		}
		if tid != pid && !strings.HasPrefix(string(comm), "llvmpipe") {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
		if err != nil {
			continue
		}
		sum += statCPU(string(data))
	}
	return sum
}

// Each phase of BenchmarkOverviewFlood floods until the probe has reported
// at least minPhaseWindows whole 1 s windows inside its floods, and at
// most maxPhaseFloods times.
const (
	minPhaseWindows = 3
	maxPhaseFloods  = 6
)

// floodPhase cats file into pane id until the pane's widget has reported
// minPhaseWindows 1 s windows wholly inside a flood, and returns their
// median frame rate with the app's CPU time per frame. It fails the
// benchmark when maxPhaseFloods floods give fewer windows: a flood
// shorter than a window has no rate to report (averaging its partial
// windows gave 110 fps once).
func (a *app) floodPhase(id, file string, n *int) floodPhase {
	a.t.Helper()
	var ph floodPhase
	var fps []float64
	// A flood that ends within a few seconds (the pane's view hidden
	// behind the open overview only parses) rarely holds a whole window
	// of a probe that reports every second whatever the flood does (the
	// overview's): the next floods cat the file as many times as make
	// them last about 3 s.
	reps := 1
	for ph.floods < maxPhaseFloods && len(fps) < minPhaseWindows {
		from := a.log.count()
		cpu0, ui0 := procCPU(a.t, a.pid()), uiCPU(a.t, a.pid())
		t0 := time.Now()
		*n++
		took := a.catFlood(id, strings.TrimSpace(strings.Repeat(file+" ", reps)), *n)
		if took < 3*time.Second {
			reps = min(reps*int(3*time.Second/max(took, 100*time.Millisecond)+1), 30)
		}
		t1 := t0.Add(took)
		ph.cpu += procCPU(a.t, a.pid()) - cpu0
		ph.ui += uiCPU(a.t, a.pid()) - ui0
		if ph.floods == 0 {
			ph.from = t0
		}
		ph.to = t1
		ph.floods++
		ph.took += took
		time.Sleep(2 * time.Second) // the widget reports a window a second after it starts
		lines, _ := a.log.snapshot(from)
		// Only the flooding pane's windows (the agents' panes report
		// theirs too when they draw), or the open agents overview's: it
		// stands in the split area's place, the flooding pane's view is
		// hidden, and the overview's probe counts the frames the window
		// paints (the app's frameProbe).
		lines = slices.DeleteFunc(lines, func(l logLine) bool {
			return !strings.HasPrefix(l.text, "render-probe pane="+id+" ") &&
				!strings.HasPrefix(l.text, "render-probe pane=overview ")
		})
		for _, p := range probes(lines) {
			if p.frames == 0 || p.fps <= 0 {
				continue
			}
			// The window p reports is [start, p.at], start =
			// p.at - frames/fps (the probe divides by its own clock).
			start := p.at.Add(-time.Duration(float64(p.frames) / p.fps * float64(time.Second)))
			if start.Before(t0) || p.at.After(t1) {
				// Straddling an end: count its frames inside [t0, t1].
				end, begin := p.at, start
				if end.After(t1) {
					end = t1
				}
				if begin.Before(t0) {
					begin = t0
				}
				in := end.Sub(begin)
				if in > 0 {
					ph.frames += float64(p.frames) * in.Seconds() / p.at.Sub(start).Seconds()
				}
				continue
			}
			ph.frames += float64(p.frames)
			fps = append(fps, p.fps)
		}
	}
	if len(fps) < minPhaseWindows {
		a.t.Fatalf("%d floods (%v) gave %d whole 1 s probe windows, want %d: make overviewFloodBytes larger",
			ph.floods, ph.took.Round(time.Millisecond), len(fps), minPhaseWindows)
	}
	ph.windows = len(fps)
	ph.fps = slices.Sorted(slices.Values(fps))[len(fps)/2]
	return ph
}

// BenchmarkOverviewFlood measures the window's frame rate (the flooding
// pane's, from its render probe) while the agents overview lists 100
// agents, one of which changes state every 50 ms, and another pane
// floods: first with neither the overview nor updates (the baseline),
// then with the updates, then with the overview open and no updates, then
// with both. The target is 30 fps.
//
// A frame is one the flooding pane drew (its probe's count): the frames
// that show new output. With the overview open the pane is hidden (the
// overview stands in the split area's place; an older build showed it as
// a popup over the drawing pane): a frame is then one the window painted,
// counted by the overview's probe, which asks for every frame it can get. Each phase prints the median of its whole 1 s
// windows, the app's CPU time per frame (all threads: parser, bus reader,
// UI, rasteriser) and the UI thread's and Mesa's llvmpipe threads' share
// of it (what making and painting a frame costs, which a loaded machine
// changes less than the frame rate), and the phase's wall-clock span in
// Unix seconds, for `perf report --time` of a `perf record -k
// CLOCK_REALTIME -p <app pid>`.
func BenchmarkOverviewFlood(b *testing.B) {
	x, file := startFloodBench(b)
	for range b.N {
		a := startEmbedded(b, x, "PANEFLOW_RENDER_PROBE=1")
		id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
		a.waitOutput(id, promptRe)
		agents := a.startFleet()
		// The window's own size (resizeTo's fixed waits fail on a loaded
		// machine, and the ratio below does not need a given size).
		cols, rows := a.paneSize(id, 1)
		floods := 0
		base := a.floodPhase(id, file, &floods)
		updates := 0
		stopUpdates := a.agentUpdates(agents)
		closedUpdating := a.floodPhase(id, file, &floods)
		updates += stopUpdates()

		g := a.geometry()
		centre := image.Rect(g.W/4, g.H/4, g.W*3/4, g.H*3/4)
		before := a.screenshot("before-overview")
		a.xdo("windowfocus", "--sync", a.win)
		a.xdo("key", "ctrl+shift+a")
		a.waitChange("the overview on screen", "overview", before, centre, 5000)
		openQuiet := a.floodPhase(id, file, &floods)
		stopUpdates = a.agentUpdates(agents)
		open := a.floodPhase(id, file, &floods)
		updates += stopUpdates()
		a.screenshot("overview-after")
		fmt.Printf("\nOverviewFlood (%d agents, one update every %v, %d updates; SGR %d MB into the %dx%d pane)\n",
			overviewAgents, overviewUpdateEvery, updates, overviewFloodBytes/1_000_000, cols, rows)
		fmt.Printf("  %-38s %6s %8s %7s %9s %9s %6s  %s\n", "phase", "fps", "windows", "floods", "cpu-ms/fr", "ui-ms/fr", "cpu%", "unix time (perf --time)")
		for _, ph := range []struct {
			name string
			p    floodPhase
		}{
			{"overview closed, no agent updates", base}, {"overview closed, agents updating", closedUpdating},
			{"overview open, no agent updates", openQuiet}, {"overview open, agents updating", open},
		} {
			fmt.Printf("  %-38s %6.1f %8d %7d %9.1f %9.1f %6.0f  %.3f,%.3f\n", ph.name, ph.p.fps, ph.p.windows, ph.p.floods,
				ph.p.cpuPerFrame(), ph.p.uiPerFrame(), 100*ph.p.cpu.Seconds()/ph.p.took.Seconds(),
				float64(ph.p.from.UnixMilli())/1000, float64(ph.p.to.UnixMilli())/1000)
		}
		fmt.Printf("  target: ≥ %d fps with the overview open and agents updating: %s\n",
			targetFPS, map[bool]string{true: "ok", false: "MISS"}[open.fps >= targetFPS])
		b.ReportMetric(base.fps, "fps-closed")
		b.ReportMetric(closedUpdating.fps, "fps-closed-updating")
		b.ReportMetric(openQuiet.fps, "fps-overview-quiet")
		b.ReportMetric(open.fps, "fps-overview")
		b.ReportMetric(open.cpuPerFrame(), "cpu-ms/frame-overview")
		b.ReportMetric(open.uiPerFrame(), "ui-ms/frame-overview")
		a.stop()
	}
}

// statCPU is the user+system CPU time in s, the text of a /proc stat file
// (a thread's, here; procCPU reads the process's the same way).
func statCPU(s string) time.Duration {
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// utime and stime, fields 14 and 15 of stat, are 11 and 12 after the
	// command; clock ticks are 100 a second on Linux.
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
