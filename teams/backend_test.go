//go:build !windows

package teams

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// startBackend serves a Backend over a fake host on a fresh socket;
// configure may set its fields first.
func startBackend(t *testing.T, configure func(*Backend)) (*Backend, *fakeHost) {
	t.Helper()
	dir, err := os.MkdirTemp("", "pft")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := newFakeHost()
	r := New(Options{Host: h, ClaudeConfigDir: dir})
	b := &Backend{Registry: r, Path: filepath.Join(dir, "panes.sock"), Logf: t.Logf}
	if configure != nil {
		configure(b)
	}
	if err := b.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- b.Serve() }()
	t.Cleanup(func() {
		b.Close()
		r.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return b, h
}

// backendConn is a raw line connection to a Backend.
type backendConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func dialBackend(t *testing.T, b *Backend) *backendConn {
	t.Helper()
	nc, err := ipc.DialSide(context.Background(), b.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetReadDeadline(time.Now().Add(time.Minute))
	return &backendConn{t: t, nc: nc, r: bufio.NewReaderSize(nc, 4<<20)}
}

func (c *backendConn) send(line string) {
	c.t.Helper()
	if _, err := c.nc.Write([]byte(line + "\n")); err != nil {
		c.t.Fatal(err)
	}
}

func (c *backendConn) recv() string {
	c.t.Helper()
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

// wantClosed reads until the end of the connection, failing if it does
// not come within a minute.
func (c *backendConn) wantClosed() {
	c.t.Helper()
	if _, err := io.Copy(io.Discard, c.r); err != nil {
		c.t.Fatalf("want the backend to close the connection: %v", err)
	}
}

func (c *backendConn) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}`)
	if got := c.recv(); !strings.Contains(got, `"protocol_version":"1"`) {
		c.t.Fatalf("initialize: %s", got)
	}
}

// TestBackendConnCap: past MaxConns, a connection is answered -32000 with
// the count and the limit and closed; a freed slot serves again.
func TestBackendConnCap(t *testing.T) {
	b, _ := startBackend(t, func(b *Backend) { b.MaxConns = 2 })
	first := dialBackend(t, b)
	first.initialize()
	dialBackend(t, b).initialize()
	extra := dialBackend(t, b)
	if got, want := extra.recv(), `{"error":{"code":-32000,"message":"server busy: 2 backend connections open, limit 2"},"id":null,"jsonrpc":"2.0"}`; got != want {
		t.Fatalf("third connection: %s, want %s", got, want)
	}
	extra.wantClosed()
	first.nc.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		c := dialBackend(t, b)
		// Until the backend has seen first's close, a connection is
		// refused at once: its busy line is written and the connection
		// closed, so this write may fail (EPIPE) while the line waits to
		// be read.
		c.nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}` + "\n"))
		got := c.recv()
		if strings.Contains(got, `"protocol_version":"1"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a connection after one closed: %s", got)
		}
	}
}

// TestBackendDeadlines: initialize must come within the first-line time
// (a silent or trickling client is closed); an initialized connection
// idle for the idle time is closed, unless a context it hears about is
// live.
func TestBackendDeadlines(t *testing.T) {
	// Short first-line and line times for the clients that never finish
	// a line; a short idle time (and first-line and line times no loaded
	// machine reaches) for the ones that do.
	short, _ := startBackend(t, func(b *Backend) {
		b.firstLine, b.lineTime = 100*time.Millisecond, 100*time.Millisecond
	})
	b, h := startBackend(t, func(b *Backend) {
		b.firstLine, b.lineTime, b.idle = time.Hour, time.Hour, 100*time.Millisecond
	})
	t.Run("silent", func(t *testing.T) { dialBackend(t, short).wantClosed() })
	t.Run("trickling", func(t *testing.T) {
		c := dialBackend(t, short)
		go func() {
			for _, ch := range []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`) {
				time.Sleep(30 * time.Millisecond)
				if _, err := c.nc.Write([]byte{ch}); err != nil {
					return
				}
			}
		}()
		c.wantClosed()
	})
	t.Run("idle with nothing to hear", func(t *testing.T) {
		c := dialBackend(t, b)
		c.initialize()
		c.wantClosed()
	})
	t.Run("idle with a live teammate", func(t *testing.T) {
		c := dialBackend(t, b)
		// Both in one write: the connection has its teammate before it
		// could idle.
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"spawn_agent","params":{"command":["cat"]}}`)
		if got := c.recv(); !strings.Contains(got, `"protocol_version":"1"`) {
			t.Fatalf("initialize: %s", got)
		}
		var res struct {
			Result struct {
				ContextID string `json:"context_id"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(c.recv()), &res); err != nil || res.Result.ContextID == "" {
			t.Fatalf("spawn_agent: %v %+v", err, res)
		}
		time.Sleep(500 * time.Millisecond) // five idle times, which the connection outlives
		c.send(`{"jsonrpc":"2.0","id":3,"method":"list"}`)
		if got := c.recv(); !strings.Contains(got, res.Result.ContextID) {
			t.Fatalf("list after idling: %s", got)
		}
		n, _ := parseContext(res.Result.ContextID)
		b.Registry.mu.Lock()
		sid := b.Registry.panes[n].surface
		b.Registry.mu.Unlock()
		h.exit(sid, 0) // gone: the connection has nothing left to hear about
		c.wantClosed()
	})
}

