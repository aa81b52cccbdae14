//go:build linux

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/test/internal/fleettest"
)

// Issue 25's fleet: fleetAgents agent panes, each with a real paneflow-mcp
// bridge holding its events.subscribe stream and a real paneflow-ai-hook
// firing fleetFrames frames, against one server.
const (
	fleetAgents = 200
	fleetFrames = 3
	// BenchmarkFleetPaced's agents fire fleetPacedFrames hooks each,
	// fleetPace apart.
	fleetPacedFrames = 8
	fleetPace        = 2 * time.Second
	// listEvery paces the surface.list probe.
	listEvery = 25 * time.Millisecond
)

// BenchmarkFleet times `paneflow ls` (a process start and surface.list,
// as a user types it) while 200 bridges hold their streams and 200
// agents' hooks fire at once (fleettest.FireHooks: each agent its own
// process starting its hooks, as agent CLIs do), and checks that no hook
// frame was refused or lost. Metrics: ls-p50-ms, ls-p99-ms, ls-calls (how
// many ls ran during the hooks), ls-cpu-ms (the CPU one of those ls used,
// its own threads, user and system, the mean), true-p50-ms and true-p99-ms (/bin/true
// started by the same loop, between the ls calls: the floor of any
// process start under that load), list-p50-ms and list-p99-ms
// (surface.list called every 25 ms meanwhile from this already running
// process: the server's answer time without a process start), idle-ls-p50-ms (ls with
// the bridges connected and no hooks firing); hooks-admitted (frames the
// server admitted, system.admission) and hooks-lost (frames fired that it
// never admitted: the target is 0; fleettest.Check fails the run on a
// refused frame or one a hook says it delivered that was not admitted),
// hooks-delivered and hooks-late (frames whose hook ran out of its 550 ms
// budget before it read the server's answer: counted, not failed; the
// server may still have admitted them, which hooks-lost tells); and where
// the CPU went while the hooks fired: storm-ms (the wall time of the
// hooks' run), server-cpu-ms, bridges-cpu-ms, children-cpu-ms (the
// processes this one started and waited for: the agents' shells, their
// hooks and the timed ls) and self-cpu-ms (this process: the timed
// starts and the surface.list loop). Paneflow only: tmux has no bridges
// or hooks.
func BenchmarkFleet(b *testing.B) { benchFleet(b, fleetFrames, 0, viaCommand, false) }

// BenchmarkFleetHTTP is BenchmarkFleet with the agents' hooks as Claude
// Code gets them from the launch shim when the server offers its
// http-hook endpoint (package hookhttp), and as opencode's launch plugin
// posts them: each agent posts its frames to the server's loopback
// endpoint over its own keep-alive connection (fleettest.FireHTTPPaced),
// and no hook process starts. hooks-admitted
// counts the frames the conductor ran (its turns), hooks-lost the frames
// posted that it did not run, hooks-late the posts not answered 200
// within the agent's hook timeout (fleettest.AgentHookTimeout: the run
// fails on any), hook-slowest-ms the longest a post waited.
func BenchmarkFleetHTTP(b *testing.B) { benchFleet(b, fleetFrames, 0, viaHTTP, false) }

// BenchmarkFleetPacedHTTP is BenchmarkFleetPaced with http hooks, as
// BenchmarkFleetHTTP.
func BenchmarkFleetPacedHTTP(b *testing.B) {
	benchFleet(b, fleetPacedFrames, fleetPace, viaHTTP, false)
}

// BenchmarkFleetMCP is BenchmarkFleet with the agents' hooks as Codex
// gets them from the launch shim when it runs our bridge: mcp_tool hooks,
// each a tools/call of the bridge's hook tool (proto.MCPHookTool) on the
// bridge the agent runs anyway (one per pane, run as in its pane), which
// forwards it to hooks.report (fleettest.FireMCPPaced); no hook process
// starts. Metrics as BenchmarkFleetHTTP (hooks-late: calls not answered
// within the agent's hook timeout; hook-slowest-ms: the longest call).
func BenchmarkFleetMCP(b *testing.B) { benchFleet(b, fleetFrames, 0, viaMCP, false) }

