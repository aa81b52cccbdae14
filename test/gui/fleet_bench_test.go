//go:build linux

package gui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fleetPhase is what BenchmarkFleetFlood measured during one flood.
type fleetPhase struct {
	fps         float64 // median of the 1 s windows wholly inside the flood
	frames      int     // frames drawn during the flood
	cpu         time.Duration
	took        time.Duration
	cpuPerFrame float64 // the app's CPU ms per frame drawn (parsing included)
	// uiPerFrame and glPerFrame are the CPU ms per frame of the UI
	// thread (Fyne's loop and all work posted to it) and of llvmpipe's
	// shading threads: what a frame costs, whatever the machine's load.
	uiPerFrame, glPerFrame float64
}

// threadCPU is the CPU time of pid's main thread (the UI thread: the
// desktop driver locks the main goroutine to it) and of its llvmpipe
// threads.
func threadCPU(t testing.TB, pid int) (ui, gl time.Duration) {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		comm, err := os.ReadFile(filepath.Join(dir, e.Name(), "comm"))
		if err != nil {
			continue // the thread ended
		}
		tid, _ := strconv.Atoi(e.Name())
		switch {
		case tid == pid:
			ui = procTaskCPU(t, pid, tid)
		case strings.HasPrefix(string(comm), "llvmpipe"):
			gl += procTaskCPU(t, pid, tid)
		}
	}
	return ui, gl
}

// procTaskCPU is the user+system CPU time of thread tid of pid (as
// procCPU), 0 when it ended.
func procTaskCPU(t testing.TB, pid, tid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// fleetFlood cats file into pane id like floodFPS and also returns the
// app's CPU time over the flood. With PANEFLOW_BENCH_PERF set to a
// directory, `perf record -g` samples the app during the flood into
// <dir>/<name>.data.
func (a *app) fleetFlood(id, file string, n int, name string) fleetPhase {
	a.t.Helper()
	stopPerf := a.perfRecord(name)
	from := a.log.count()
	cpu0 := procCPU(a.t, a.pid())
	ui0, gl0 := threadCPU(a.t, a.pid())
	t0 := time.Now()
	took := a.catFlood(id, file, n)
	cpu := procCPU(a.t, a.pid()) - cpu0
	ui1, gl1 := threadCPU(a.t, a.pid())
	stopPerf()
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
	ph := fleetPhase{frames: frames, cpu: cpu, took: took, fps: float64(frames) / took.Seconds()}
	if len(fps) > 0 {
		ph.fps = slices.Sorted(slices.Values(fps))[len(fps)/2]
	}
	if frames > 0 {
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(frames) }
		ph.cpuPerFrame, ph.uiPerFrame, ph.glPerFrame = ms(cpu), ms(ui1-ui0), ms(gl1-gl0)
	}
	return ph
}

