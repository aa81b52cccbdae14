package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"
)

// discardConn is a net.Conn whose writes go nowhere.
type discardConn struct{ net.Conn }

func (discardConn) Write(b []byte) (int, error)      { return len(b), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }

// TestWriteFrameRaw: a json.RawMessage frame is written as it is, one
// with a line break compacted onto one line.
func TestWriteFrameRaw(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"screen","a":[1,2]}`, `{"type":"screen","a":[1,2]}`},
		{"{\"type\":\n \"screen\"}", `{"type":"screen"}`},
	} {
		data, err := frameData(json.RawMessage(tc.in))
		if err != nil || string(data) != tc.want {
			t.Errorf("frameData(%q) = %q, %v; want %q", tc.in, data, err, tc.want)
		}
	}
}

// BenchmarkWriteFrameRaw writes an encoded screen frame of the size of a
// key's echo and of a flood's full screen.
func BenchmarkWriteFrameRaw(b *testing.B) {
	for _, n := range []int{300, 60 << 10} {
		frame := json.RawMessage(`{"type":"screen","rows":"` + string(bytes.Repeat([]byte("x"), n)) + `"}`)
		b.Run(map[int]string{300: "echo", 60 << 10: "full"}[n], func(b *testing.B) {
			w := &frameWriter{ctx: context.Background(), nc: discardConn{}, timeout: time.Minute}
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if err := w.WriteFrame(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