// BenchmarkFleetPacedMCP is BenchmarkFleetPaced with mcp_tool hooks, as
// BenchmarkFleetMCP.
func BenchmarkFleetPacedMCP(b *testing.B) {
	benchFleet(b, fleetPacedFrames, fleetPace, viaMCP, false)
}

// BenchmarkFleetPacedHTTPOwnCPU is BenchmarkFleetPacedHTTP with the timed
// loop on a CPU of its own: the thread that starts the timed ls and
// /bin/true processes (which inherit its CPU mask) on the first CPU, the
// rest of this process (the agents' posts, the surface.list probe) and the
// bridges on the second; the server may run on both, as may whatever else
// runs on the machine. It separates what the server does to ls from the
// simulated fleet's own CPU: on a 2-core machine the standard rows' timed
// loop and load generator compete for the same two cores as the server.
// The standard rows stay the target's measure; these are a diagnostic.
func BenchmarkFleetPacedHTTPOwnCPU(b *testing.B) {
	benchFleet(b, fleetPacedFrames, fleetPace, viaHTTP, true)
}

// BenchmarkFleetPacedMCPOwnCPU is BenchmarkFleetPacedMCP split as
// BenchmarkFleetPacedHTTPOwnCPU.
func BenchmarkFleetPacedMCPOwnCPU(b *testing.B) {
	benchFleet(b, fleetPacedFrames, fleetPace, viaMCP, true)
}

// How a fleet's agents deliver their hook frames.
const (
	viaCommand = iota // a paneflow-ai-hook process per frame
	viaHTTP           // Claude Code's http hooks
	viaMCP            // Codex's mcp_tool hooks through its bridge
)

// BenchmarkFleetPaced is BenchmarkFleet with the 200 agents working
// rather than firing at once: each fires a hook every fleetPace
// (fleetPacedFrames of them), the first ones spread over the first
// fleetPace, about 100 hooks a second in all. A model's step takes
// seconds, so a working agent's hooks (prompt, each tool call's pre and
// post, stop) come about that often; BenchmarkFleet, all 200 agents'
// hooks at the same instant, is the target's worst case. Same metrics.
func BenchmarkFleetPaced(b *testing.B) {
	benchFleet(b, fleetPacedFrames, fleetPace, viaCommand, false)
}

