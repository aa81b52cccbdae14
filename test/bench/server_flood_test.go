//go:build linux

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The flood: floodPanes panes, each printing floodBytes bytes as fast as
// the PTY takes them, started all at once.
const (
	floodPanes   = 100
	floodBytes   = 1_000_000
	floodCommand = "yes | head -c 1000000"

	// floodPerWorkspace spreads Paneflow's panes over workspaces: the
	// default cap is 64 panes per workspace.
	floodPerWorkspace = 25

	// floodPingEvery is the period of the responsiveness probe.
	floodPingEvery = 10 * time.Millisecond

	// floodPause separates two rounds of pane creation during the flood.
	floodPause = 50 * time.Millisecond

	// floodMaxSamples caps the pane creations measured per flood.
	floodMaxSamples = 8

	// floodTimeout bounds one flood. tmux drains it in ~35 s on an idle
	// machine but took 230-260 s at load 40 on 2 cores, and over 300 s
	// once (round 4), so the bound only catches a hang.
	floodTimeout = 15 * time.Minute

	// idleCommand runs in the panes created during the flood.
	idleCommand = "sleep 1000"
)

// BenchmarkFlood starts 100 panes that each print 1 MB (yes | head -c
// 1000000) once released all at once through a FIFO, and while they
// stream measures creating one more pane: over
// the socket (surface.split on a reused connection; tmux split-window over
// a control-mode client attached to an idle session) and through a process
// start (`paneflow split`; `tmux split-window`), each a round trip until the
// server answers. A probe measures the server's responsiveness meanwhile
// (system.ping; tmux display-message over the control client) every 10 ms.
// Metrics, each the median of the flood's samples unless named otherwise:
// split-ms, cli-split-ms, true-ms (/bin/true, the process-start floor under
// the same load), ping-ms, ping-p99-ms (99th percentile), idle-ping-ms
// (system.ping of a second, idle `paneflow serve` probed alongside: the
// floor of a socket round trip under the same load; Paneflow only),
// start-ms (creating the 100 waiting panes, before the flood) and drain-s
// (release until every pane's program has ended).
func BenchmarkFlood(b *testing.B) {
	b.Run("paneflow", func(b *testing.B) {
		for range b.N {
			floodPaneflow(b).report(b)
		}
	})
	b.Run("tmux", func(b *testing.B) {
		requireTmux(b)
		for range b.N {
			floodTmux(b).report(b)
		}
	})
}

// floodStats is what one flood measured.
type floodStats struct {
	split, cliSplit, ping []float64 // ms
	// idlePing is system.ping of an idle second server during the flood
	// (ms): how long any process's socket round trip takes under that
	// load. Empty for tmux.
	idlePing []float64
	// trueStart is /bin/true started, run and reaped during the flood
	// (ms): the floor under any command-line split, Paneflow's or tmux's.
	trueStart []float64
	start     time.Duration
	drain     time.Duration
}

func (f *floodStats) report(b *testing.B) {
	if len(f.split) == 0 || len(f.cliSplit) == 0 || len(f.ping) == 0 {
		b.Fatalf("the flood ended before anything was measured: %d splits, %d CLI splits, %d pings",
			len(f.split), len(f.cliSplit), len(f.ping))
	}
	b.ReportMetric(median(f.split), "split-ms")
	b.ReportMetric(median(f.cliSplit), "cli-split-ms")
	b.ReportMetric(median(f.trueStart), "true-ms")
	b.ReportMetric(median(f.ping), "ping-ms")
	b.ReportMetric(percentile(f.ping, 99), "ping-p99-ms")
	if len(f.idlePing) > 0 {
		b.ReportMetric(median(f.idlePing), "idle-ping-ms")
	}
	b.ReportMetric(ms(f.start), "start-ms")
	b.ReportMetric(f.drain.Seconds(), "drain-s")
}

