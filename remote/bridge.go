package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
)

// Serve is `paneflow bridge`: it writes hello to out, then relays the
// channels the client opens on in (records, see wire.go) to connections
// made by dial (ipc.DialSocket on this host's socket, as this user) and
// back. Each channel is one socket connection, so the server sees and
// admits each as it would a local client's. Serve returns nil once in
// ends (the client, or ssh, went away), having closed every connection;
// an error when out fails or in is not bridge records.
//
// A channel whose reader falls more than 8 MiB behind is closed (the
// other channels go on).
//
// Serve also serves [FeatureTCP] (and adds it to hello): a T record's
// channel is a TCP connection to a port of this host's loopback address,
// dialed as this user; a window's port forward (see dialLoopback for what
// it may reach).
func Serve(ctx context.Context, in io.Reader, out io.Writer, hello Hello, dial func(context.Context) (net.Conn, error)) error {
	if !hello.Has(FeatureTCP) {
		hello.Features = append(slices.Clone(hello.Features), FeatureTCP)
	}
	w := &recordWriter{w: out}
	if err := w.raw([]byte(hello.line())); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chans := map[uint64]*bridgeChan{}
	var wg sync.WaitGroup
	defer func() {
		for _, c := range chans {
			c.shut()
		}
		wg.Wait()
	}()
	rr := newRecordReader(bufio.NewReaderSize(in, 64<<10))
	for {
		rec, err := rr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch rec.op {
		case opOpen, opTCP:
			if old := chans[rec.ch]; old != nil {
				old.shut()
			}
			c := newBridgeChan(rec.ch, w)
			chans[rec.ch] = c
			chanDial := dial
			if rec.op == opTCP {
				chanDial = dialLoopback(string(rec.payload))
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.run(ctx, chanDial)
			}()
		case opData:
			if c := chans[rec.ch]; c != nil && !c.push(rec.payload) {
				delete(chans, rec.ch)
			}
		case opClose:
			if c := chans[rec.ch]; c != nil {
				c.closeAfterFlush()
				delete(chans, rec.ch)
			}
		default:
			return fmt.Errorf("%w: op %q", errBadRecord, rec.op)
		}
	}
}

// dialLoopback is the dial of a T record's channel: the TCP port port
// (decimal, 1–65535) on 127.0.0.1, else on ::1 (a server that listens on
// "localhost" may have taken either). It never dials another address: the
// bridge forwards to the host itself, as `ssh -L p:localhost:p` would,
// not onwards into the host's network.
func dialLoopback(port string) func(context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return nil, fmt.Errorf("not a TCP port: %q", truncate(port, 20))
		}
		var d net.Dialer
		nc, err4 := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", port))
		if err4 == nil {
			return nc, nil
		}
		nc, err6 := d.DialContext(ctx, "tcp", net.JoinHostPort("::1", port))
		if err6 == nil {
			return nc, nil
		}
		return nil, fmt.Errorf("nothing answers on port %s of the host's loopback (%v)", port, err4)
	}
}

// recordWriter writes whole records to one stream; safe for concurrent
// use.
type recordWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// raw writes b as is.
func (w *recordWriter) raw(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	_, w.err = w.w.Write(b)
	return w.err
}

// record writes one record, splitting data over maxChunk.
func (w *recordWriter) record(op byte, ch uint64, payload []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if w.err != nil {
			return w.err
		}
		n := min(len(payload), maxChunk)
		w.buf = appendRecord(w.buf[:0], op, ch, payload[:n])
		_, w.err = w.w.Write(w.buf)
		if cap(w.buf) > 2*maxChunk {
			w.buf = nil
		}
		payload = payload[n:]
		if len(payload) == 0 {
			return w.err
		}
	}
}

// bridgeChan is one channel on the bridge's side: the data the client
// sent, queued for the socket connection, which its goroutine writes.
type bridgeChan struct {
	id uint64
	w  *recordWriter

	mu      sync.Mutex
	cond    *sync.Cond
	queue   [][]byte // guarded by mu
	queued  int      // bytes in queue, guarded by mu
	closing bool     // the client closed: flush, then close; guarded by mu
	dead    bool     // close now, drop the queue; guarded by mu
	nc      net.Conn // set once dialed, guarded by mu

	closeOnce sync.Once
}

func newBridgeChan(id uint64, w *recordWriter) *bridgeChan {
	c := &bridgeChan{id: id, w: w}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// push queues data for the socket; false when the channel had to be
// closed for falling behind.
func (c *bridgeChan) push(data []byte) bool {
	c.mu.Lock()
	if c.dead || c.closing {
		c.mu.Unlock()
		return true
	}
	if c.queued+len(data) > maxQueued {
		c.mu.Unlock()
		c.fail("the server did not read its input (over 8 MiB queued)")
		c.shut()
		return false
	}
	c.queue = append(c.queue, append([]byte(nil), data...))
	c.queued += len(data)
	c.cond.Signal()
	c.mu.Unlock()
	return true
}

// closeAfterFlush closes the connection once what was queued is written.
func (c *bridgeChan) closeAfterFlush() {
	c.mu.Lock()
	c.closing = true
	c.cond.Signal()
	c.mu.Unlock()
}

// shut closes the connection now.
func (c *bridgeChan) shut() {
	c.mu.Lock()
	c.dead = true
	nc := c.nc
	c.cond.Signal()
	c.mu.Unlock()
	if nc != nil {
		nc.Close()
	}
}

// fail tells the client the channel is closed, once, with why.
func (c *bridgeChan) fail(why string) {
	c.closeOnce.Do(func() { c.w.record(opClose, c.id, []byte(why)) })
}

// run dials, then writes the queue to the connection while a second
// goroutine relays what the server sends.
func (c *bridgeChan) run(ctx context.Context, dial func(context.Context) (net.Conn, error)) {
	nc, err := dial(ctx)
	if err != nil {
		c.fail(err.Error())
		return
	}
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		nc.Close()
		c.fail("")
		return
	}
	c.nc = nc
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, maxChunk)
		for {
			n, err := nc.Read(buf)
			if n > 0 {
				if c.w.record(opData, c.id, buf[:n]) != nil {
					c.shut()
					return
				}
			}
			if err != nil {
				c.fail("")
				c.shut()
				return
			}
		}
	}()
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closing && !c.dead {
			c.cond.Wait()
		}
		if c.dead || (c.closing && len(c.queue) == 0) {
			c.mu.Unlock()
			break
		}
		b := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.queued -= len(b)
		c.mu.Unlock()
		if _, err := nc.Write(b); err != nil {
			break
		}
	}
	c.shut()
	<-done
}
