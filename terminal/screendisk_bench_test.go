//go:build linux

package terminal

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// floodScript prints 3000 distinct 200×50 screens on the alternate
// screen as fast as the PTY takes them (about 30 MB), once a line comes
// on its input.
const floodScript = `import sys
sys.stdin.readline()
out = sys.stdout.buffer
out.write(b"\x1b[?1049h")
for i in range(3000):
    rows = [(("%d-%d " % (i, y)) * 40)[:200] for y in range(50)]
    out.write(b"\x1b[H" + "\r\n".join(rows).encode())
out.flush()
`

// BenchmarkHistoryDiskFlood measures a pane flooding full-screen redraws
// with its screen history in memory only and with the journal on disk
// (16 MiB, workspace's default): the time until the program's output is
// all parsed and it ended (ns/op), and how many screens the history
// recorded. The two run one after the other in each -count round
// (interleaved pairs).
func BenchmarkHistoryDiskFlood(b *testing.B) {
	for _, disk := range []bool{false, true} {
		name := "memory"
		if disk {
			name = "disk"
		}
		b.Run(name, func(b *testing.B) {
			screens := 0
			for range b.N {
				b.StopTimer()
				term, err := Start(Options{Argv: []string{"python3", "-c", floodScript}, Cols: 200, Rows: 50, Background: true})
				if err != nil {
					b.Fatal(err)
				}
				h := term.Emulator().ScreenHistory()
				if disk {
					if _, err := h.OpenDisk(filepath.Join(b.TempDir(), "j"), 16<<20, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if err := term.SendInput([]byte("\n")); err != nil {
					b.Fatal(err)
				}
				<-term.Done()
				b.StopTimer()
				screens += h.Len()
				h.CloseDisk(false)
				term.Close()
			}
			b.ReportMetric(float64(screens)/float64(b.N), "screens")
		})
	}
}

// BenchmarkHistoryDiskRecord is the settle goroutine's cost of recording
// one 200×50 screen (every frame recorded: the worst case) in memory only
// and with the journal on disk, interleaved per -count round.
func BenchmarkHistoryDiskRecord(b *testing.B) {
	for _, disk := range []bool{false, true} {
		name := "memory"
		if disk {
			name = "disk"
		}
		b.Run(name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(7, 8))
			e := NewEmulator(200, 50, EmulatorOptions{})
			e.Write([]byte("\x1b[?1049h"))
			h := e.ScreenHistory()
			if disk {
				if _, err := h.OpenDisk(filepath.Join(b.TempDir(), "j"), 16<<20, nil); err != nil {
					b.Fatal(err)
				}
				defer h.CloseDisk(false)
			}
			b.ResetTimer()
			redraw(e, r, b.N)
		})
	}
}
