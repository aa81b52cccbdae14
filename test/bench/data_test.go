//go:build linux

package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// endMarker is the last line of every generated stream, so a benchmark can
// check that a pane really shows the end of its input.
const endMarker = "END-OF-BENCHMARK-DATA"

// words are the vocabulary of the generated text.
var words = []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog",
	"terminal", "emulator", "scrollback", "paneflow", "agent", "build", "passed",
	"error:", "warning:", "main.go:42:", "func", "return", "nil", "0x7ffe", "ok", "FAIL"}

// newRand returns the deterministic random source all generators use.
func newRand(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(42, stream)) }

// appendWords appends words (and single spaces) to b until the line has
// exactly n characters.
func appendWords(b []byte, r *rand.Rand, n int) []byte {
	start := len(b)
	for len(b)-start < n {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, words[r.IntN(len(words))]...)
	}
	return b[:start+n]
}

// plainLines returns about size bytes of printable ASCII lines of 40 to 120
// characters (80 on average), each ending in eol, then the end marker.
func plainLines(size int, eol string) []byte {
	r := newRand(1)
	b := make([]byte, 0, size+200)
	for len(b) < size {
		b = appendWords(b, r, 40+r.IntN(81))
		b = append(b, eol...)
	}
	return append(b, endMarker+eol...)
}

// fixedLines returns about size bytes of printable ASCII lines of exactly
// width characters, each ending in eol, then the end marker.
func fixedLines(size, width int, eol string) []byte {
	r := newRand(4)
	b := make([]byte, 0, size+200)
	for len(b) < size {
		b = appendWords(b, r, width)
		b = append(b, eol...)
	}
	return append(b, endMarker+eol...)
}

// sgrLines returns about size bytes of lines of about 80 visible characters
// in which every 2 to 6 characters an SGR sequence changes the colours or
// attributes (256-colour, truecolour, bold, underline, reset), each line
// ending in a reset and eol, then the end marker.
func sgrLines(size int, eol string) []byte {
	r := newRand(2)
	b := make([]byte, 0, size+200)
	for len(b) < size {
		visible := 0
		width := 60 + r.IntN(41)
		for visible < width {
			b = appendSGR(b, r)
			n := min(2+r.IntN(5), width-visible)
			b = appendWords(b, r, n)
			visible += n
		}
		b = append(b, "\x1b[0m"...)
		b = append(b, eol...)
	}
	return append(b, endMarker+eol...)
}

// appendSGR appends one random SGR sequence.
func appendSGR(b []byte, r *rand.Rand) []byte {
	switch r.IntN(7) {
	case 0, 1:
		return fmt.Appendf(b, "\x1b[38;5;%dm", r.IntN(256))
	case 2:
		return fmt.Appendf(b, "\x1b[48;5;%dm", r.IntN(256))
	case 3:
		return fmt.Appendf(b, "\x1b[38;2;%d;%d;%dm", r.IntN(256), r.IntN(256), r.IntN(256))
	case 4:
		return fmt.Appendf(b, "\x1b[48;2;%d;%d;%dm", r.IntN(256), r.IntN(256), r.IntN(256))
	case 5:
		return append(b, "\x1b[1;4m"...)
	default:
		return append(b, "\x1b[0m"...)
	}
}

// tuiFrames returns about size bytes of a full-screen program redrawing a
// cols×rows screen on the alternate screen, the way editors and agent TUIs
// do: absolute cursor moves, coloured spans, erase to end of line, a
// reverse-video status line, and scrolling of a region, then the end marker.
func tuiFrames(size, cols, rows int) []byte {
	r := newRand(3)
	b := make([]byte, 0, size+4096)
	b = append(b, "\x1b[?1049h\x1b[?25l"...)
	for frame := 0; len(b) < size; frame++ {
		if frame%4 == 3 {
			// Scroll the body region by a few lines and fill the new rows.
			n := 1 + r.IntN(3)
			b = fmt.Appendf(b, "\x1b[2;%dr\x1b[%d;1H", rows-1, rows-1)
			for range n {
				b = append(b, '\n')
			}
			b = append(b, "\x1b[r"...)
			for k := range n {
				b = fmt.Appendf(b, "\x1b[%d;1H\x1b[38;5;%dm", rows-1-k, r.IntN(256))
				b = appendWords(b, r, 20+r.IntN(cols-20))
				b = append(b, "\x1b[0m\x1b[K"...)
			}
		} else {
			b = append(b, "\x1b[H"...)
			for y := 1; y < rows; y++ {
				b = fmt.Appendf(b, "\x1b[%d;1H", y)
				x := 0
				for x < cols-12 && r.IntN(5) != 0 {
					n := min(4+r.IntN(20), cols-x)
					b = appendSGR(b, r)
					b = appendWords(b, r, n)
					x += n
				}
				b = append(b, "\x1b[0m\x1b[K"...)
			}
		}
		b = fmt.Appendf(b, "\x1b[%d;1H\x1b[7m", rows)
		b = appendWords(b, r, cols)
		b = append(b, "\x1b[0m"...)
	}
	return append(b, "\x1b[?25h\x1b[?1049l"+endMarker+"\r\n"...)
}

