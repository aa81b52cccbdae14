// Command benchtable reads the output of go test -bench for package
// test/bench (usually several runs via -count) and prints one table of
// Paneflow against tmux: the median of each metric on each side, their ratio
// and whether the target is met, then a note on what the tmux side
// of each server benchmark does. scripts/bench.sh (make bench) runs it.
//
// A benchmark named X/paneflow is paired with X/tmux; any other benchmark is a
// Paneflow-only row. Where there is also an X/bare (the bare PTY drain of
// BenchmarkPTY), a second table compares Paneflow with it. Lines that are not benchmark results are ignored.
//
// Usage:
//
//	go test -run '^$' -bench . -count 3 ./test/bench/ | go run ./test/bench/benchtable [-strict]
//
// With -strict it exits 1 when a target is missed.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // no results, or a missed target with -strict
	exitUsage  = 2
)

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strict := fs.Bool("strict", false, "exit 1 when a target is missed")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	res, err := parse(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "benchtable: %v\n", err)
		return exitFailed
	}
	if len(res.order) == 0 {
		fmt.Fprintln(stderr, "benchtable: no benchmark results in the input")
		return exitFailed
	}
	missed := res.print(stdout)
	missed += res.printBare(stdout)
	if missed > 0 && *strict {
		return exitFailed
	}
	return exitOK
}

// results holds every sample, keyed by benchmark (without the side), side and
// unit, in the order benchmarks first appeared.
type results struct {
	order   []string
	units   map[string][]string                        // benchmark → units in order
	samples map[string]map[string]map[string][]float64 // benchmark → side → unit → values
}

var (
	// resultLine matches "BenchmarkX/y-2   3   123 ns/op   4.5 MB/s ...".
	resultLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	errSyntax  = errors.New("malformed metric")
)

// parse reads go test -bench output.
func parse(r io.Reader) (*results, error) {
	res := &results{units: map[string][]string{}, samples: map[string]map[string]map[string][]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := resultLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		name, side := strings.TrimPrefix(m[1], "Benchmark"), "paneflow"
		if base, s, ok := cutSide(name); ok {
			name, side = base, s
		}
		f := strings.Fields(m[2])
		if len(f)%2 != 0 {
			return nil, fmt.Errorf("%w in %q", errSyntax, sc.Text())
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%w in %q: %v", errSyntax, sc.Text(), err)
			}
			res.add(name, side, f[i+1], v)
		}
	}
	return res, sc.Err()
}

// cutSide splits "PTY/plain/tmux" into "PTY/plain" and "tmux".
func cutSide(name string) (base, side string, ok bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", "", false
	}
	switch s := name[i+1:]; s {
	case "paneflow", "tmux", "bare":
		return name[:i], s, true
	}
	return "", "", false
}

func (r *results) add(name, side, unit string, v float64) {
	if unit == "ns/op" || unit == "B/op" || unit == "allocs/op" {
		return
	}
	if _, ok := r.samples[name]; !ok {
		r.order = append(r.order, name)
		r.samples[name] = map[string]map[string][]float64{}
	}
	if !slices.Contains(r.units[name], unit) {
		r.units[name] = append(r.units[name], unit)
	}
	if r.samples[name][side] == nil {
		r.samples[name][side] = map[string][]float64{}
	}
	r.samples[name][side][unit] = append(r.samples[name][side][unit], v)
}

// target is a goal from the issue for one benchmark metric.
type target struct {
	text string
	met  func(paneflow, tmux float64, haveTmux bool) (ok, known bool)
}

// atMost is the goal "paneflow ≤ limit" for a metric where lower is
// better.
func atMost(limit float64, text string) target {
	return target{text: text, met: func(p, _ float64, _ bool) (bool, bool) { return p <= limit, true }}
}

// below is the goal "paneflow < limit" for a metric where lower is
// better.
func below(limit float64, text string) target {
	return target{text: text, met: func(p, _ float64, _ bool) (bool, bool) { return p < limit, true }}
}

// notSlowerThanTmux is the goal "paneflow ≤ 1× tmux" for a metric where
// lower is better.
var notSlowerThanTmux = target{text: "≤ 1× tmux", met: func(p, t float64, have bool) (bool, bool) {
	return have && p <= t, have
}}

