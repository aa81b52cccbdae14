//go:build unix

package ipc_test

import (
	"bufio"
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// reportMedian reports the median of the per-iteration durations in
// microseconds (the target for a raw socket call is ≤ 300 µs).
func reportMedian(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1e3, "median-µs")
}

// BenchmarkRoundTrip measures a trivial method through ipc.Client: dial,
// request, reply, close, as every CLI invocation does.
func BenchmarkRoundTrip(b *testing.B) {
	reg, _ := newTestRegistry()
	s := ipctest.StartServer(b, &ipc.Server{Registry: reg, Logf: func(string, ...any) {}})
	c := ipctest.Client(s)
	ctx := context.Background()
	durations := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if err := c.Call(ctx, "test.ping", nil, nil); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	reportMedian(b, durations)
}

// BenchmarkRoundTripPersistent measures a trivial method on one open
// connection: the server's share of a call, without connection setup.
func BenchmarkRoundTripPersistent(b *testing.B) {
	reg, _ := newTestRegistry()
	s := ipctest.StartServer(b, &ipc.Server{Registry: reg, Logf: func(string, ...any) {}})
	nc, err := net.Dial("unix", s.Path)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	r := bufio.NewReader(nc)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"test.ping"}` + "\n")
	durations := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if _, err := nc.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	reportMedian(b, durations)
}