// perfRecord starts `perf record -g` on the app into
// $PANEFLOW_BENCH_PERF/<name>.data when that variable names a directory;
// the function it returns stops it.
func (a *app) perfRecord(name string) (stop func()) {
	dir := os.Getenv("PANEFLOW_BENCH_PERF")
	if dir == "" {
		return func() {}
	}
	perf := exec.Command("perf", "record", "-F", "499", "-g", "-o", filepath.Join(dir, name+".data"), "-p", strconv.Itoa(a.pid()))
	perf.Stdout, perf.Stderr = os.Stderr, os.Stderr
	if err := perf.Start(); err != nil {
		a.t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // perf attaches
	return func() {
		perf.Process.Signal(syscall.SIGINT)
		perf.Wait()
	}
}

// fleetIdleCPU is the app's CPU time over idleFor with nothing changing.
func (a *app) fleetIdleCPU(name string) time.Duration {
	time.Sleep(2 * time.Second) // the last frames and the reader's tick settle
	stopPerf := a.perfRecord(name)
	defer stopPerf()
	cpu0 := procCPU(a.t, a.pid())
	time.Sleep(idleFor)
	return procCPU(a.t, a.pid()) - cpu0
}

// BenchmarkFleetFlood measures what 100 agent panes in workspaces that
// are not shown cost the window while a pane of the shown workspace
// floods (the overview closed): the flood's frame rate and the app's CPU
// per frame with no other pane (the control, same window, same run), with
// the 100 idle agent panes, and with one of those agents changing state
// every 50 ms; and the app's idle CPU over 5 s with and without them
// (issue 17's target: ≤ 50 ms). It prints the phases and the ratios to
// the control, which a loaded machine affects less than the rates.
func BenchmarkFleetFlood(b *testing.B) {
	x, file := startFloodBench(b)
	for range b.N {
		a := startEmbedded(b, x, "PANEFLOW_RENDER_PROBE=1")
		id := strconv.FormatUint(a.ls().Surfaces[0].ID, 10)
		a.waitOutput(id, promptRe)
		cols, rows := a.paneSize(id, 1)
		idleAlone := a.fleetIdleCPU("idle-alone")
		alone := a.fleetFlood(id, file, 1, "alone")

		agents := a.startFleet()
		idleFleet := a.fleetIdleCPU("idle-fleet")
		fleet := a.fleetFlood(id, file, 2, "fleet")

		stopUpdates := a.agentUpdates(agents)
		updating := a.fleetFlood(id, file, 3, "updating")
		updates := stopUpdates()

		fmt.Printf("\nFleetFlood (SGR %d MB into the %dx%d pane of the shown workspace; %d agent panes in 2 other workspaces; %d updates, one every %v)\n",
			overviewFloodBytes/1_000_000, cols, rows, overviewAgents, updates, overviewUpdateEvery)
		fmt.Printf("  %-36s %6s %7s %8s %10s %9s %9s %7s\n", "phase", "fps", "frames", "flood-s", "cpu-ms/fr", "ui-ms/fr", "gl-ms/fr", "fps/alone")
		for _, r := range []struct {
			name string
			p    fleetPhase
		}{{"one pane, no fleet (control)", alone}, {"100 idle agents elsewhere", fleet}, {"100 agents elsewhere, updating", updating}} {
			fmt.Printf("  %-36s %6.1f %7d %8.2f %10.2f %9.2f %9.2f %7.2f\n", r.name, r.p.fps, r.p.frames, r.p.took.Seconds(), r.p.cpuPerFrame, r.p.uiPerFrame, r.p.glPerFrame, r.p.fps/alone.fps)
		}
		fmt.Printf("  idle CPU per %v: one pane %.1f ms, with the 100 agent panes %.1f ms (target ≤ %v)\n",
			idleFor, float64(idleAlone.Microseconds())/1000, float64(idleFleet.Microseconds())/1000, targetIdleCPU)
		b.ReportMetric(alone.fps, "fps-alone")
		b.ReportMetric(fleet.fps, "fps-fleet")
		b.ReportMetric(updating.fps, "fps-fleet-updating")
		b.ReportMetric(fleet.fps/alone.fps, "fleet/alone")
		b.ReportMetric(updating.fps/alone.fps, "updating/alone")
		b.ReportMetric(float64(idleFleet.Microseconds())/1000, "idle-cpu-ms-fleet")
		a.stop()
	}
}

// agentUpdates makes one of agents change state (ai.stop and
// ai.prompt_submit in turn) every overviewUpdateEvery until the returned
// stop is called, which returns how many updates the server took.
func (a *app) agentUpdates(agents []uint64) (stop func() int) {
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
			method := "ai.stop"
			if i%2 == 1 {
				method = "ai.prompt_submit"
			}
			if _, err := a.tryRPC(method, map[string]any{"surface_id": agents[(i*7)%len(agents)], "tool": "claude"}); err == nil {
				n++
			}
		}
	})
	return func() int { close(done); wg.Wait(); return n }
}

// startFleet opens overviewAgents panes running sleep in two workspaces
// besides the shown one (64 panes at most in one), selects the first
// workspace again and makes each pane an agent that is thinking, or,
// every fifth, waiting for an answer; it returns their surface IDs.
func (a *app) startFleet() []uint64 {
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
	return agents
}

// startFloodBench is the set-up of the flood benchmarks: the SGR file
// to cat (overviewFloodBytes) and an X server of the benchmarks' screen
// size, stopped when b ends.
func startFloodBench(b *testing.B) (*xserver, string) {
	need(b)
	file := filepath.Join(tempDir(b), "sgr.txt")
	if err := os.WriteFile(file, sgrData(overviewFloodBytes), 0o644); err != nil {
		b.Fatal(err)
	}
	x := benchX(b)
	return x, file
}
