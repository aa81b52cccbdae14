#!/bin/sh
# bench.sh: Paneflow's terminal benchmarks against tmux, in one run, printed
# as a table of medians and ratios (make bench).
#
# It runs test/bench twice with go test: the PTY and scrollback-memory
# benchmarks once per sample (-benchtime=1x; each sample pushes 100 MB or
# 30 MB through a real PTY into Paneflow and into a tmux pane) with the tmux
# side enabled, then the parse-only benchmarks by time. The raw go test output
# is printed as it comes and kept in $BENCH_OUT if that is set.
#
# Environment:
#   BENCH_COUNT  samples per benchmark (default 3; the table shows medians)
#   BENCH_STRICT=1  exit 1 when a target from the issue is missed
#   BENCH_OUT    file to keep the raw go test output in
set -eu

cd "$(dirname "$0")/.."

count=${BENCH_COUNT:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paneflow-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
raw=${BENCH_OUT:-$tmp/raw.txt}
: >"$raw"

if ! command -v tmux >/dev/null 2>&1; then
	echo "bench: tmux is not installed; the tmux column will be empty (make test installs it)" >&2
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

echo "== PTY throughput and scrollback memory (Paneflow and tmux, $count samples each)"
run env PANEFLOW_BENCH_TMUX=1 go test -run '^$' -bench '^Benchmark(PTY|ScrollbackMemory)$' \
	-benchtime=1x -count="$count" -timeout=30m ./test/bench/

echo "== Emulator parse-only throughput ($count samples of 1s each)"
run go test -run '^$' -bench '^BenchmarkParse$' -benchtime=1s -count="$count" -timeout=10m ./test/bench/

echo
echo "== Paneflow vs tmux (200x50 panes; MB = 10^6 bytes)"
strict=
if [ "${BENCH_STRICT:-}" = 1 ]; then
	strict=-strict
fi
go run ./test/bench/benchtable $strict <"$raw"
