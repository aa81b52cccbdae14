package termview

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkFrame200x50 measures one frame of a 200×50 pane as the View
// draws it on the UI goroutine: snapshot, render of the changed rows into
// the image, and the image refresh through Fyne's test driver. The
// watcher is stopped so that only the benchmark draws.
func BenchmarkFrame200x50(b *testing.B) {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog ", 6)
	for _, bc := range []struct {
		name   string
		output func(i int) string
	}{
		{"full-screen", func(i int) string { // every cell changes
			var sb strings.Builder
			sb.WriteString("\x1b[H")
			for r := range 50 {
				fmt.Fprintf(&sb, "\x1b[3%dm%06d %s\x1b[0m", (i+r)%8, i*50+r, text[(i+r)%26:(i+r)%26+193])
				if r < 49 {
					sb.WriteString("\r\n")
				}
			}
			return sb.String()
		}},
		{"scroll-line", func(i int) string { return fmt.Sprintf("\r\nline %d %s", i, strings.Repeat("x", 150)) }},
		{"one-cell", func(i int) string { return string(rune('a' + i%26)) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := newHarness(b, 200, 50, Options{})
			close(h.v.stop)
			<-h.v.done
			h.v.stop = make(chan struct{})
			rows := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				h.p.write(bc.output(i))
				b.StartTimer()
				h.v.mu.Lock()
				rows += h.v.drawLocked()
				h.v.mu.Unlock()
			}
			b.ReportMetric(float64(rows)/float64(b.N), "rows/frame")
		})
	}
}
