// Package gui runs the desktop app end to end: the real GUI binary (cgo,
// default build tags) in a virtual X display (Xvfb), driven over its socket
// by the nogui CLI and by synthetic keyboard and mouse input (xdotool), and
// checked through the socket and through screenshots (ImageMagick's import)
// whose pixels the tests decode.
//
// The GUI binary is $PANEFLOW_GUI_BIN: `make test` builds bin/paneflow-gui
// once and sets it (scripts/check.sh, step gui). TestMain builds the nogui
// CLI itself. Without the GUI binary, Xvfb, xdotool or import the tests
// skip and say what is missing, except under CI=true, where a missing
// prerequisite fails them.
//
// The tests share one Xvfb (1600x1000x24, on a display number Xvfb picks
// itself with -displayfd) and run one at a time, each with its own app in a
// fresh directory that is also its HOME and XDG base. The app is what a
// user runs: `paneflow serve` on a fresh socket and the window in its
// default mode, which finds that server and attaches (startApp); only what
// is about the window hosting its panes itself (TestQuitWhileBusy's
// embedded half, the rendering benchmarks, BenchmarkKeyEcho's baseline)
// passes --embedded (startEmbedded). Screenshots are kept
// as artifacts in $PANEFLOW_ARTIFACTS, else test/gui/artifacts (ignored by
// git), named after the test.
//
// TestClaudeSidebar (agent_test.go) runs the real Claude Code CLI, pinned
// in scripts/agents.sh and installed by it into ~/.cache/paneflow/agents
// when missing (`make test` runs `make agents` first), in a pane against
// test/internal/fakemodel, with the launch shim and hook program built
// from this tree; it fails, never skips, when the CLI cannot be had.
//
// TestUsageSidebar (usage_test.go) runs a fake Claude Code session (a
// script whose hooks are the real paneflow-ai-hook, with a transcript the
// test writes as Claude Code does) in a server's pane and finds the
// sidebar's usage lines through the window's PANEFLOW_UI_PROBE lines,
// then checks the screenshot has them drawn, in a window attached before
// the tokens were used and in one attached after, and the agents
// overview's day line in the warning colour past 80 % of a daily budget.
//
// TestClaudeTeamInApp also runs the real Claude Code that scripts/agents.sh
// pins (installed by `make test` before this step; the test installs it
// when missing and fails when it cannot), against the scripted model of
// test/internal/fakemodel, with the launch shim built for it.
//
// BenchmarkGUI (make bench, scripts/bench.sh) measures rendering in its
// own larger Xvfb: frame rate and frame cost while a 200x50 pane shows 30
// MB of coloured output, that throughput against `paneflow serve`, idle
// frames and CPU, and keystroke-to-screen latency. It prints a table.
// BenchmarkKeyEcho (make bench) types ~100 keys through XTest into the
// desktop app, alacritty and kitty (scripts/deps.sh bench) under one Xvfb
// and times each to the first DAMAGE report that changes the pane
// (test/internal/keyecho), then again with a second Paneflow pane
// flooding, cats 100 MB plain and 20 MB SGR through each window and reads
// each one's RSS 30 s later; it prints a table of ratios.
//
// Linux only: Xvfb, /proc and the X tools.
package gui
