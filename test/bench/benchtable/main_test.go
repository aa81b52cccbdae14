package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkPTY/plain/paneflow-2         	       1	2442176895 ns/op	  90.00 MB/s	        73.84 MB/cpu-s
BenchmarkPTY/plain/paneflow-2         	       1	2442176895 ns/op	  80.00 MB/s	        70.00 MB/cpu-s
BenchmarkPTY/plain/paneflow-2         	       1	2442176895 ns/op	 100.00 MB/s	        75.00 MB/cpu-s
BenchmarkPTY/plain/tmux-2             	       1	3335938340 ns/op	  40.00 MB/s	        46.08 MB/cpu-s
BenchmarkPTY/plain/tmux-2             	       1	3335938340 ns/op	  41.00 MB/s	        46.08 MB/cpu-s
BenchmarkPTY/plain/tmux-2             	       1	3335938340 ns/op	  10.00 MB/s	        46.08 MB/cpu-s
BenchmarkPTY/sgr/paneflow-2           	       1	 622038964 ns/op	  30.00 MB/s
BenchmarkPTY/sgr/pty-only-2           	       1	 622038964 ns/op	  90.00 MB/s
BenchmarkPTY/sgr/tmux-2               	       1	2565640616 ns/op	  20.00 MB/s
BenchmarkPTY/plain/bare-2             	       1	2442176895 ns/op	 100.00 MB/s	       190.00 MB/cpu-s
BenchmarkPTY/plain/bare-2             	       1	2442176895 ns/op	  95.00 MB/s	       180.00 MB/cpu-s
BenchmarkPTY/plain/bare-2             	       1	2442176895 ns/op	 105.00 MB/s	       200.00 MB/cpu-s
BenchmarkPTY/sgr/bare-2               	       1	 622038964 ns/op	  31.00 MB/s
--- SKIP: BenchmarkPTY/other/tmux
BenchmarkScrollbackMemory/paneflow-2  	       1	  24663910 ns/op	   1817008 bytes/pane
BenchmarkScrollbackMemory/tmux-2      	       1	 133691558 ns/op	  10625024 bytes/pane
BenchmarkParse/plain-2                	       1	  84107680 ns/op	  99.74 MB/s
PASS
`

const serverSample = `BenchmarkCLIRead/paneflow-2    1  170769663 ns/op   2.000 ms
BenchmarkCLIRead/tmux-2        1  140384592 ns/op   2.500 ms
BenchmarkSocketRead/fresh/paneflow-2   1  193596367 ns/op  0.2500 ms
BenchmarkSocketRead/reused/paneflow-2  1  292736419 ns/op  0.4062 ms
BenchmarkSocketRead/reused/tmux-2      1  222215995 ns/op  0.2893 ms
BenchmarkWaitDelay/cli/paneflow-2  1  1563437817 ns/op  0.7495 ms
BenchmarkWaitDelay/cli/tmux-2      1  3071284794 ns/op  196.8 ms
BenchmarkFirstOutput/cli/paneflow-2  1  129551765 ns/op  7.371 ms
BenchmarkFirstOutput/cli/tmux-2      1  150594466 ns/op  5.580 ms
BenchmarkServerMemory-2  1  30583454768 ns/op  2170061 rss-bytes/pane  2430566 rss0-bytes/pane
BenchmarkFlood/paneflow-2  1  16707260627 ns/op  425.6 cli-split-ms  16.67 drain-s  40.0 ping-ms  396.0 ping-p99-ms  129.4 split-ms  7143 start-ms
BenchmarkFlood/tmux-2      1  34800742369 ns/op  634.3 cli-split-ms  34.77 drain-s  168.6 ping-ms  731.3 ping-p99-ms  221.8 split-ms  587.0 start-ms
PASS
`

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		in       string
		wantCode int
		wantRows []string // substrings of output lines, in order
	}{
		{
			name:     "table",
			in:       sample,
			wantCode: exitOK,
			wantRows: []string{
				"benchmark",
				"PTY/plain  MB/s  90.0  40.0  2.25×  ≥ 2× tmux  ok",
				"PTY/plain  MB/cpu-s  73.8  46.1  1.60×",
				"PTY/sgr  MB/s  30.0  20.0  1.50×  ≥ 2× tmux  MISS",
				"PTY/sgr/pty-only  MB/s  90.0  -  -",
				"ScrollbackMemory  bytes/pane  1.82 MB  10.63 MB  0.17×  ≤ 2 MB  ok",
				"Parse/plain  MB/s  99.7  -  -",
				"medians of up to 3 runs",
				"Paneflow vs the bare PTY drain",
				"benchmark  metric  paneflow  bare  tmux  paneflow/bare  paneflow/tmux  target  result",
				"PTY/plain  MB/s  90.0  100.0  40.0  0.90×  2.25×  ≥ 0.9× bare  ok",
				"PTY/plain  MB/cpu-s  73.8  190.0  46.1  0.39×  1.60×",
				"PTY/sgr  MB/s  30.0  31.0  20.0  0.97×  1.50×",
				"bare: cat into a PTY",
			},
		},
		{
			name:     "bare miss is a miss",
			args:     []string{"-strict"},
			in:       "BenchmarkPTY/plain/paneflow-2  1  1 ns/op  80.00 MB/s\nBenchmarkPTY/plain/tmux-2  1  1 ns/op  30.00 MB/s\nBenchmarkPTY/plain/bare-2  1  1 ns/op  100.00 MB/s\n",
			wantCode: exitFailed,
		},
		{
			name:     "server rows",
			in:       serverSample,
			wantCode: exitOK,
			wantRows: []string{
				"CLIRead  ms  2.00  2.50  0.80×  ≤ 1× tmux  ok",
				"SocketRead/fresh  ms  0.250  -  -  ≤ 0.3 ms  ok",
				"SocketRead/reused  ms  0.406  0.289  1.40×  ≤ 0.3 ms  MISS",
				"WaitDelay/cli  ms  0.750  197  0.00×  ≤ 2 ms  ok",
				"FirstOutput/cli  ms  7.37  5.58  1.32×  ≤ 1× tmux  MISS",
				"ServerMemory  rss-bytes/pane  2.17 MB  -  -  ≤ 2 MB  MISS",
				"ServerMemory  rss0-bytes/pane  2.43 MB  -  -",
				"Flood  cli-split-ms  426  634  0.67×  ≤ 50 ms  MISS",
				"Flood  drain-s  16.67  34.77  0.48×",
				"Flood  ping-ms  40.00  169  0.24×  < 1 ms  MISS",
				"Flood  ping-p99-ms  396  731  0.54×",
				"Flood  split-ms  129  222  0.58×  ≤ 50 ms  MISS",
				"Flood  start-ms  7143  587  12.17×",
				"lower for bytes/pane and times",
				"CLIRead: `paneflow read",
				"SocketRead/fresh:",
				"SocketRead/reused:",
				"WaitDelay/cli:",
				"FirstOutput/cli:",
				"ServerMemory: RSS growth",
				"Flood: 100 panes",
			},
		},
		{
			name:     "vttest",
			in:       "BenchmarkVttest/paneflow-2  1  9 ns/op  340 pages-as-xterm  393 pages  86.5 %-as-xterm\nBenchmarkVttest/tmux-2  1  9 ns/op  250 pages-as-xterm  401 pages  62.3 %-as-xterm\n",
			wantCode: exitOK,
			wantRows: []string{
				"Vttest  pages-as-xterm  340.0  250.0  1.36×",
				"Vttest  %-as-xterm  86.5  62.3  1.39×  ≥ 85 % and > tmux  ok",
				"Vttest: vttest's result pages",
			},
		},
		{name: "vttest miss", args: []string{"-strict"}, in: "BenchmarkVttest/paneflow-2  1  9 ns/op  80 %-as-xterm\nBenchmarkVttest/tmux-2  1  9 ns/op  60 %-as-xterm\n", wantCode: exitFailed},
		{name: "strict miss", args: []string{"-strict"}, in: sample, wantCode: exitFailed},
		{name: "strict server miss", args: []string{"-strict"}, in: serverSample, wantCode: exitFailed},
		{name: "no results", in: "PASS\n", wantCode: exitFailed},
		{name: "bad flag", args: []string{"-nope"}, in: sample, wantCode: exitUsage},
		{name: "malformed", in: "BenchmarkX-2  1  12 ns/op  4.5\n", wantCode: exitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if got := run(tt.args, strings.NewReader(tt.in), &out, &errOut); got != tt.wantCode {
				t.Fatalf("exit code: got %d, want %d (stderr %q)", got, tt.wantCode, errOut.String())
			}
			lines := strings.Split(out.String(), "\n")
			for i := range lines {
				lines[i] = strings.Join(strings.Fields(lines[i]), "  ")
			}
			j := 0
			for _, want := range tt.wantRows {
				want = strings.Join(strings.Fields(want), "  ")
				for j < len(lines) && !strings.Contains(lines[j], want) {
					j++
				}
				if j == len(lines) {
					t.Fatalf("got output\n%s\nwant a line containing %q (in order)", out.String(), want)
				}
			}
		})
	}
}

// TestBareOnlyMetric checks that a metric only the bare side reports
// (bytes per read) is left out of the Paneflow vs tmux table, where both
// of its columns would be empty, and shown in the bare table.
func TestBareOnlyMetric(t *testing.T) {
	in := "BenchmarkPTY/plain100/paneflow-2  1  1 ns/op  95.00 MB/s\n" +
		"BenchmarkPTY/plain100/tmux-2  1  1 ns/op  30.00 MB/s\n" +
		"BenchmarkPTY/plain100/bare-2  1  1 ns/op  100.00 MB/s  4070 B/read\n"
	var out, errOut bytes.Buffer
	if code := run(nil, strings.NewReader(in), &out, &errOut); code != exitOK {
		t.Fatalf("exit code %d (stderr %q)", code, errOut.String())
	}
	main, bare, ok := strings.Cut(out.String(), "Paneflow vs the bare PTY drain")
	if !ok {
		t.Fatalf("no bare table in\n%s", out.String())
	}
	if strings.Contains(main, "B/read") {
		t.Errorf("the Paneflow vs tmux table lists B/read:\n%s", main)
	}
	if !strings.Contains(bare, "B/read") {
		t.Errorf("the bare table does not list B/read:\n%s", bare)
	}
}
