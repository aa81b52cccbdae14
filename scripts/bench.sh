#!/bin/sh
# bench.sh: Paneflow's benchmarks against tmux, in one run, printed as a
# table of medians and ratios (make bench).
#
# Each sample round runs, once each (-benchtime=1x) and with the tmux side
# enabled:
#   - the terminal benchmarks of test/bench: 100 MB of plain lines and 30 MB
#     of dense SGR output through a real PTY into a 200x50 Paneflow
#     terminal, into a tmux pane, and into a bare PTY read loop, then 10,000
#     scrollback lines in each;
#   - the same for 60 MB of 100-character lines, and each input also into a
#     bare PTY drained by blocking read(2) calls (the kernel's limit): a
#     second table prints Paneflow / bare and Paneflow / tmux from the same
#     rounds;
#   - the server benchmarks (issue 3), `paneflow serve` against a tmux
#     server, 80x24 panes: `paneflow read` vs `tmux capture-pane` (process
#     starts), surface.read over the socket, the delay from a line printed to
#     a waiter seeing it (surface.wait, `paneflow wait`; tmux control mode,
#     capture-pane polled every 500 ms), creating a pane until its first
#     output is seen, and creating a pane and pinging the server while 100
#     panes stream 1 MB each. Each reports the median of several samples.
#   - the flow engine's barrier (issue 14): a line printed in one pane → the
#     dependent `send` step's text read in another, through `flow run`; and
#     `paneflow up` of 8 command panes against the same layout built by tmux.
#   - the agent-teams benchmarks (issue 16): a teammate's pane opened with
#     `tmux split-window … -- cat` until `tmux list-panes` lists it, through
#     Paneflow's tmux shim vs the real tmux, and spawn_agent over the
#     CustomPaneBackend socket.
#   - attaching a window (issue 26): attach.Dial to a server holding 50
#     panes with 10,000 lines of history each until every pane's first full
#     frame is in, vs a tmux control-mode client attaching and capturing
#     each pane's screen (capture-pane -p -e); and the bytes per second a
#     client attached at 60 frames/s receives while a pane floods.
#   - once, `paneflow --host ssh://… ls` with the host's link reused vs local
#     ls (issue 30; BenchmarkRemoteLs, a real sshd on loopback);
#   - once, the search across panes (issue 34): surface.search_all and
#     `paneflow search --all` over 100 panes of 10,000 scrollback lines and
#     1,000 full screens each, against tmux capture-pane of every pane
#     piped to grep;
#   - in the server round, the server's resident memory per pane 30 s
#     after ten 200x50 panes printed 10,000 lines of 120 characters (RSS,
#     not heap).
# Then, once, vttest's conformance run (test/conform's BenchmarkVttest:
# the result pages that show what xterm showed, in Paneflow's emulator and
# in a tmux pane, through the same relay; rows of the first table), and
# the desktop app's rendering (BenchmarkGUI in test/gui, under its own
# Xvfb): a 200x50 pane catting 30 MB of dense SGR output (frame rate
# and frame cost from the widget's render probe, throughput against the same
# cat through `paneflow serve`), 5 s of idling (frames drawn, CPU used) and
# keystroke-to-screen latency, printed as a second table; and the key-echo
# benchmark (BenchmarkKeyEcho in test/gui, issue 28): an XTest key to the
# first DAMAGE report that changes the pane (package test/internal/keyecho),
# ~100 keystrokes each into the desktop app, alacritty and kitty (Debian's;
# scripts/deps.sh bench installs them) under one Xvfb, same window and
# font size, bash --norc, interleaved rounds; the same with another
# Paneflow pane flooding; 100 MB plain and 20 MB SGR cats through each
# window; RSS 30 s after the 100 MB. A third table, with ratios; a
# window attached to a server takes its turns too (issue 26). Then the
# window with 100 agent panes (BenchmarkOverviewFlood, BenchmarkIdleFleet,
# BenchmarkFleetFlood) and with remote hosts over a loopback sshd
# (BenchmarkHostAgentLatency, BenchmarkIdleHosts, BenchmarkHostFloodEcho),
# each printing its own table against its target.
# Rounds rather than go test -count keep the Paneflow and tmux samples of a
# round seconds apart, so load from other work on the machine affects both
# sides alike. The parse-only benchmarks run last, by time. The input files
# and the nogui paneflow binary are built once and shared by the rounds.
#
# Environment:
#   BENCH_COUNT     sample rounds (default 3; the table shows medians)
#   BENCH_STRICT=1  exit 1 when a target from the issue is missed
#   BENCH_OUT       file to keep the raw go test output in
#   PANEFLOW_GUI_BIN the desktop app to measure (make bench builds
#                   bin/paneflow-gui and sets it; else built here)
#   BENCH_GUI=0     skip the desktop app's benchmarks (rendering, key echo,
#                   fleet and remote host windows)
#   BENCH_AGENTS=0  skip the real agent CLIs' hook-to-status benchmark
set -eu

