//go:build linux

package mcpe2e

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Targets of issue 15; each benchmark reports its median and the ratio
// median/target (≤ 1 meets it).
const (
	targetReadPane = 2 * time.Millisecond
	targetStart    = 30 * time.Millisecond
	targetUpdated  = 5 * time.Millisecond
)

// report sets a benchmark's metrics from its samples.
func report(b *testing.B, samples []time.Duration, target time.Duration) {
	slices.Sort(samples)
	med := samples[len(samples)/2]
	p90 := samples[len(samples)*9/10]
	b.ReportMetric(float64(med)/1e6, "median-ms")
	b.ReportMetric(float64(p90)/1e6, "p90-ms")
	b.ReportMetric(float64(med)/float64(target), "median/target")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBridgeReadPane times read_pane of 200 lines through the bridge,
// from the SDK's client: tools/call to its result.
func BenchmarkBridgeReadPane(b *testing.B) {
	s := startServer(b)
	id := s.split("bench", `i=0; while [ $i -lt 400 ]; do echo "line $i of the benchmark pane, some text to fill a row"; i=$((i+1)); done; exec sleep 600`)
	s.waitText(id, "line 399 of")
	c := connect(b, s.env, s.sock, legacy)
	args := map[string]any{"target": "bench", "lines": 200} // by name, as agents call it
	for range 20 {                                          // warm up
		c.mustCall(b, "read_pane", args)
	}
	const n = 300
	samples := make([]time.Duration, 0, n)
	b.ResetTimer()
	for range b.N {
		for range n {
			t0 := time.Now()
			c.mustCall(b, "read_pane", args)
			samples = append(samples, time.Since(t0))
		}
	}
	report(b, samples, targetReadPane)
}

// BenchmarkBridgeStart times paneflow-mcp from exec to an initialized
// session (the SDK client's Connect: initialize, its result, initialized).
func BenchmarkBridgeStart(b *testing.B) {
	s := startServer(b)
	const n = 30
	var samples []time.Duration
	b.ResetTimer()
	for range b.N {
		for range n {
			client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil)
			cmd := exec.Command(bridgeBin)
			cmd.Env = append(s.env[:len(s.env):len(s.env)], "PANEFLOW_SOCKET_PATH="+s.sock)
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			t0 := time.Now()
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: legacy})
			d := time.Since(t0)
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			samples = append(samples, d)
			cs.Close()
		}
	}
	report(b, samples, targetStart)
}

// BenchmarkBridgeUpdated times resources/updated after a line is printed:
// from sending a line to a subscribed pane running cat (surface.send_text
// on the socket, the PTY's echo) to the notification at the client. Each
// sample starts after a quiet spell longer than the bridge's
// UpdateInterval, so it measures the immediate notification, not the
// coalesced trailing one.
func BenchmarkBridgeUpdated(b *testing.B) {
	s := startServer(b)
	id := s.split("echo", "exec cat")
	c := connect(b, s.env, s.sock, legacy)
	ctx, cancel := context.WithTimeout(context.Background(), 10*callTimeout)
	defer cancel()
	if err := c.Subscribe(ctx, &sdk.SubscribeParams{URI: "pane://echo/content"}); err != nil {
		b.Fatal(err)
	}
	const n = 100
	var samples []time.Duration
	b.ResetTimer()
	for range b.N {
		for range n {
			time.Sleep(80 * time.Millisecond) // quiet: more than UpdateInterval (50 ms)
			for len(c.ev.updated) > 0 {
				<-c.ev.updated
			}
			t0 := time.Now()
			s.send(id, "x\n")
			select {
			case <-c.ev.updated:
			case <-ctx.Done():
				b.Fatal("no resources/updated")
			}
			samples = append(samples, time.Since(t0))
		}
	}
	report(b, samples, targetUpdated)
}
