package terminal

import (
	"runtime"
	"strings"
	"testing"
)

// BenchmarkScrollbackMemory reports the heap held by a 200×50 emulator
// with 10,000 scrollback lines of 120 characters (tmux holds ~10 MB).
func BenchmarkScrollbackMemory(b *testing.B) {
	line := []byte(strings.Repeat("0123456789abcdefghij", 6) + "\r\n")
	var held uint64
	for range b.N {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		e := NewEmulator(200, 50, EmulatorOptions{})
		for range 10050 {
			e.Write(line)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		if e.HistoryLen() != 10000 {
			b.Fatalf("history = %d, want 10000", e.HistoryLen())
		}
		held = m1.HeapAlloc - m0.HeapAlloc
		runtime.KeepAlive(e)
	}
	b.ReportMetric(float64(held), "heap-bytes/pane")
}
