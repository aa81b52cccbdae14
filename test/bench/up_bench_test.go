//go:build linux

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// upPanes and upSamples size BenchmarkUp.
const (
	upPanes   = 8
	upSamples = 5
)

// BenchmarkUp measures building an 8-pane workspace of commands until
// every pane has shown its first output: `paneflow up` on a spec (layout
// tiled) against one tmux process running new-window, 7 split-window (each
// followed by select-layout tiled, which an 80x24 window needs to fit 8
// panes) in the benchmark's session. Both are process starts; output is
// watched as in BenchmarkFirstOutput. Metric: ms (median).
func BenchmarkUp(b *testing.B) {
	b.Run("paneflow", func(b *testing.B) {
		pf := startPaneflow(b)
		c := pf.dial(b)
		ev := subscribeChanges(b, pf)
		var spec strings.Builder
		spec.WriteString("name = \"upbench\"\nlayout = \"tiled\"\n")
		for i := range upPanes {
			fmt.Fprintf(&spec, "[[panes]]\ncommand = \"echo up-out-%d; exec sleep 1000\"\n", i)
		}
		path := filepath.Join(b.TempDir(), "up.toml")
		if err := os.WriteFile(path, []byte(spec.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		var xs []float64
		for range b.N * upSamples {
			start := time.Now()
			if _, err := timeProcess(pf.cli("up", path, "--json", "--yes"), &out); err != nil {
				b.Fatal(err)
			}
			var res struct {
				Index      int      `json:"index"`
				SurfaceIDs []uint64 `json:"surface_ids"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.SurfaceIDs) != upPanes {
				b.Fatalf("paneflow up printed %q: %v", out.String(), err)
			}
			last := start
			for i, id := range res.SurfaceIDs {
				at, err := seeOutput(c, ev, id, fmt.Sprintf("up-out-%d", i))
				if err != nil {
					b.Fatal(err)
				}
				if at.After(last) {
					last = at
				}
			}
			xs = append(xs, ms(last.Sub(start)))
			if err := c.call("workspace.close", map[string]any{"index": res.Index}, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(median(xs), "ms")
	})
	b.Run("tmux", func(b *testing.B) {
		t := startTmux(b)
		var out bytes.Buffer
		var xs []float64
		for k := range b.N * upSamples {
			win := fmt.Sprintf("%s:up%d", benchSession, k)
			args := []string{"new-window", "-d", "-n", fmt.Sprintf("up%d", k), "-P", "-F", "#{pane_id}", "-t", benchSession + ":", "echo up-out-0; sleep 100"}
			for i := 1; i < upPanes; i++ {
				args = append(args, ";", "split-window", "-P", "-F", "#{pane_id}", "-t", win, fmt.Sprintf("echo up-out-%d; sleep 100", i),
					";", "select-layout", "-t", win, "tiled")
			}
			start := time.Now()
			if _, err := timeProcess(t.s.Cmd(args...), &out); err != nil {
				b.Fatal(err)
			}
			panes := strings.Fields(out.String())
			if len(panes) != upPanes {
				b.Fatalf("tmux printed %q, want %d pane ids", out.String(), upPanes)
			}
			last := start
			for i, p := range panes {
				_, at, err := t.out.waitLine(p, fmt.Sprintf("up-out-%d", i), setupTimeout)
				if err != nil {
					b.Fatal(err)
				}
				if at.After(last) {
					last = at
				}
			}
			xs = append(xs, ms(last.Sub(start)))
			if _, err := t.command("kill-window -t " + win); err != nil {
				b.Fatal(err)
			}
			for _, p := range panes {
				t.out.forget(p)
			}
		}
		b.ReportMetric(median(xs), "ms")
	})
}
