package terminal

import (
	"bytes"
	"fmt"
	"testing"
)

// benchInputs are generated streams resembling real output: plain log
// lines, dense SGR colouring and full-screen TUI redraws.
func benchPlain() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 4<<20; i++ {
		fmt.Fprintf(&b, "%06d the quick brown fox jumps over the lazy dog; lorem ipsum dolor sit amet\r\n", i)
	}
	return b.Bytes()
}

func benchSGR() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 4<<20; i++ {
		for j := 0; j < 10; j++ {
			switch j % 3 {
			case 0:
				fmt.Fprintf(&b, "\x1b[38;5;%dmword%d ", (i+j)%256, j)
			case 1:
				fmt.Fprintf(&b, "\x1b[1;38;2;%d;%d;%dmword%d\x1b[0m ", i%256, j*20, 100, j)
			default:
				fmt.Fprintf(&b, "\x1b[48;5;%dm\x1b[4mw%d\x1b[24m ", (i*3+j)%256, j)
			}
		}
		b.WriteString("\x1b[0m\r\n")
	}
	return b.Bytes()
}

func benchTUI() []byte {
	var b bytes.Buffer
	b.WriteString("\x1b[?1049h")
	for f := 0; b.Len() < 4<<20; f++ {
		b.WriteString("\x1b[H\x1b[2J")
		for y := 1; y <= 50; y++ {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[7m%3d\x1b[0m \x1b[32m│\x1b[0m frame %d row %d ─ some text in a pane", y, y, f, y)
		}
		b.WriteString("\x1b[50;1H")
	}
	return b.Bytes()
}

func benchWrite(b *testing.B, data []byte) {
	e := NewEmulator(200, 50, EmulatorOptions{})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		for p := data; len(p) > 0; {
			n := min(len(p), 4096)
			e.Write(p[:n])
			p = p[n:]
		}
	}
}

func BenchmarkParsePlain(b *testing.B) { benchWrite(b, benchPlain()) }
func BenchmarkParseSGR(b *testing.B)   { benchWrite(b, benchSGR()) }
func BenchmarkParseTUI(b *testing.B)   { benchWrite(b, benchTUI()) }

// BenchmarkSnapshot measures taking a snapshot of a full 200×50 screen,
// which is how long a reader holds the emulator's lock.
func BenchmarkSnapshot(b *testing.B) {
	e := NewEmulator(200, 50, EmulatorOptions{})
	e.Write(benchSGR()[:1<<16])
	var s Snapshot
	e.Snapshot(&s)
	b.ResetTimer()
	for range b.N {
		e.Snapshot(&s)
	}
}

// BenchmarkReadText200 measures reading the last 200 lines as text (what
// `paneflow read --lines 200` asks for) from a full scrollback.
func BenchmarkReadText200(b *testing.B) {
	e := NewEmulator(200, 50, EmulatorOptions{})
	e.Write(benchPlain())
	b.ResetTimer()
	for range b.N {
		if _, err := e.ReadText(200, 0); err != nil {
			b.Fatal(err)
		}
	}
}