// targetFor returns the goal for a benchmark metric, if there is one.
func targetFor(name, unit string) (target, bool) {
	switch {
	case strings.HasPrefix(name, "PTY/") && strings.Count(name, "/") == 1 && unit == "MB/s":
		return target{text: "≥ 2× tmux", met: func(p, t float64, have bool) (bool, bool) {
			return have && p >= 2*t, have
		}}, true
	case name == "ScrollbackMemory" && unit == "bytes/pane":
		return atMost(2e6, "≤ 2 MB"), true
	case name == "ServerMemory" && unit == "rss-bytes/pane":
		return atMost(2e6, "≤ 2 MB"), true
	case name == "CLIRead" && unit == "ms":
		return notSlowerThanTmux, true
	case strings.HasPrefix(name, "SocketRead/") && unit == "ms":
		return atMost(0.3, "≤ 0.3 ms"), true
	case strings.HasPrefix(name, "WaitDelay/") && unit == "ms":
		return atMost(2, "≤ 2 ms"), true
	case strings.HasPrefix(name, "FirstOutput/") && unit == "ms":
		return notSlowerThanTmux, true
	case name == "TeamsSplit" && unit == "ms":
		return notSlowerThanTmux, true
	case name == "TeamsSpawn" && unit == "ms":
		return atMost(10, "≤ 10 ms"), true
	case name == "Flood" && (unit == "split-ms" || unit == "cli-split-ms"):
		return atMost(50, "≤ 50 ms"), true
	case name == "Flood" && unit == "ping-ms":
		return below(1, "< 1 ms"), true
	case name == "FlowBarrier" && unit == "ms":
		return atMost(10, "≤ 10 ms"), true
	case name == "Up" && unit == "ms":
		return notSlowerThanTmux, true
	case name == "Attach" && unit == "ms":
		return target{text: "≤ 150 ms, ≤ 1× tmux", met: func(p, t float64, have bool) (bool, bool) {
			return p <= 150 && have && p <= t, have
		}}, true
	case name == "AttachFlood" && unit == "bytes-per-cell-frame":
		return atMost(4, "≤ 4"), true
	case name == "SearchAll/socket" && unit == "ms":
		return atMost(50, "≤ 50 ms"), true
	case name == "SearchAll/cli" && unit == "ms":
		return notSlowerThanTmux, true
	case strings.HasPrefix(name, "Fleet") && unit == "ls-p99-ms":
		return atMost(20, "≤ 20 ms"), true
	case strings.HasPrefix(name, "Fleet") && unit == "hooks-lost":
		return atMost(0, "0"), true
	case name == "RemoteLs" && (unit == "remote-budget-ms" || unit == "delay-budget-ms"):
		return atMost(0, "≤ 0 (local + 1 RTT + 5 ms)"), true
	case name == "Vttest" && unit == "%-as-xterm":
		return target{text: "≥ 85 % and > tmux", met: func(p, t float64, have bool) (bool, bool) {
			return have && p >= 85 && p > t, have
		}}, true
	}
	return target{}, false
}

