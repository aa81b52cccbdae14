// Package bench holds Paneflow's performance benchmarks for the terminal
// engine and, where there is one, the same work measured through tmux, the
// reference multiplexer:
//
//   - BenchmarkPTY: 100 MB of plain lines and 30 MB of dense SGR output
//     through a real PTY into a 200×50 pane (Paneflow's terminal.Start
//     running cat, against a tmux pane running cat). Metrics: MB/s
//     (wall clock, launch to completion) and MB/cpu-s (CPU time of the
//     process that parses: the test process, or the tmux server). A third
//     side, pty-only, reads the same output through terminal.StartPTY and
//     discards it: the ceiling of the machine's PTY path. A fourth, bare,
//     drains the PTY with blocking read(2) calls and nothing else (the
//     kernel's limit, which the paneflow side is compared with); the
//     third input, plain100, is 60 MB of 100-character lines.
//   - BenchmarkScrollbackMemory: 10,000 scrollback lines of 120 characters
//     in a 200-column pane. Metric: bytes/pane (Go heap growth for
//     Paneflow, server RSS growth for tmux).
//   - BenchmarkSearchAll: surface.search_all and `paneflow search --all`
//     over 100 panes of `paneflow serve`, each holding 10,000 scrollback
//     lines and 1,000 full screens in its screen history, against tmux
//     capture-pane of every pane piped to grep (issue 34). Metrics: ms,
//     server-cpu-ms.
//   - BenchmarkParse: Emulator.Write on in-memory buffers (plain, SGR, a
//     full-screen TUI redraw stream). Metric: MB/s.
//
// The package has no code besides its benchmarks. tmux sub-benchmarks are
// skipped unless PANEFLOW_BENCH_TMUX=1, so a plain go test -bench stays
// quick; scripts/bench.sh (make bench) sets it, runs everything once and
// prints a table of Paneflow against tmux. The benchmarks need Linux (they
// read /proc) and skip the tmux side when tmux is not installed.
package bench
