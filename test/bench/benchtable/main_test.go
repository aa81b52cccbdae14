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
--- SKIP: BenchmarkPTY/other/tmux
BenchmarkScrollbackMemory/paneflow-2  	       1	  24663910 ns/op	   1817008 bytes/pane
BenchmarkScrollbackMemory/tmux-2      	       1	 133691558 ns/op	  10625024 bytes/pane
BenchmarkParse/plain-2                	       1	  84107680 ns/op	  99.74 MB/s
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
			},
		},
		{name: "strict miss", args: []string{"-strict"}, in: sample, wantCode: exitFailed},
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
