package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ProtocolVersion is the bridge protocol this build speaks. A client
// refuses a bridge that announces another one ([IncompatibleError]); it
// changes only when the records below do. The JSON-RPC inside the
// channels is the socket's own and versioned as the socket is.
const ProtocolVersion = 1

// helloWord starts the first line a bridge writes:
//
//	PANEFLOW-BRIDGE <protocol> <goos> <goarch> <version> [+<feature>…]\n
//
// Features are record kinds added within a protocol version: a client
// uses one only when the bridge names it, and a client that knows none
// reads them as part of the version (which it only ever shows).
const helloWord = "PANEFLOW-BRIDGE"

// FeatureTCP names the T record: the bridge dials a TCP port on its
// host's loopback (a port forward of the window, issue 30).
const FeatureTCP = "tcp"

// Records after the hello, in both directions, are a header line
// "<op> <channel> <n>\n" followed by n bytes:
//
//	O  client → bridge: open channel (dial the socket); n = 0
//	D  either way: n bytes of the channel's connection (the socket's
//	   newline-delimited JSON-RPC frames, relayed as bytes)
//	C  either way: the channel is closed; from the bridge the n bytes,
//	   if any, say why (a failed dial)
//	T  client → bridge (feature "tcp"): open channel to a TCP port of the
//	   bridge's host on its loopback address (127.0.0.1, else ::1); the
//	   n bytes are the port in decimal. Data and close as for O.
const (
	opOpen  = 'O'
	opData  = 'D'
	opClose = 'C'
	opTCP   = 'T'
)

// maxChunk is the most a D record carries; larger writes are split.
const maxChunk = 64 << 10

// maxQueued bounds what one channel may hold unread (either side): a
// reader that falls this far behind gets its channel closed instead of
// making the pipe, and every other channel, wait for it.
const maxQueued = 8 << 20

// Hello is what a bridge announces about itself.
type Hello struct {
	Protocol int    // its ProtocolVersion
	GOOS     string // its runtime.GOOS
	GOARCH   string // its runtime.GOARCH
	Version  string // its version.String()
	// Features are the record kinds beyond the protocol's first ones it
	// serves ([FeatureTCP]); nil for a bridge that names none.
	Features []string
}

// Has reports whether the bridge announced feature f.
func (h Hello) Has(f string) bool { return slices.Contains(h.Features, f) }

// line is the hello line, newline included.
func (h Hello) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %s %s %s", helloWord, h.Protocol, h.GOOS, h.GOARCH, h.Version)
	for _, f := range h.Features {
		b.WriteString(" +" + f)
	}
	b.WriteByte('\n')
	return b.String()
}

// parseHello parses a hello line without its newline; ok is false for
// anything else (a shell's message, a banner).
func parseHello(s string) (Hello, bool) {
	f := strings.Fields(s)
	if len(f) < 5 || f[0] != helloWord {
		return Hello{}, false
	}
	p, err := strconv.Atoi(f[1])
	if err != nil {
		return Hello{}, false
	}
	h := Hello{Protocol: p, GOOS: f[2], GOARCH: f[3]}
	var version []string
	for _, w := range f[4:] {
		if feat, ok := strings.CutPrefix(w, "+"); ok && feat != "" {
			h.Features = append(h.Features, feat)
		} else {
			version = append(version, w)
		}
	}
	h.Version = strings.Join(version, " ")
	return h, true
}

// appendRecord appends one record to dst.
func appendRecord(dst []byte, op byte, ch uint64, payload []byte) []byte {
	dst = append(dst, op, ' ')
	dst = strconv.AppendUint(dst, ch, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(len(payload)), 10)
	dst = append(dst, '\n')
	return append(dst, payload...)
}

// record is one parsed record; payload is valid until the next read.
type record struct {
	op      byte
	ch      uint64
	payload []byte
}

// recordReader reads records from a stream. It is not safe for concurrent
// use.
type recordReader struct {
	r   *bufio.Reader
	buf []byte
}

func newRecordReader(r *bufio.Reader) *recordReader { return &recordReader{r: r} }

// errBadRecord reports a stream that is not bridge records.
var errBadRecord = errors.New("remote: malformed bridge record")

// next reads one record.
func (rr *recordReader) next() (record, error) {
	head, err := rr.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return record{}, errBadRecord
		}
		return record{}, err
	}
	f := strings.Fields(string(head))
	if len(f) != 3 || len(f[0]) != 1 {
		return record{}, fmt.Errorf("%w: %q", errBadRecord, truncate(string(head), 80))
	}
	ch, err1 := strconv.ParseUint(f[1], 10, 64)
	n, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || n < 0 || n > maxChunk {
		return record{}, fmt.Errorf("%w: %q", errBadRecord, truncate(string(head), 80))
	}
	rec := record{op: f[0][0], ch: ch}
	if n > 0 {
		if cap(rr.buf) < n {
			rr.buf = make([]byte, maxChunk)
		}
		rec.payload = rr.buf[:n]
		if _, err := io.ReadFull(rr.r, rec.payload); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return record{}, err
		}
	}
	return rec, nil
}

// truncate cuts s to at most n bytes for an error message.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
