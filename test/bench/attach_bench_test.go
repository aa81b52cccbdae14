//go:build linux

package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/test/internal/tmuxtest"
)

// The attach benchmark (issue 26): a server holding attachPanes panes of
// srvCols×srvRows, each with historyLines lines of scrollback.
const (
	attachPanes   = 50
	attachSamples = 5
	// attachCommand prints 10,023 numbered lines of 70 characters, then
	// DONE, and stays.
	attachCommand = `awk 'BEGIN{for(i=0;i<10023;i++) printf "%06d the quick brown fox jumps over the lazy dog 0123456789 abcdef\n", i; print "DONE"}'; exec sleep 1000000`

	// floodSeconds is how long the flood benchmark counts bytes.
	floodSeconds = 3
	attachFPS    = 60
)

// BenchmarkAttach measures attaching to a server holding 50 panes with
// 10,000 lines of history each, until the first full frame of every pane
// is in: attach.Dial (the screen.attach stream and the call connection)
// to the last pane's mirror filled, vs a tmux control-mode client started
// (tmux -C attach-session) and capture-pane -p -e of each pane's screen.
// Metric: ms, the median of attachSamples attaches.
func BenchmarkAttach(b *testing.B) {
	b.Run("paneflow", benchAttachPaneflow)
	b.Run("tmux", benchAttachTmux)
}

func benchAttachPaneflow(b *testing.B) {
	pf := startPaneflow(b)
	c := pf.dial(b)
	var ids []uint64
	for w := range attachPanes / floodPerWorkspace {
		panes := make([]map[string]any, floodPerWorkspace)
		for i := range panes {
			panes[i] = map[string]any{"command": attachCommand}
		}
		var r struct {
			SurfaceIDs []uint64 `json:"surface_ids"`
		}
		if err := c.call("workspace.up", map[string]any{"name": fmt.Sprintf("attach%d", w), "layout": "tiled", "panes": panes}, &r); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, r.SurfaceIDs...)
	}
	for _, id := range ids {
		waitPaneText(b, c, id, "DONE")
	}
	var xs []float64
	for range b.N * attachSamples {
		ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
		start := time.Now()
		ac, err := attach.Dial(ctx, pf.sock, attach.Options{Surfaces: ids})
		if err != nil {
			b.Fatal(err)
		}
		hist := 0
		for _, id := range ids {
			p := ac.Pane(id)
			for {
				gen, ch := p.Watch()
				if gen > 0 {
					break
				}
				select {
				case <-ch:
				case <-ctx.Done():
					b.Fatalf("no frame for pane %d", id)
				}
			}
			hist += p.HistoryLen()
		}
		xs = append(xs, ms(time.Since(start)))
		ac.Close()
		cancel()
		if hist < attachPanes*historyLines {
			b.Fatalf("the panes hold %d lines of history, want %d", hist, attachPanes*historyLines)
		}
	}
	b.ReportMetric(median(xs), "ms")
}

func benchAttachTmux(b *testing.B) {
	t := startTmux(b)
	if _, err := t.s.Command("set-option", "-g", "history-limit", fmt.Sprint(historyLines)); err != nil {
		b.Fatal(err)
	}
	var panes []string
	for range attachPanes {
		panes = append(panes, t.window(b, attachCommand))
	}
	for _, p := range panes {
		t.waitCapture(b, p, "DONE")
	}
	var xs []float64
	for range b.N * attachSamples {
		start := time.Now()
		ctl, err := t.s.Control(tmuxtest.ControlOptions{Session: benchSession})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range panes {
			out, err := t.commandOn(ctl, "capture-pane -p -e -t "+p)
			if err != nil {
				b.Fatal(err)
			}
			if !strings.Contains(strings.Join(out, "\n"), "DONE") {
				b.Fatalf("tmux pane %s: capture without DONE", p)
			}
		}
		xs = append(xs, ms(time.Since(start)))
		ctl.Close()
	}
	b.ReportMetric(median(xs), "ms")
}

// commandOn runs one command line over ctl.
func (t *tmuxSide) commandOn(ctl *tmuxtest.Control, line string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return ctl.Command(ctx, line)
}

// BenchmarkAttachFlood measures what a pane flooding at full speed costs
// an attached client's socket: a pane prints numbered lines without end,
// a client attached at 60 frames/s reads its stream for floodSeconds.
// Metrics: bytes/s, frames/s, and bytes-per-cell-frame (bytes/s over the
// screen's cells × the frame rate: the stream stays bounded by screen
// size × frame rate, whatever the pane prints). Paneflow only.
func BenchmarkAttachFlood(b *testing.B) {
	pf := startPaneflow(b)
	c := pf.dial(b)
	id, err := split(c, `awk 'BEGIN{for(i=0;;i++) printf "%09d the quick brown fox jumps over the lazy dog\n", i}'`)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		nc, err := net.Dial("unix", pf.sock)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":1,"method":"screen.attach","params":{"surfaces":[%d],"fps":%d}}`+"\n", id, attachFPS)
		r := bufio.NewReaderSize(nc, 1<<20)
		var n, frames int
		var start time.Time
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if start.IsZero() {
				if strings.Contains(string(line), `"type":"screen"`) {
					start = time.Now() // count from the first screen frame
				}
				continue
			}
			n += len(line)
			frames++
			if time.Since(start) >= floodSeconds*time.Second {
				break
			}
		}
		secs := time.Since(start).Seconds()
		nc.Close()
		b.ReportMetric(float64(n)/secs, "bytes/s")
		b.ReportMetric(float64(frames)/secs, "frames/s")
		b.ReportMetric(float64(n)/secs/float64(srvCols*srvRows*attachFPS), "bytes-per-cell-frame")
	}
}