// Sizes of the PTY benchmark inputs.
const (
	plainFileSize = 100_000_000
	sgrFileSize   = 30_000_000
	// plain100FileSize is the size of the input of issue 17's
	// measurement of the PTY's limit: 100-character lines.
	plain100FileSize = 60_000_000
)

// dataEnv names the environment variable that points the benchmarks at a
// directory for their input files. Files there are kept and reused by later
// runs (scripts/bench.sh runs go test once per sample and removes the
// directory at the end); without it each test binary writes its own files
// and removes them on exit.
const dataEnv = "PANEFLOW_BENCH_DATA"

var (
	dataDirOnce sync.Once
	dataDir     string
	dataDirOwn  bool // dataDir was created by this process and is removed by TestMain
	dataDirErr  error

	filesMu sync.Mutex
	files   = map[string]string{}
)

// dataFile returns the path of a generated input file, writing it on first
// use. The name must change whenever the generator's output does.
func dataFile(tb testing.TB, name string, gen func() []byte) string {
	tb.Helper()
	dataDirOnce.Do(func() {
		if dataDir = os.Getenv(dataEnv); dataDir != "" {
			dataDirErr = os.MkdirAll(dataDir, 0o755)
			return
		}
		dataDir, dataDirErr = os.MkdirTemp("", "paneflow-bench-")
		dataDirOwn = dataDirErr == nil
	})
	if dataDirErr != nil {
		tb.Fatal(dataDirErr)
	}
	filesMu.Lock()
	defer filesMu.Unlock()
	if p, ok := files[name]; ok {
		return p
	}
	p := filepath.Join(dataDir, name)
	if _, err := os.Stat(p); err != nil {
		// Write under a temporary name first so that an interrupted run
		// never leaves a truncated file for the next one to reuse.
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, gen(), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			tb.Fatal(err)
		}
	}
	files[name] = p
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dataDirOwn {
		os.RemoveAll(dataDir)
	}
	os.Exit(code)
}

func TestGenerators(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		size     int
		minESC   int // minimum number of escape sequences
		lineEnds string
	}{
		{name: "plain", data: plainLines(100_000, "\n"), size: 100_000, lineEnds: "\n"},
		{name: "plain crlf", data: plainLines(100_000, "\r\n"), size: 100_000, lineEnds: "\r\n"},
		{name: "plain100", data: fixedLines(100_000, 100, "\n"), size: 100_000, lineEnds: "\n"},
		{name: "sgr", data: sgrLines(100_000, "\n"), size: 100_000, minESC: 100_000 / 40, lineEnds: "\n"},
		{name: "tui", data: tuiFrames(100_000, 200, 50), size: 100_000, minESC: 100_000 / 60, lineEnds: "\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(tt.data); got < tt.size || got > tt.size+5000 {
				t.Errorf("size: got %d bytes, want %d to %d", got, tt.size, tt.size+5000)
			}
			if !bytes.HasSuffix(tt.data, []byte(endMarker+tt.lineEnds)) {
				t.Errorf("got suffix %q, want the end marker and %q", tt.data[max(0, len(tt.data)-40):], tt.lineEnds)
			}
			if got := bytes.Count(tt.data, []byte("\x1b[")); got < tt.minESC {
				t.Errorf("escape sequences: got %d, want at least %d", got, tt.minESC)
			}
			for _, c := range tt.data {
				if c < 0x20 && c != '\n' && c != '\r' && c != 0x1b || c >= 0x7f {
					t.Fatalf("got byte %#x, want printable ASCII, CR, LF and ESC only", c)
				}
			}
		})
	}
	if !bytes.Equal(plainLines(10_000, "\n"), plainLines(10_000, "\n")) {
		t.Error("plainLines is not deterministic")
	}
}

func TestFixedLineLengths(t *testing.T) {
	data := fixedLines(100_000, 100, "\n")
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for _, l := range lines[:len(lines)-1] {
		if len(l) != 100 {
			t.Fatalf("line length: got %d, want 100", len(l))
		}
	}
}

func TestPlainLineLengths(t *testing.T) {
	data := plainLines(1_000_000, "\n")
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	total := 0
	for _, l := range lines[:len(lines)-1] {
		if len(l) < 40 || len(l) > 120 {
			t.Fatalf("line length: got %d, want 40 to 120", len(l))
		}
		total += len(l)
	}
	if avg := total / (len(lines) - 1); avg < 75 || avg > 85 {
		t.Errorf("average line length: got %d, want about 80", avg)
	}
}