// notes explains what the tmux column holds for benchmarks whose tmux side
// is not the same operation by the same means; print lists those present.
var notes = []struct{ prefix, text string }{
	{"CLIRead", "CLIRead: `paneflow read <pane> --lines 200` vs `tmux capture-pane -p -S -200`, a process start each, 3,000-line pane"},
	{"SocketRead/fresh", "SocketRead/fresh: surface.read (200 lines) on a new connection each (dial, request, reply, close); tmux has no equivalent"},
	{"SocketRead/reused", "SocketRead/reused: surface.read on one connection vs capture-pane -S -200 over a tmux control-mode (-C) client"},
	{"WaitDelay/socket", "WaitDelay/socket: line printed → reply of a surface.wait already in flight vs → %output at a tmux -C client"},
	{"WaitDelay/cli", "WaitDelay/cli: line printed → output of `paneflow wait --pattern` vs → tmux capture-pane polled every 500 ms"},
	{"FirstOutput/socket", "FirstOutput/socket: surface.split + events.subscribe/surface.read vs split-window over tmux -C + %output"},
	{"FirstOutput/cli", "FirstOutput/cli: `paneflow split` vs `tmux split-window` (process starts), output watched as in /socket"},
	{"Up", "Up: `paneflow up` of 8 command panes (tiled) until each showed its first line vs one tmux process: new-window, 7 split-window each with select-layout tiled"},
	{"FlowBarrier", "FlowBarrier: `paneflow flow run`: a barrier's line printed → the dependent send step's text read by the next pane (the original polled every 500 ms, then let the pane settle); no tmux equivalent"},
	{"TeamsSplit", "TeamsSplit: Claude Code's teammate pane through tmux: `split-window … -- cat` then `list-panes` until listed (sh + 2 process starts), Paneflow's tmux shim on `paneflow serve` vs the real tmux"},
	{"TeamsSpawn", "TeamsSpawn: spawn_agent over the CustomPaneBackend socket, request to reply, one connection; tmux has no equivalent"},
	{"SearchAll/socket", "SearchAll/socket: surface.search_all of a regex over 100 panes (80x24), each 10,000 scrollback lines and 1,000 full screens it showed (history), one reused connection; tmux keeps no full screens"},
	{"SearchAll/cli", "SearchAll/cli: `paneflow search --all --regex` vs one tmux client running capture-pane -p -S - of all 100 panes piped to grep -E (sh), process starts; same output printed, tmux holds only the scrollback"},
	{"ServerMemory", "ServerMemory: RSS growth of `paneflow serve` per 200x50 pane after 10 panes printed 10,000 lines of 120 characters, 30 s after the output stopped (rss0: at once); Paneflow only"},
	{"AttachFlood", "AttachFlood: a pane printing numbered lines without end, a client attached at 60 frames/s (screen.attach) reading for 3 s: bytes/s, frames/s, and bytes/s over 80x24 cells × 60 frames/s; Paneflow only"},
	{"Attach", "Attach: attach.Dial to a server of 50 panes × 10,000 lines of history until every pane's first full frame is in vs a tmux -C client started (attach-session) and capture-pane -p -e of each pane"},
	{"Fleet", "Fleet: `paneflow ls` (a process start each) while 200 real paneflow-mcp bridges hold their events.subscribe streams and 200 agents' real paneflow-ai-hook processes send 3 frames each at once (each agent its own process starting its hooks); true: /bin/true started between the ls calls, the floor of a process start under that load; idle-ls: the same ls with the bridges connected and no hooks; hooks-lost: frames fired that the server never admitted; hooks-late: hooks past their 550 ms budget before they read the answer (the server may still have admitted the frame); every delivered frame is checked admitted and run; Paneflow only"},
	{"FleetPaced", "FleetPaced: the Fleet's 200 agents working instead of firing at once: a hook every 2 s each (8 each, the first ones spread over 2 s), about 100 hooks a second; same metrics; Paneflow only"},
	{"FleetHTTP", "FleetHTTP, FleetPacedHTTP: the same with the hooks Claude Code gets when the server offers its http-hook endpoint: each agent posts its frames over its own keep-alive connection, no hook process; hook-slowest: the longest post; Paneflow only"},
	{"FleetMCP", "FleetMCP, FleetPacedMCP: the same with the mcp_tool hooks Codex gets when it runs our bridge: each frame a tools/call of the pane's own paneflow-mcp bridge, which forwards it to hooks.report; no hook process; hook-slowest: the longest call; Paneflow only"},
	{"FleetPacedHTTPOwnCPU", "FleetPacedHTTPOwnCPU, FleetPacedMCPOwnCPU: FleetPacedHTTP and FleetPacedMCP with the timed loop (its ls and /bin/true processes) pinned to the first CPU and the simulated fleet (the bench process's posts and surface.list probe, the bridges) to the second, the server free on both: what the server leaves of ls's time when the load generator is not on the timed loop's CPU (other work on the machine still is); ls-cpu: the CPU one timed ls used; Paneflow only"},
	{"RemoteLs", "RemoteLs: `paneflow --host ssh://… ls` through a real sshd on loopback to the same server, once the link holds its ssh, vs `paneflow ls` there, interleaved, a process start each; rtt: a TCP connect to sshd; remote-budget: remote − (local + rtt + 5 ms); first-ls: the call that starts the link (ssh's handshake); cm-ls: no link, one ssh per call over an ssh ControlMaster; delay-*: the same through a proxy adding 25 ms each way (RTT 50 ms), delay-budget = remote − (local + 50 + 5 ms); Paneflow only"},
	{"Vttest", "Vttest: vttest's result pages (test/conform's plan, through its relay) in Paneflow's emulator vs in a tmux pane: how many show what xterm 379 showed (text, cursor, VT100 renditions, line sizes) and their share of the pages xterm showed; pages: how many the run showed (vttest shows more where a report goes unanswered); higher is better"},
	{"Flood", "Flood: 100 panes of `yes | head -c 1000000`; while they stream: split-ms over the socket (tmux: -C client), cli-split-ms by a process start (true-ms: /bin/true, the floor of any process start under that load), ping-ms system.ping (tmux: display-message over -C) every 10 ms (idle-ping-ms: system.ping of a second, idle paneflow serve at the same time, the floor of a socket round trip under that load)"},
}