// benchFleet is BenchmarkFleet with frames hooks per agent, pace apart
// (0: back to back, all agents at once), delivered via (viaCommand …);
// with own, the timed loop on a CPU of its own (…OwnCPU).
func benchFleet(b *testing.B, frames int, pace time.Duration, via int, own bool) {
	overHTTP := via != viaCommand // process-less: checked by the turns run
	pf := startPaneflow(b)
	mcp := siblingBin(b, "paneflow-mcp", "./cmd/paneflow-mcp")
	hook := siblingBin(b, "paneflow-ai-hook", "./cmd/paneflow-ai-hook")
	panes, err := fleettest.NewPanes(pf.sock, fleetAgents)
	if err != nil {
		b.Fatal(err)
	}
	start := fleettest.StartBridges
	if via == viaMCP {
		start = func(bin string, env []string, sock string, _ int) (*fleettest.Bridges, error) {
			return fleettest.StartPaneBridges(bin, env, sock, panes)
		}
	}
	bridges, err := start(mcp, pf.env, pf.sock, fleetAgents)
	if err != nil {
		b.Fatal(err)
	}
	defer bridges.Stop()
	// timeLs runs one `paneflow ls`: its wall time and the CPU it used.
	timeLs := func() (wall, cpu float64, err error) {
		start := time.Now()
		cmd := pf.cli("ls")
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, 0, fmt.Errorf("paneflow ls: %v\n%s", err, out)
		}
		wall = ms(time.Since(start))
		return wall, ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()), nil
	}
	var endpoint proto.HooksEndpointResult
	if via == viaHTTP {
		if err := fleettest.Client(pf.sock).Caller.Call(context.Background(), proto.MethodHooksEndpoint, nil, &endpoint); err != nil {
			b.Fatal(err)
		}
	}
	var idle []float64
	for range 20 {
		d, _, err := timeLs()
		if err != nil {
			b.Fatal(err)
		}
		idle = append(idle, d)
	}
	var split *ownCPU
	if own {
		if split, err = splitCPUs(); err != nil {
			b.Skip(err)
		}
		b.Cleanup(func() { pinProcess(os.Getpid(), &split.all) })
		for _, pid := range append(bridges.Pids(), os.Getpid()) {
			if err := pinProcess(pid, &split.load); err != nil {
				b.Fatal(err)
			}
		}
	}
	var busy, busyCPU, list, floor []float64
	delivered, late, fired := 0, 0, 0
	var slowest time.Duration
	var admitted uint64
	var storm time.Duration
	var used cpuUse
	for range b.N {
		before, err := fleettest.Measure(pf.sock, panes)
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan struct{})
		lsErr, listErr := make(chan error, 1), make(chan error, 1)
		var round, roundCPU, listRound, trueRound []float64
		// surface.list from this running process, on a fresh connection
		// per call, every listEvery: the server's own answer time during
		// the storm, without the exec of a new process that `paneflow
		// ls` waits for among 200 starting hooks. Paced, because calls
		// back to back (4 ms of server CPU each with 200 panes) were
		// a load of their own, competing with the ls being timed.
		go func() {
			defer close(listErr)
			c := fleettest.Client(pf.sock)
			tick := time.NewTicker(listEvery)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
				}
				start := time.Now()
				var raw json.RawMessage
				if err := c.Caller.Call(context.Background(), proto.MethodSurfaceList, struct{}{}, &raw); err != nil {
					listErr <- fmt.Errorf("surface.list: %v", err)
					return
				}
				listRound = append(listRound, ms(time.Since(start)))
			}
		}()
		go func() {
			defer close(lsErr)
			if split != nil {
				// This thread only; never unlocked, so it ends with
				// the goroutine. Threads the runtime starts meanwhile
				// come from a thread on the load's CPU (LockOSThread's
				// template thread), not from this one.
				runtime.LockOSThread()
				if err := unix.SchedSetaffinity(0, &split.timed); err != nil {
					lsErr <- err
					return
				}
			}
			for {
				select {
				case <-done:
					return
				default:
				}
				d, c, err := timeLs()
				if err != nil {
					lsErr <- err
					return
				}
				round = append(round, d)
				roundCPU = append(roundCPU, c)
				start := time.Now()
				if out, err := exec.Command("/bin/true").CombinedOutput(); err != nil {
					lsErr <- fmt.Errorf("/bin/true: %v\n%s", err, out)
					return
				}
				trueRound = append(trueRound, ms(time.Since(start)))
			}
		}()
		cpu0, err := fleetCPU(pf.cmd.Process.Pid, bridges.Pids())
		if err != nil {
			b.Fatal(err)
		}
		stormStart := time.Now()
		var h fleettest.Hooks
		switch via {
		case viaHTTP:
			h = fleettest.FireHTTPPaced(endpoint, panes, frames, pace)
		case viaMCP:
			h = bridges.FireMCPPaced(frames, pace)
		default:
			h, err = fleettest.FireHooksPaced(hook, pf.env, b.TempDir(), panes, frames, pace)
		}
		storm += time.Since(stormStart)
		close(done)
		cpu1, cerr := fleetCPU(pf.cmd.Process.Pid, bridges.Pids())
		if cerr != nil {
			b.Fatal(cerr)
		}
		used.add(cpu1.sub(cpu0))
		if lerr := <-lsErr; lerr != nil {
			b.Fatal(lerr)
		}
		if lerr := <-listErr; lerr != nil {
			b.Fatal(lerr)
		}
		list = append(list, listRound...)
		if err != nil {
			b.Fatal(err)
		}
		busy = append(busy, round...)
		busyCPU = append(busyCPU, roundCPU...)
		floor = append(floor, trueRound...)
		var bad []string
		if overHTTP {
			var turns uint64
			bad, turns, err = fleettest.CheckTurns(pf.sock, panes, before, h)
			admitted += turns
		} else {
			bad, err = fleettest.Check(pf.sock, panes, before, h)
		}
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range bad {
			b.Error(s)
		}
		if !overHTTP {
			after, err := fleettest.GetAdmission(pf.sock)
			if err != nil {
				b.Fatal(err)
			}
			admitted += after.Hooks.Admitted - before.Admission.Hooks.Admitted
		}
		delivered += h.Total()
		fired += h.Fired
		late += len(h.Failed)
		slowest = max(slowest, h.Slowest)
	}
	if len(busy) == 0 {
		b.Fatal("no paneflow ls finished while the hooks fired")
	}
	b.ReportMetric(percentile(busy, 50), "ls-p50-ms")
	b.ReportMetric(percentile(busy, 99), "ls-p99-ms")
	b.ReportMetric(float64(len(busy)), "ls-calls")
	b.ReportMetric(mean(busyCPU), "ls-cpu-ms")
	if len(floor) > 0 {
		b.ReportMetric(percentile(floor, 50), "true-p50-ms")
		b.ReportMetric(percentile(floor, 99), "true-p99-ms")
	}
	if len(list) > 0 {
		b.ReportMetric(percentile(list, 50), "list-p50-ms")
		b.ReportMetric(percentile(list, 99), "list-p99-ms")
	}
	b.ReportMetric(percentile(idle, 50), "idle-ls-p50-ms")
	b.ReportMetric(float64(delivered), "hooks-delivered")
	b.ReportMetric(float64(late), "hooks-late")
	if overHTTP {
		b.ReportMetric(ms(slowest), "hook-slowest-ms")
	}
	b.ReportMetric(float64(admitted), "hooks-admitted")
	b.ReportMetric(float64(uint64(fired)-min(admitted, uint64(fired))), "hooks-lost")
	b.ReportMetric(ms(storm)/float64(b.N), "storm-ms")
	b.ReportMetric(ms(used.server)/float64(b.N), "server-cpu-ms")
	b.ReportMetric(ms(used.bridges)/float64(b.N), "bridges-cpu-ms")
	b.ReportMetric(ms(used.children)/float64(b.N), "children-cpu-ms")
	b.ReportMetric(ms(used.self)/float64(b.N), "self-cpu-ms")
}