// TestBackendLineMemory is issue 25's "500 connections took the server
// from 41 to 679 MB", in the server's own heap: 64 connections each send
// a line of 1 MiB that never ends. Only bigLines of them at once may
// read past 64 KiB, so the heap grows by about 8 MiB + 64 × 68 KiB (twice
// that with the buffers' spare capacity), not 64 MiB and more.
func TestBackendLineMemory(t *testing.T) {
	const conns = 64
	b, _ := startBackend(t, func(b *Backend) { b.lineTime = time.Hour })
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	chunk := []byte(strings.Repeat("x", 64<<10))
	var wg sync.WaitGroup
	for range conns {
		// A bare connection: the test's own buffers would count too.
		nc, err := ipc.DialSide(context.Background(), b.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		wg.Go(func() {
			for range maxBackendLine/len(chunk) - 1 {
				if _, err := nc.Write(chunk); err != nil {
					return
				}
			}
		})
	}
	deadline := time.Now().Add(time.Minute)
	for len(b.big) < bigLines {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections read a long line, want %d", len(b.big), bigLines)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var most uint64
	for range 20 { // for a second: the bound holds throughout
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		most = max(most, m.HeapInuse)
		time.Sleep(50 * time.Millisecond)
	}
	growth := int64(most) - int64(before.HeapInuse)
	// A growing line buffer may have up to twice its length in capacity;
	// 8 MiB is room for the test's own. Unbounded, the lines alone would
	// take 64 MiB.
	const bound = 2*bigLines*maxBackendLine + conns*(2*smallLine+8<<10) + 8<<20
	t.Logf("heap grew by %.1f MiB with %d connections sending endless lines (bound %.1f MiB)", float64(growth)/(1<<20), conns, float64(bound)/(1<<20))
	if growth > bound {
		t.Errorf("heap grew by %d bytes, want at most %d", growth, bound)
	}
	b.Close() // unblocks the writers
	wg.Wait()
}

// TestBackendSlowReader: a client that sends requests and never reads
// the replies stops being read once maxQueued bytes wait for it, and is
// closed when a write stalls; the queue never holds much more.
func TestBackendSlowReader(t *testing.T) {
	b, h := startBackend(t, func(b *Backend) { b.writeTimeout = 300 * time.Millisecond })
	c := dialBackend(t, b)
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"spawn_agent","params":{"command":["cat"]}}`)
	var res struct {
		Result struct {
			ContextID string `json:"context_id"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(c.recv()), &res); err != nil {
		t.Fatal(err)
	}
	n, _ := parseContext(res.Result.ContextID)
	b.Registry.mu.Lock()
	sid := b.Registry.panes[n].surface
	b.Registry.mu.Unlock()
	p, _ := h.pane(sid)
	h.mu.Lock()
	line := strings.Repeat("y", 1000)
	p.text = Text{Screen: make([]string, 100), Cols: 1000}
	for i := range p.text.Screen {
		p.text.Screen[i] = line
	}
	h.mu.Unlock()
	req := []byte(`{"jsonrpc":"2.0","id":3,"method":"capture","params":{"context_id":"` + res.Result.ContextID + `"}}` + "\n")
	stop := make(chan struct{})
	go func() { // 1000 replies of 100 KB: 100 MB if nothing held it back
		for range 1000 {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.nc.Write(req); err != nil {
				return
			}
		}
	}()
	defer close(stop)
	const bound = maxQueued + 128<<10 // one more reply may be queued past the limit
	most := 0
	for {
		q, open := queuedFor(b.Registry)
		most = max(most, q)
		if !open {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if most > bound {
		t.Errorf("up to %d bytes queued for a client that does not read, want at most %d", most, bound)
	}
	t.Logf("at most %d bytes queued before the connection was closed", most)
}

// queuedFor returns the bytes queued for the registry's one backend
// connection, and false once it is gone.
func queuedFor(r *Registry) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.subs {
		s.mu.Lock()
		q := s.queued
		s.mu.Unlock()
		return q, true
	}
	return 0, false
}