// print writes the table and returns how many targets were missed.
func (r *results) print(w io.Writer) int {
	rows := [][]string{{"benchmark", "metric", "paneflow", "tmux", "ratio", "target", "result"}}
	missed, runs := 0, 0
	for _, name := range r.order {
		for _, unit := range r.units[name] {
			pv, pok := r.median(name, "paneflow", unit)
			tv, tok := r.median(name, "tmux", unit)
			if !pok && !tok {
				continue // a metric of the bare side only (B/read): its own table
			}
			runs = max(runs, len(r.samples[name]["paneflow"][unit]), len(r.samples[name]["tmux"][unit]))
			ratio := "-"
			if pok && tok && tv != 0 {
				ratio = fmt.Sprintf("%.2f×", pv/tv)
			}
			goal, result := "", ""
			if t, ok := targetFor(name, unit); ok && pok {
				goal = t.text
				switch met, known := t.met(pv, tv, tok); {
				case !known:
					result = "no tmux"
				case met:
					result = "ok"
				default:
					result = "MISS"
					missed++
				}
			}
			rows = append(rows, []string{name, unit, format(pv, pok, unit), format(tv, tok, unit), ratio, goal, result})
		}
	}
	writeTable(w, rows)
	fmt.Fprintf(w, "medians of up to %d runs; ratio = paneflow / tmux (higher is better for MB/s, lower for bytes/pane and times)\n", runs)
	for _, n := range notes {
		if slices.ContainsFunc(r.order, func(name string) bool { return name == n.prefix || strings.HasPrefix(name, n.prefix+"/") }) {
			fmt.Fprintln(w, "  "+n.text)
		}
	}
	return missed
}

// bareTarget is the goal for Paneflow's plain-text throughput as
// a fraction of the bare PTY drain measured in the same run (other inputs
// are shown without a goal: parsing them is the work).
const bareTarget = 0.9

// printBare writes the table of Paneflow against the bare PTY drain (the
// benchmarks with a bare side) and returns how many targets were missed.
func (r *results) printBare(w io.Writer) int {
	rows := [][]string{{"benchmark", "metric", "paneflow", "bare", "tmux", "paneflow/bare", "paneflow/tmux", "target", "result"}}
	missed := 0
	for _, name := range r.order {
		if r.samples[name]["bare"] == nil {
			continue
		}
		for _, unit := range r.units[name] {
			pv, pok := r.median(name, "paneflow", unit)
			bv, bok := r.median(name, "bare", unit)
			tv, tok := r.median(name, "tmux", unit)
			ratio := func(d float64, ok bool) string {
				if !pok || !ok || d == 0 {
					return "-"
				}
				return fmt.Sprintf("%.2f×", pv/d)
			}
			goal, result := "", ""
			if unit == "MB/s" && pok && bok && strings.HasPrefix(name, "PTY/plain") {
				goal, result = fmt.Sprintf("≥ %.1f× bare", bareTarget), "ok"
				if pv < bareTarget*bv {
					result = "MISS"
					missed++
				}
			}
			rows = append(rows, []string{name, unit, format(pv, pok, unit), format(bv, bok, unit), format(tv, tok, unit),
				ratio(bv, bok), ratio(tv, tok), goal, result})
		}
	}
	if len(rows) == 1 {
		return 0
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "== Paneflow vs the bare PTY drain (same runs)")
	writeTable(w, rows)
	fmt.Fprintln(w, "  bare: cat into a PTY with the kernel's default termios, drained by blocking read(2) calls and thrown away (the machine's limit)")
	return missed
}

// writeTable prints rows in aligned columns: names and targets on the left,
// numbers on the right.
func writeTable(w io.Writer, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i >= 2 && i <= 4 {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
			b.WriteString("  ")
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func (r *results) median(name, side, unit string) (float64, bool) {
	xs := r.samples[name][side][unit]
	if len(xs) == 0 {
		return 0, false
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

func format(v float64, ok bool, unit string) string {
	switch {
	case !ok:
		return "-"
	case strings.HasSuffix(unit, "bytes/pane"):
		return fmt.Sprintf("%.2f MB", v/1e6)
	case strings.Contains(unit, "/"): // a rate such as MB/cpu-s
		return fmt.Sprintf("%.1f", v)
	case unit == "ms" || strings.HasSuffix(unit, "-ms"):
		switch {
		case v < 1:
			return fmt.Sprintf("%.3f", v)
		case v < 100:
			return fmt.Sprintf("%.2f", v)
		}
		return fmt.Sprintf("%.0f", v)
	case unit == "s" || strings.HasSuffix(unit, "-s"):
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}
