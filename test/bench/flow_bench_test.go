//go:build linux

package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// flowBarrierSamples is how many flow runs one iteration measures (each
// opens a workspace; the server allows 20).
const flowBarrierSamples = 7

// BenchmarkFlowBarrier measures a flow's barrier latency end to end, with
// the built binaries: pane a runs the mark helper, step a's ready pattern
// waits for its MARK line, and step s, which needs a, sends "go" to pane
// b, whose shell reads it and writes it to a FIFO the benchmark reads.
// The delay is from the MARK line's printing (its timestamp) to the
// benchmark reading the FIFO: the barrier's wake-up, the engine's
// scheduling, surface.send_text, the PTY and b's shell. The original app
// polled barriers every 500 ms and let the target settle before sending.
// Metric: ms (median).
func BenchmarkFlowBarrier(b *testing.B) {
	b.Run("paneflow", func(b *testing.B) {
		pf := startPaneflow(b, "PANEFLOW_IPC_SCRIPTING=1")
		c := pf.dial(b)
		mark, out := newFIFO(b), newFIFO(b)
		got := make(chan time.Time, 1)
		go func() {
			sc := bufio.NewScanner(out.f)
			for sc.Scan() {
				if sc.Text() == "go" {
					got <- time.Now()
				}
			}
		}()
		dir := b.TempDir()
		spec := fmt.Sprintf(`name = "bench"
[[step]]
id = "a"
pane = { command = %s }
ready = { pattern = "^MARK bar ", timeout_secs = 120 }

[[step]]
id = "b"
pane = { command = %s }

[[step]]
id = "s"
needs = ["a"]
send = { target = "b", text = "go", submit = true }
`, strconv.Quote(mark.markCommand(b)), strconv.Quote("read -r l; printf '%s\\n' \"$l\" > "+shQuote(out.path)+"; exec sleep 1000"))
		path := filepath.Join(dir, "bench.toml")
		if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
			b.Fatal(err)
		}
		var xs []float64
		for range b.N * flowBarrierSamples {
			xs = append(xs, flowBarrierSample(b, pf, c, path, mark, got))
		}
		b.ReportMetric(median(xs), "ms")
	})
}

// flowBarrierSample runs the flow once and returns the delay in ms.
func flowBarrierSample(b *testing.B, pf *pfServer, c *rpcConn, path string, mark *benchFIFO, got <-chan time.Time) float64 {
	b.Helper()
	cmd := pf.cli("flow", "run", path, "--json", "--yes")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	running := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasSuffix(sc.Text(), "] a → RUNNING") {
				close(running)
			}
		}
	}()
	select {
	case <-running:
	case <-time.After(setupTimeout):
		b.Fatal("the flow did not start step a")
	}
	time.Sleep(200 * time.Millisecond) // the barrier's surface.wait in place
	if err := mark.trigger("bar"); err != nil {
		b.Fatal(err)
	}
	var at time.Time
	select {
	case at = <-got:
	case <-time.After(setupTimeout):
		b.Fatal("pane b never got the send")
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("flow run: %v\n%s", err, stdout.String())
	}
	var rep struct {
		Steps []struct {
			ID        string `json:"id"`
			SurfaceID uint64 `json:"surface_id"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil || len(rep.Steps) == 0 {
		b.Fatalf("report: %v\n%s", err, stdout.String())
	}
	page, err := readPane(c, rep.Steps[0].SurfaceID, 20)
	if err != nil {
		b.Fatal(err)
	}
	closeFlowWorkspaces(b, c)
	for _, l := range strings.Split(page.Text, "\n") {
		if strings.HasPrefix(l, "MARK bar ") {
			printed, err := markNanos(strings.TrimSpace(l), "bar")
			if err != nil {
				b.Fatal(err)
			}
			return ms(time.Duration(at.UnixNano() - printed))
		}
	}
	b.Fatalf("no MARK line in pane a:\n%s", page.Text)
	return 0
}

// closeFlowWorkspaces closes the workspaces a flow run opened, ending their
// panes (pane a's mark helper would take the next sample's trigger).
func closeFlowWorkspaces(b *testing.B, c *rpcConn) {
	b.Helper()
	var list struct {
		Workspaces []struct {
			Index int    `json:"index"`
			Title string `json:"title"`
		} `json:"workspaces"`
	}
	if err := c.call("workspace.list", nil, &list); err != nil {
		b.Fatal(err)
	}
	for i := len(list.Workspaces) - 1; i >= 0; i-- {
		if w := list.Workspaces[i]; w.Title == "bench" {
			if err := c.call("workspace.close", map[string]any{"index": w.Index}, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