// cpuUse is the CPU time used by each part of the fleet benchmark: the
// server, the bridges, the processes this one started and waited for
// (the hooks and the timed ls), and this process (which starts them).
type cpuUse struct{ server, bridges, children, self time.Duration }

func (a cpuUse) sub(b cpuUse) cpuUse {
	return cpuUse{a.server - b.server, a.bridges - b.bridges, a.children - b.children, a.self - b.self}
}

func (a *cpuUse) add(b cpuUse) {
	a.server += b.server
	a.bridges += b.bridges
	a.children += b.children
	a.self += b.self
}

// fleetCPU reads the CPU time used so far by the server (pid server), the
// bridges, the waited-for children of this process and this process.
func fleetCPU(server int, bridges []int) (cpuUse, error) {
	var u cpuUse
	var err error
	if u.server, err = procCPU(server); err != nil {
		return u, err
	}
	for _, pid := range bridges {
		d, err := procCPU(pid)
		if err != nil {
			return u, err
		}
		u.bridges += d
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return u, err
	}
	u.children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	u.self = selfCPU()
	return u, nil
}

// siblingBin returns the binary name next to paneflowBin (make bench
// builds it there), building package pkg (nogui, no cgo) into that
// directory when it is missing.
func siblingBin(b *testing.B, name, pkg string) string {
	b.Helper()
	path := filepath.Join(filepath.Dir(paneflowBin(b)), name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	cmd := exec.Command("go", "build", "-tags", "nogui", "-o", path, "github.com/paneflow-go/paneflow/"+pkg[2:])
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building %s: %v\n%s", name, err, out)
	}
	return path
}

// mean is the arithmetic mean of xs (0 for none).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
