package attach

import (
	"testing"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// echoFrames returns a full 120x40 screen frame and the delta frame of
// one key echoed at a coloured prompt.
func echoFrames(b testing.TB) (full, echo []byte) {
	emu := terminal.NewEmulator(120, 40, terminal.EmulatorOptions{})
	for i := range 30 {
		emu.Write([]byte("\x1b[1;32muser@host\x1b[0m:\x1b[34m~/src/paneflow\x1b[0m$ ls -la some/dir " + string(rune('a'+i%26)) + "\r\n"))
	}
	emu.Write([]byte("\x1b[1;32muser@host\x1b[0m:\x1b[34m~/src/paneflow\x1b[0m$ ech"))
	enc := NewEncoder(7)
	f, _ := enc.Update(emu)
	full = f.AppendJSON(nil)
	emu.Write([]byte("o"))
	f, _ = enc.Update(emu)
	echo = f.AppendJSON(nil)
	return full, echo
}

// decodeApply decodes data as the client's reader does and applies it
// to m.
func decodeApply(b *testing.B, m *Mirror, data []byte) {
	var f proto.ScreenFrame
	if err := proto.DecodeScreenFrame(data, &f); err != nil {
		b.Fatal(err)
	}
	if err := m.Apply(&f); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDecodeEchoFrame: an attached window's decode and apply of a
// key's echo (issue 26: encoding/json took 16-20 µs of CPU of it).
func BenchmarkDecodeEchoFrame(b *testing.B) {
	full, echo := echoFrames(b)
	var m Mirror
	decodeApply(b, &m, full)
	b.Logf("echo frame %d bytes: %s", len(echo), echo)
	b.ReportAllocs()
	for b.Loop() {
		decodeApply(b, &m, echo)
	}
}

// BenchmarkDecodeFullFrame: the same for a full 120x40 screen.
func BenchmarkDecodeFullFrame(b *testing.B) {
	full, _ := echoFrames(b)
	b.Logf("full frame %d bytes", len(full))
	b.ReportAllocs()
	for b.Loop() {
		var m Mirror
		decodeApply(b, &m, full)
	}
}

// BenchmarkEncodeFullFrame: the server's first full frame of a 120x40
// screen for a new client (a new Encoder: snapshot, encode, JSON), what
// attaching costs per pane (issue 26's attach benchmark).
func BenchmarkEncodeFullFrame(b *testing.B) {
	emu := terminal.NewEmulator(120, 40, terminal.EmulatorOptions{})
	for i := range 40 {
		emu.Write([]byte("\x1b[1;32muser@host\x1b[0m:\x1b[34m~/src/paneflow\x1b[0m$ ls -la some/dir " + string(rune('a'+i%26)) + " the quick brown fox jumps over the lazy dog\r\n"))
	}
	b.ReportAllocs()
	var frames [][]byte
	for b.Loop() {
		frames = NewEncoder(7).Frames(emu, 1<<20, frames[:0])
	}
}

// BenchmarkEncodeEchoFrame: the server's frame for one key's echo (a
// snapshot of the screen, the row diff, JSON), per attached key.
func BenchmarkEncodeEchoFrame(b *testing.B) {
	emu := terminal.NewEmulator(120, 40, terminal.EmulatorOptions{})
	for i := range 30 {
		emu.Write([]byte("\x1b[1;32muser@host\x1b[0m:\x1b[34m~/src/paneflow\x1b[0m$ ls -la some/dir " + string(rune('a'+i%26)) + "\r\n"))
	}
	enc := NewEncoder(7)
	frames := enc.Frames(emu, 1<<20, nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		emu.Write([]byte{byte('a' + i%26)})
		if i%100 == 99 {
			emu.Write([]byte("\r\x1b[K"))
		}
		frames = enc.Frames(emu, 1<<20, frames[:0])
	}
}