// timeTrue times one run of /bin/true (the smallest process start there
// is) into f.trueStart. out is clobbered.
func (f *floodStats) timeTrue(out *bytes.Buffer) error {
	d, err := timeProcess(exec.Command("true"), out)
	if err != nil {
		return err
	}
	f.trueStart = append(f.trueStart, ms(d))
	return nil
}

// prober runs a probe every floodPingEvery until stopped and keeps its
// durations in ms.
type prober struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	xs   []float64
	err  error
}

func startProber(probe func() error) *prober {
	p := &prober{stop: make(chan struct{})}
	p.wg.Go(func() {
		tick := time.NewTicker(floodPingEvery)
		defer tick.Stop()
		for {
			start := time.Now()
			err := probe()
			d := time.Since(start)
			p.mu.Lock()
			if err != nil {
				p.err = err
				p.mu.Unlock()
				return
			}
			p.xs = append(p.xs, ms(d))
			p.mu.Unlock()
			select {
			case <-tick.C:
			case <-p.stop:
				return
			}
		}
	})
	return p
}

// finish stops the probe and returns its samples.
func (p *prober) finish() ([]float64, error) {
	close(p.stop)
	p.wg.Wait()
	return p.xs, p.err
}

// floodPaneflow runs one flood against a fresh `paneflow serve`: the 100
// panes are four workspace.up calls of 25, the measured panes split the
// first workspace's pane and are closed again (unmeasured).
func floodPaneflow(b *testing.B) *floodStats {
	pf := startPaneflow(b)
	defer pf.stop()
	c := pf.dial(b)
	pc := pf.dial(b)
	idle := startPaneflow(b)
	defer idle.stop()
	ic := idle.dial(b)
	gate := newFIFO(b)

	start := time.Now()
	var flood []uint64
	for w := range floodPanes / floodPerWorkspace {
		panes := make([]map[string]any, floodPerWorkspace)
		for i := range panes {
			panes[i] = map[string]any{"command": gate.gated(floodCommand)}
		}
		var r struct {
			SurfaceIDs []uint64 `json:"surface_ids"`
		}
		if err := c.call("workspace.up", map[string]any{"name": fmt.Sprintf("flood%d", w), "layout": "tiled", "panes": panes}, &r); err != nil {
			b.Fatal(err)
		}
		flood = append(flood, r.SurfaceIDs...)
	}
	st := &floodStats{start: time.Since(start)}
	if len(flood) != floodPanes {
		b.Fatalf("started %d panes, want %d", len(flood), floodPanes)
	}
	// workspace.up made the last flood workspace active; the CLI's split
	// goes to the active workspace's first pane.
	if err := c.call("workspace.select", map[string]any{"index": 0}, nil); err != nil {
		b.Fatal(err)
	}

	probe := startProber(func() error { return pc.call("system.ping", nil, nil) })
	idleProbe := startProber(func() error { return ic.call("system.ping", nil, nil) })
	start = time.Now()
	if err := gate.release(floodPanes); err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	deadline := start.Add(floodTimeout)
	for {
		if len(st.split) < floodMaxSamples {
			t0 := time.Now()
			id, err := split(c, idleCommand)
			if err != nil {
				b.Fatal(err)
			}
			st.split = append(st.split, ms(time.Since(t0)))
			if err := c.call("surface.close", map[string]any{"surface_id": id}, nil); err != nil {
				b.Fatal(err)
			}

			d, err := timeProcess(pf.cli("split", "h", "--command", idleCommand), &out)
			if err != nil {
				b.Fatal(err)
			}
			st.cliSplit = append(st.cliSplit, ms(d))
			var r splitResult
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				b.Fatalf("paneflow split printed %q: %v", out.String(), err)
			}
			if err := c.call("surface.close", map[string]any{"surface_id": r.SurfaceID}, nil); err != nil {
				b.Fatal(err)
			}
			if err := st.timeTrue(&out); err != nil {
				b.Fatal(err)
			}
		}
		done, err := floodDone(c, flood)
		if err != nil {
			b.Fatal(err)
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the flood did not end within %v", floodTimeout)
		}
		time.Sleep(floodPause)
	}
	st.drain = time.Since(start)
	var err error
	if st.ping, err = probe.finish(); err != nil {
		b.Fatal(err)
	}
	if st.idlePing, err = idleProbe.finish(); err != nil {
		b.Fatal(err)
	}
	return st
}