cd "$(dirname "$0")/.."

count=${BENCH_COUNT:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paneflow-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
raw=${BENCH_OUT:-$tmp/raw.txt}
: >"$raw"

if ! command -v tmux >/dev/null 2>&1; then
	echo "bench: tmux is not installed; the tmux column will be empty (make deps installs it)" >&2
fi

# go test's exit status is lost in a pipe; it is recorded in a file instead.
status=$tmp/status
run() {
	{ "$@" 2>&1 || echo "$?" >"$status"; } | tee -a "$raw"
	if [ -s "$status" ]; then
		echo "bench: $* failed" >&2
		exit 1
	fi
}

go test -c -o "$tmp/bench.test" ./test/bench/
# The server benchmarks run the binaries as `make build` installs them: the
# command-line client as paneflow, which hands serve over to the headless
# server next to it.
CGO_ENABLED=0 go build -tags nogui,client -o "$tmp/paneflow" ./cmd/paneflow
CGO_ENABLED=0 go build -tags nogui -o "$tmp/paneflow-server" ./cmd/paneflow
CGO_ENABLED=0 go build -o "$tmp/paneflow-shim" ./cmd/paneflow-shim
CGO_ENABLED=0 go build -tags nogui -o "$tmp/paneflow-mcp" ./cmd/paneflow-mcp
CGO_ENABLED=0 go build -tags nogui -o "$tmp/paneflow-ai-hook" ./cmd/paneflow-ai-hook
# Each program is then written again by cp, as an installer writes it: the
# same bytes as the linker wrote them started more slowly from the page
# cache (BenchmarkCLIRead, 8 interleaved runs each: 1.01x tmux as linked,
# 0.95x copied; likely the linker's writes through a mapping leave the file
# cached in single pages, where a written or read-ahead file gets large
# folios). tmux runs from a file dpkg wrote.
for f in paneflow paneflow-server paneflow-shim paneflow-mcp paneflow-ai-hook; do
	cp "$tmp/$f" "$tmp/$f.copy" && mv "$tmp/$f.copy" "$tmp/$f"
done

i=1
while [ "$i" -le "$count" ]; do
	echo "== round $i of $count: PTY throughput and scrollback memory (Paneflow, tmux, bare PTY)"
	run env PANEFLOW_BENCH_TMUX=1 PANEFLOW_BENCH_DATA="$tmp/data" "$tmp/bench.test" \
		-test.run '^$' -test.bench '^Benchmark(PTY|ScrollbackMemory)$' -test.benchtime=1x -test.timeout=30m
	echo "== round $i of $count: server (paneflow serve, tmux server)"
	run env PANEFLOW_BENCH_TMUX=1 PANEFLOW_BENCH_BIN="$tmp/paneflow" "$tmp/bench.test" \
		-test.run '^$' -test.bench '^Benchmark(CLIRead|SocketRead|WaitDelay|FirstOutput|Flood|FlowBarrier|Up|ServerMemory|Attach|AttachFlood)$' \
		-test.benchtime=1x -test.timeout=30m
	echo "== round $i of $count: agent teams (tmux shim and CustomPaneBackend on paneflow serve, tmux server)"
	run env PANEFLOW_BENCH_TMUX=1 PANEFLOW_BENCH_BIN="$tmp/paneflow" "$tmp/bench.test" \
		-test.run '^$' -test.bench '^BenchmarkTeams(Split|Spawn)$' -test.benchtime=1x -test.timeout=30m
	i=$((i + 1))
done

# Search (issue 34): once, not per round (tmux needs minutes to take in
# the 100 panes' output); the benchmark takes its own samples.
echo "== Search across 100 panes (surface.search_all, paneflow search --all; tmux capture-pane | grep)"
run env PANEFLOW_BENCH_TMUX=1 PANEFLOW_BENCH_BIN="$tmp/paneflow" "$tmp/bench.test" \
	-test.run '^$' -test.bench '^BenchmarkSearchAll$' -test.benchtime=1x -test.timeout=30m

# The fleet (issue 25): once; 200 bridges and 600 hook processes are the
# load, `paneflow ls` is what is timed; then the same 200 agents working
# (a hook every 2 s each, 1,600 in all: BenchmarkFleetPaced). Then both
# with the hooks Claude Code gets from the shim when the server offers its
# http-hook endpoint: posts to 127.0.0.1, no process per hook (…HTTP), and
# with the mcp_tool hooks Codex gets when it runs our bridge: each a
# tools/call of the pane's own bridge (…MCP; the pair adds about 40 s).
# Last the two paced ones again with the timed loop on a CPU of its own
# and the simulated fleet on another (…OwnCPU, about 55 s more): the
# server's share of the ls tail without the load generator beside it.
echo "== Fleet: paneflow ls while 200 paneflow-mcp bridges hold their streams and 200 agents' hooks fire (at once; then paced; then both as http hooks, then as the bridges' mcp_tool hooks; then the paced pair with the timed loop on a CPU of its own)"
run env PANEFLOW_BENCH_BIN="$tmp/paneflow" "$tmp/bench.test" \
	-test.run '^$' -test.bench '^BenchmarkFleet((Paced)?(HTTP|MCP)?|Paced(HTTP|MCP)OwnCPU)$' -test.benchtime=1x -test.timeout=30m

# Remote hosts (issue 30): once; `paneflow --host … ls` through a real sshd on
# loopback (scripts/deps.sh installs openssh-server) vs local ls, interleaved.
echo "== Remote: paneflow --host ssh://… ls (link reused) vs local ls"
run env PANEFLOW_BENCH_BIN="$tmp/paneflow" "$tmp/bench.test" \
	-test.run '^$' -test.bench '^BenchmarkRemoteLs$' -test.benchtime=1x -test.timeout=10m

# vttest is deterministic: one run on each side gives the conformance
# figures (test/conform's plan and relay; the pinned vttest from
# scripts/vttest.sh).
echo "== vttest conformance: result pages as xterm 379 shows them (Paneflow's emulator, a tmux pane)"
# It reads its goldens relative to its package directory.
go test -c -o "$tmp/conform.test" ./test/conform/
# shellcheck disable=SC2016 # $0 and $@ are the inner shell's
run sh -c 'cd test/conform && exec "$0" "$@"' "$tmp/conform.test" -test.run '^$' \
	-test.bench '^BenchmarkVttest$' -test.benchtime=1x -test.timeout=30m

echo "== Emulator parse-only throughput ($count samples of 1s each)"
run "$tmp/bench.test" -test.run '^$' -test.bench '^BenchmarkParse$' -test.benchtime=1s \
	-test.count="$count" -test.timeout=10m

echo
echo "== Paneflow vs tmux (terminal rows: 200x50 panes, MB = 10^6 bytes; server rows: 80x24 panes, times in ms unless -s)"
strict=
if [ "${BENCH_STRICT:-}" = 1 ]; then
	strict=-strict
fi
go run ./test/bench/benchtable $strict <"$raw"

echo
echo "== MCP bridge (paneflow-mcp, from the MCP SDK's client): read_pane 200 lines, start to initialized, resources/updated after a line (median/target <= 1 meets issue 15's targets)"
go test -c -o "$tmp/mcp.test" ./test/mcp/
(cd test/mcp && "$tmp/mcp.test" -test.run '^$' -test.bench '^BenchmarkBridge' -test.benchtime=1x -test.timeout=10m) || {
	echo "bench: the MCP bridge benchmarks failed" >&2
	exit 1
}

if [ "${BENCH_GUI:-1}" != 0 ]; then
	gui=${PANEFLOW_GUI_BIN:-}
	if [ -z "$gui" ]; then
		gui=$tmp/paneflow-gui
		CGO_ENABLED=1 go build -o "$gui" ./cmd/paneflow
	fi
	case $gui in
	/*) ;;
	*) gui=$PWD/$gui ;;
	esac
	go test -c -o "$tmp/gui.test" ./test/gui/
	# The GUI benchmark prints its own table (its rows are not Paneflow vs
	# tmux), so its output stays out of $raw.
	(cd test/gui && PANEFLOW_GUI_BIN=$gui "$tmp/gui.test" -test.run '^$' -test.bench '^BenchmarkGUI$' \
		-test.benchtime=1x -test.timeout=30m) || {
		echo "bench: the GUI rendering benchmark failed" >&2
		exit 1
	}
	echo "== load before the key-echo benchmark: $(uptime)"
	# BENCH_ECHO_ATTACHED=1: a window attached to a server, as make run
	# starts it, takes its turns beside the embedded one (issue 26's
	# attached/embedded echo ratio, in the same rounds).
	(cd test/gui && PANEFLOW_GUI_BIN=$gui BENCH_ECHO_ATTACHED=1 "$tmp/gui.test" -test.run '^$' \
		-test.bench '^BenchmarkKeyEcho$' -test.benchtime=1x -test.timeout=30m) || {
		echo "bench: the key-echo benchmark failed" >&2
		exit 1
	}
	# The window with many panes (issues 17, 26, 29): the overview of 100
	# agents during a flood (frames per second, >= 30), the window's idle
	# CPU with 100 agent panes attached and embedded (<= 50 ms per 5 s),
	# and 100 hidden agent panes' cost to a shown pane's flood.
	echo "== load before the fleet window benchmarks: $(uptime)"
	(cd test/gui && PANEFLOW_GUI_BIN=$gui "$tmp/gui.test" -test.run '^$' \
		-test.bench '^Benchmark(OverviewFlood|IdleFleet|FleetFlood)$' -test.benchtime=1x -test.timeout=30m) || {
		echo "bench: the fleet window benchmarks failed" >&2
		exit 1
	}
	# Remote hosts in the window (issue 30), over a real sshd on loopback:
	# a remote agent's state change to the local sidebar (loopback and a
	# 50 ms round trip), the idle window with 10 hosts x 50 panes, and key
	# echo into one host while another floods.
	echo "== load before the remote host window benchmarks: $(uptime)"
	(cd test/gui && PANEFLOW_GUI_BIN=$gui "$tmp/gui.test" -test.run '^$' \
		-test.bench '^Benchmark(HostAgentLatency|IdleHosts|HostFloodEcho)$' -test.benchtime=1x -test.timeout=30m) || {
		echo "bench: the remote host window benchmarks failed" >&2
		exit 1
	}
fi

# Reading the agents' usage (issue 33): 50 simulated agents each recording a
# response every 3 s, the usage subsystem's CPU as a share of one core
# (usage-cpu-%, target <= 1: cpu-% less the same run's baseline-% without
# the subsystem).
echo
echo "== Usage: following 50 working agents' transcripts (usage-cpu-% <= 1 meets issue 33's target)"
go test -c -o "$tmp/usage.test" ./usage/
"$tmp/usage.test" -test.run '^$' -test.bench '^BenchmarkFollow50$' -test.benchtime=1x -test.timeout=10m || {
	echo "bench: the usage benchmark failed" >&2
	exit 1
}

# The real agent CLIs (test/agents, installed by scripts/agents.sh, which
# `make bench` runs first): from the model's last answer to `finished` in
# surface.status, per agent, against Paneflow's own part (hook-binary).
if [ "${BENCH_AGENTS:-1}" != 0 ]; then
	echo
	echo "== Agent hook → surface.status (real CLIs; ms-median of 5 runs each; after-hook rows: from the hook's exit, without and with a 100 MB transcript being read, target <= 5 ms)"
	go test -c -o "$tmp/agents.test" ./test/agents/
	(cd test/agents && "$tmp/agents.test" -test.run '^$' -test.bench '^BenchmarkHookToStatus$' \
		-test.benchtime=5x -test.timeout=30m) || {
		echo "bench: the agent hook benchmark failed" >&2
		exit 1
	}
fi
