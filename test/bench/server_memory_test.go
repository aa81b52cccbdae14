//go:build linux

package bench

import (
	"slices"
	"testing"
	"time"
)

// Parameters of BenchmarkServerMemory.
const (
	// memPanes is the number of panes that fill their scrollback.
	memPanes = 10
	// memSettle is how long after the output stopped the resident set is
	// measured: what a user sees in top a little while after a burst.
	memSettle = 30 * time.Second
)

// BenchmarkServerMemory measures memory as users see it: the growth of
// the resident set (RSS) of `paneflow serve` from ten 200×50 panes that
// each printed 10,000 lines of 120 characters into their scrollback,
// memSettle after the output stopped, per pane (rss-bytes/pane), and the
// same right when the last pane showed its last line (rss0-bytes/pane).
// Unlike BenchmarkScrollbackMemory (live heap of one emulator), this
// counts everything the process holds: read and parse buffers left from
// the burst, and freed memory the Go runtime has not returned yet.
func BenchmarkServerMemory(b *testing.B) {
	path := dataFile(b, "scrollback-end-v1.txt", func() []byte {
		return append(scrollbackLines("\n"), endMarker+"\n"...)
	})
	var settled, early []float64
	for range b.N {
		pf := startPaneflowSize(b, paneCols, paneRows)
		c := pf.dial(b)
		pid := pf.cmd.Process.Pid
		before, err := vmRSS(pid)
		if err != nil {
			b.Fatal(err)
		}
		// A workspace each, so every pane keeps the full 200×50 (splits
		// would share it).
		had := listSurfaces(b, c)
		for range memPanes {
			if err := c.call("workspace.create", map[string]any{"command": "cat " + shQuote(path) + "; exec sleep 1000000"}, nil); err != nil {
				b.Fatal(err)
			}
		}
		var ids []uint64
		for _, id := range listSurfaces(b, c) {
			if !slices.Contains(had, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) != memPanes {
			b.Fatalf("got %d new surfaces, want %d", len(ids), memPanes)
		}
		for _, id := range ids {
			waitPaneText(b, c, id, endMarker)
		}
		after0, err := vmRSS(pid)
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(memSettle)
		after, err := vmRSS(pid)
		if err != nil {
			b.Fatal(err)
		}
		c = pf.dial(b) // the server closes connections idle that long
		for _, id := range ids {
			// surface.read's source is the newest 4,000 rows, so the
			// full count is not visible here; the end marker is.
			waitPaneText(b, c, id, endMarker)
		}
		early = append(early, float64(after0-before)/memPanes)
		settled = append(settled, float64(after-before)/memPanes)
		b.Logf("RSS %d → %d → %d bytes (start, output done, %v later)", before, after0, after, memSettle)
		pf.stop()
	}
	b.ReportMetric(median(settled), "rss-bytes/pane")
	b.ReportMetric(median(early), "rss0-bytes/pane")
}

// listSurfaces returns the ids of every surface of the server.
func listSurfaces(b *testing.B, c *rpcConn) []uint64 {
	b.Helper()
	var res struct {
		Surfaces []struct {
			ID uint64 `json:"surface_id"`
		} `json:"surfaces"`
	}
	if err := c.call("surface.list", nil, &res); err != nil {
		b.Fatal(err)
	}
	var ids []uint64
	for _, s := range res.Surfaces {
		ids = append(ids, s.ID)
	}
	return ids
}
