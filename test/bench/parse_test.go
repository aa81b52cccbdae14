//go:build linux

package bench

import (
	"testing"

	"github.com/paneflow-go/paneflow/terminal"
)

// parseSize is the size of each in-memory parse benchmark input.
const parseSize = 8 << 20

func BenchmarkParse(b *testing.B) {
	cases := []struct {
		name string
		gen  func() []byte
	}{
		{name: "plain", gen: func() []byte { return plainLines(parseSize, "\r\n") }},
		{name: "sgr", gen: func() []byte { return sgrLines(parseSize, "\r\n") }},
		{name: "tui", gen: func() []byte { return tuiFrames(parseSize, paneCols, paneRows) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			data := c.gen()
			e := terminal.NewEmulator(paneCols, paneRows, terminal.EmulatorOptions{})
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				writeChunks(b, e, data)
			}
		})
	}
}
