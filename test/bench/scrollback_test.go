//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/test/internal/tmuxtest"
)

const (
	// historyLines is the number of scrollback lines the memory benchmark
	// fills.
	historyLines = 10000

	// historyLineLen is the length of each of those lines.
	historyLineLen = 120
)

// scrollbackLines returns historyLines+paneRows-1 lines of exactly
// historyLineLen characters, each ending in eol: printed into a paneRows-high
// pane they leave the cursor on an empty bottom row and exactly historyLines
// lines in the history.
func scrollbackLines(eol string) []byte {
	r := newRand(4)
	n := historyLines + paneRows - 1
	b := make([]byte, 0, n*(historyLineLen+len(eol)))
	for range n {
		b = appendWords(b, r, historyLineLen)
		b = append(b, eol...)
	}
	return b
}

// writeChunks feeds data to e in 4 KiB writes, as a PTY reader would.
func writeChunks(b *testing.B, e *terminal.Emulator, data []byte) {
	for len(data) > 0 {
		n := min(len(data), 4096)
		if _, err := e.Write(data[:n]); err != nil {
			b.Fatal(err)
		}
		data = data[n:]
	}
}

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func BenchmarkScrollbackMemory(b *testing.B) {
	b.Run("paneflow", benchPaneflowMemory)
	b.Run("tmux", benchTmuxMemory)
}

// benchPaneflowMemory measures the heap growth from creating a 200×50
// emulator and writing the lines into it.
func benchPaneflowMemory(b *testing.B) {
	data := scrollbackLines("\r\n")
	var samples []float64
	for range b.N {
		before := heapAlloc()
		e := terminal.NewEmulator(paneCols, paneRows, terminal.EmulatorOptions{Scrollback: historyLines})
		writeChunks(b, e, data)
		after := heapAlloc()
		if got := e.HistoryLen(); got != historyLines {
			b.Fatalf("history: got %d lines, want %d", got, historyLines)
		}
		runtime.KeepAlive(e)
		samples = append(samples, float64(int64(after)-int64(before)))
	}
	b.ReportMetric(median(samples), "bytes/pane")
}

// benchTmuxMemory measures the growth of the tmux server's resident set from
// creating a 200×50 pane and printing the lines in it. Each sample uses a new
// server, because memory freed by an earlier pane stays in the process and
// would be reused.
func benchTmuxMemory(b *testing.B) {
	requireTmux(b)
	path := dataFile(b, "scrollback-v1.txt", func() []byte { return scrollbackLines("\n") })
	var samples []float64
	for range b.N {
		d, err := tmuxPaneRSS(path)
		if err != nil {
			b.Fatal(err)
		}
		samples = append(samples, float64(d))
	}
	b.ReportMetric(median(samples), "bytes/pane")
}

// tmuxPaneRSS starts a server with an idle session, then returns how much its
// RSS grew once a new pane had printed the file at path into its history.
func tmuxPaneRSS(path string) (int64, error) {
	// tmux frees a tenth of the history when it reaches history-limit, so a
	// limit one above the line count keeps exactly historyLines lines.
	s, err := tmuxtest.Start(tmuxtest.Options{HistoryLimit: historyLines + 1})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	size := []string{"-x", strconv.Itoa(paneCols), "-y", strconv.Itoa(paneRows)}
	if _, err := s.Command(append(append([]string{"new-session", "-d", "-s", "idle"}, size...), "sh", "-c", "exec sleep 1000000")...); err != nil {
		return 0, err
	}
	pid, err := s.PID()
	if err != nil {
		return 0, err
	}
	before, err := vmRSS(pid)
	if err != nil {
		return 0, err
	}
	args := append(append([]string{"new-session", "-d", "-s", "history"}, size...),
		"sh", "-c", `cat "$1"; tmux wait-for -S done; exec sleep 1000000`, "sh", path)
	if _, err := s.Command(args...); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), benchTimeout)
	defer cancel()
	if err := s.WaitFor(ctx, "done"); err != nil {
		return 0, err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := s.Command("display-message", "-p", "-t", "history", "#{history_size}")
		if err != nil {
			return 0, err
		}
		if out == fmt.Sprintf("%d\n", historyLines) {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("tmux history: got %q lines, want %d", out, historyLines)
		}
		time.Sleep(10 * time.Millisecond)
	}
	after, err := vmRSS(pid)
	if err != nil {
		return 0, err
	}
	if after < before {
		return 0, errors.New("tmux server RSS shrank while filling the history")
	}
	return after - before, nil
}