// floodDone reports whether every flood pane's program has exited.
func floodDone(c *rpcConn, flood []uint64) (bool, error) {
	var l struct {
		Surfaces []struct {
			ID     uint64 `json:"surface_id"`
			Exited bool   `json:"exited"`
		} `json:"surfaces"`
	}
	if err := c.call("surface.list", nil, &l); err != nil {
		return false, err
	}
	exited := map[uint64]bool{}
	for _, s := range l.Surfaces {
		exited[s.ID] = s.Exited
	}
	for _, id := range flood {
		if !exited[id] {
			return false, nil
		}
	}
	return true, nil
}

// floodTmux runs one flood against a fresh tmux server: the 100 panes are
// the windows of a session "flood", started by one tmux command; the
// measured panes split the idle pane of the bench session, which the
// control client is attached to, and are killed again (unmeasured). The
// flood is over when every flood pane is dead. The flood windows stay
// open after their program exits (remain-on-exit): tmux 3.3a's server
// crashes when windows of another session close while a control client is
// attached.
func floodTmux(b *testing.B) *floodStats {
	t := startTmux(b)
	defer t.ctl.Close()
	defer t.s.Close()
	base, err := t.command("display-message -p -t " + benchSession + ": '#{pane_id}'")
	if err != nil || len(base) != 1 {
		b.Fatalf("the bench session's pane: %q, %v", base, err)
	}
	if _, err := t.command("set-option -g remain-on-exit on"); err != nil {
		b.Fatal(err)
	}
	gate := newFIFO(b)
	command := gate.gated(floodCommand)
	size := []string{"-x", strconv.Itoa(srvCols), "-y", strconv.Itoa(srvRows)}
	args := append(append([]string{"new-session", "-d", "-s", "flood"}, size...), command)
	for range floodPanes - 1 {
		args = append(args, ";", "new-window", "-d", "-t", "flood:", command)
	}
	start := time.Now()
	if _, err := t.s.Command(args...); err != nil {
		b.Fatal(err)
	}
	st := &floodStats{start: time.Since(start)}

	probe := startProber(func() error {
		_, err := t.command("display-message -p ping")
		return err
	})
	start = time.Now()
	if err := gate.release(floodPanes); err != nil {
		b.Fatal(err)
	}

	splitLine := fmt.Sprintf("split-window -d -P -F '#{pane_id}' -t %s '%s'", base[0], idleCommand)
	var out bytes.Buffer
	deadline := start.Add(floodTimeout)
	for {
		if len(st.split) < floodMaxSamples {
			t0 := time.Now()
			pane, err := t.command(splitLine)
			if err != nil || len(pane) != 1 {
				b.Fatalf("split-window: %q, %v", pane, err)
			}
			st.split = append(st.split, ms(time.Since(t0)))
			if _, err := t.command("kill-pane -t " + pane[0]); err != nil {
				b.Fatal(err)
			}

			d, err := timeProcess(t.s.Cmd("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", base[0], idleCommand), &out)
			if err != nil {
				b.Fatal(err)
			}
			st.cliSplit = append(st.cliSplit, ms(d))
			if _, err := t.command("kill-pane -t " + strings.TrimSpace(out.String())); err != nil {
				b.Fatal(err)
			}
			if err := st.timeTrue(&out); err != nil {
				b.Fatal(err)
			}
		}
		dead, err := t.command("list-panes -s -t flood -F '#{pane_dead}'")
		if err != nil {
			b.Fatal(err)
		}
		if len(dead) == floodPanes && !slices.Contains(dead, "0") {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the flood did not end within %v", floodTimeout)
		}
		time.Sleep(floodPause)
	}
	st.drain = time.Since(start)
	if st.ping, err = probe.finish(); err != nil {
		b.Fatal(err)
	}
	return st
}
