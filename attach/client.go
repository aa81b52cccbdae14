package attach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// Options say what a [Client] attaches to.
type Options struct {
	// Surfaces are the panes to mirror; nil means every pane, including
	// the ones created later.
	Surfaces []uint64
	// FPS is the most frames per second per pane to receive; 0 means
	// proto.DefaultAttachFPS.
	FPS int
	// CallTimeout bounds each on-demand call (scrollback, text, input,
	// resize); 0 means 5 s.
	CallTimeout time.Duration
	// Dial, if set, makes the connections instead of dialing the path
	// (ipc.Client's Dial): a window attached to another host's server
	// through package remote. The path then only names the server.
	Dial func(ctx context.Context) (net.Conn, error)
	// InputRefused, if set, is told about input that was dropped: the
	// server refused a pane's screen.input (its error reply: the pane is
	// closed, the scripting gate is closed to this attachment, ...) or
	// SendInput found 4 MiB still waiting. err says why. It is not called
	// for input lost with the connection (Done and Err report that). It
	// runs on one of the Client's goroutines or SendInput's caller, so it
	// must not block (a window posts it to its UI goroutine).
	InputRefused func(surfaceID uint64, err error)
}

// Client is one attachment to a Paneflow server: the screen.attach stream
// that keeps a [Pane] mirror per pane, and one concurrent connection for
// the on-demand calls (input, resize, scrollback). The server closes a
// connection that sends no request for a while (ipc.Server's IdleTimeout,
// 30 s) and may evict an idle one; the stream has no such limit, so the
// call connection is an ipc.Redialer: dialled again when it ended, and
// replaced before the server's limit when it sat idle (callIdle). Create it with
// [Dial]; it is safe for concurrent use. Close it to detach (the panes
// and their programs keep running).
type Client struct {
	stream *ipc.Stream
	ctx    context.Context // the stream's: cancelled by Close
	cancel context.CancelFunc
	token  string
	// readOnly is the attached frame's ReadOnly: why writes are refused
	// while the scripting gate is closed, or "".
	readOnly string
	timeout  time.Duration
	done     chan struct{} // closed when the stream ended
	// refusedHook is Options.InputRefused (nil: not reported).
	refusedHook func(surfaceID uint64, err error)

	mu    sync.Mutex
	panes map[uint64]*Pane // guarded by mu
	err   error            // why the stream ended, guarded by mu

	// calls is the call connection (see Client.call).
	calls *ipc.Redialer

	// The input queue: the panes' SendInput appends, sendInputs sends
	// in order (see Pane.SendInput).
	inMu    sync.Mutex
	inQ     []queuedInput // guarded by inMu
	inBytes int           // bytes in inQ, guarded by inMu
	inWake  chan struct{} // 1-buffered: inQ has input
	// inSent is a screen.input whose request queueInput wrote itself
	// (Redialer.StartNow); sendInputs waits for its reply before it sends inQ.
	// inBusy is set while sendInputs has input to send or a reply to
	// wait for: queueInput then queues. Both guarded by inMu.
	inSent   *ipc.Pending
	inSentID uint64 // inSent's pane
	inBusy   bool
	// notify is the attached frame's InputRefused: a key goes as a
	// screen.input notification (no reply) and a refusal comes on the
	// stream. unsynced is the bytes of notifications sent since the last
	// screen.input call's reply (which shows the server read them all);
	// past maxUnsynced the next key goes as a call. Guarded by inMu.
	notify   bool
	unsynced int
	inQuit   chan struct{} // closed by Close
	inDone   chan struct{} // closed when sendInputs returned
	quit     sync.Once
}

// queuedInput is one screen.input call waiting to be sent.
type queuedInput struct {
	id   uint64
	data []byte
}

// callIdle is how long the call connection may sit without a call before
// the next call dials a new one: under ipc.DefaultIdleTimeout, after which
// the server closes it, so a call never races that close (a request
// written as the server closes the connection might or might not have
// run, and is not sent again).
const callIdle = ipc.DefaultIdleTimeout / 2

// Bounds of the input queue.
const (
	// maxInputCall is the most bytes of one screen.input call (the
	// server's limit).
	maxInputCall = 64 << 10
	// maxQueuedInput is the most bytes queued while the server is slow
	// to take them; SendInput fails past it.
	maxQueuedInput = 4 << 20
	// maxSendNow is the most bytes SendInput writes itself (a key, not a
	// paste): a write that small into a socket with no request waiting
	// in it does not wait.
	maxSendNow = 4 << 10
	// maxUnsynced is the most bytes of screen.input notifications sent
	// without a reply from the server since (a fraction of a socket's
	// send buffer): the notifications the server has still to read never
	// fill the socket, so writing one never waits.
	maxUnsynced = 32 << 10
)

// Dial attaches to the server at path (a socket path, as ipc.Client's
// Path). ctx bounds the dial and the handshake only.
func Dial(ctx context.Context, path string, o Options) (*Client, error) {
	p := proto.ScreenAttachParams{Surfaces: o.Surfaces}
	if o.FPS != 0 {
		p.FPS = &o.FPS
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 5 * time.Second
	}
	dialCalls := func(ctx context.Context) (*ipc.Mux, error) {
		if o.Dial != nil {
			return ipc.DialMuxWith(ctx, path, o.Dial)
		}
		return ipc.DialMux(ctx, path)
	}
	// The call connection is dialed beside the stream: dialed after its
	// attached frame, its round trip held up the first frames (nothing
	// read them until Dial returned; issue 26's attach benchmark).
	type dialed struct {
		mux *ipc.Mux
		err error
	}
	muxc := make(chan dialed, 1)
	go func() {
		m, err := dialCalls(ctx)
		muxc <- dialed{m, err}
	}()
	dropMux := func() {
		go func() {
			if d := <-muxc; d.mux != nil {
				d.mux.Close()
			}
		}()
	}
	sctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel) // ctx bounds the handshake
	ic := &ipc.Client{Path: path, Dial: o.Dial}
	if d, ok := ctx.Deadline(); ok {
		ic.Timeout = max(time.Until(d), time.Millisecond)
	}
	st, err := ic.Subscribe(sctx, proto.MethodScreenAttach, p)
	if err != nil {
		stop()
		cancel()
		dropMux()
		return nil, err
	}
	first, err := st.Next()
	var ack proto.AttachedFrame
	if err == nil {
		err = json.Unmarshal(first, &ack)
	}
	if err == nil && (ack.Type != proto.FrameAttached || ack.Token == "") {
		err = fmt.Errorf("attach: first frame %.80s is not an attached frame", first)
	}
	if err != nil {
		stop()
		st.Close()
		cancel()
		dropMux()
		return nil, err
	}
	d := <-muxc
	mux, err := d.mux, d.err
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if mux != nil {
			mux.Close()
		}
		st.Close()
		cancel()
		return nil, err
	}
	c := &Client{
		stream: st, ctx: sctx, cancel: cancel,
		token: ack.Token, readOnly: ack.ReadOnly, timeout: o.CallTimeout, done: make(chan struct{}),
		refusedHook: o.InputRefused, notify: ack.InputRefused,
		panes:  make(map[uint64]*Pane),
		inWake: make(chan struct{}, 1), inQuit: make(chan struct{}), inDone: make(chan struct{}),
	}
	c.calls = ipc.NewRedialer(mux, callIdle, func(ctx context.Context) (*ipc.Mux, error) {
		select {
		case <-c.done:
			// The stream ended: the calls fail (they need a server that
			// still streams to this client), no new connection is made.
			return nil, fmt.Errorf("attach: the screen stream ended: %w", net.ErrClosed)
		default:
		}
		return dialCalls(ctx)
	})
	go c.read()
	go c.sendInputs()
	return c, nil
}

// Close detaches: it ends the stream and the call connection. The panes'
// mirrors stay as they were; their calls fail from then on, and input
// still queued is dropped.
func (c *Client) Close() error {
	c.quit.Do(func() { close(c.inQuit) })
	c.cancel()
	c.stream.Close()
	err := c.calls.Close()
	<-c.done
	<-c.inDone
	return err
}

// queueInput queues data for pane id, merged with the input queued last
// when that is the same pane's and the call stays within the server's
// limit.
func (c *Client) queueInput(id uint64, data []byte) error {
	select {
	case <-c.inQuit:
		return net.ErrClosed
	case <-c.done:
		return fmt.Errorf("attach: the screen stream ended: %w", errOr(c.Err(), net.ErrClosed))
	default:
	}
	c.inMu.Lock()
	if c.inBytes+len(data) > maxQueuedInput {
		err := fmt.Errorf("attach: %d bytes of input are still waiting for the server", c.inBytes)
		c.inMu.Unlock()
		if c.refusedHook != nil {
			c.refusedHook(id, err)
		}
		return err
	}
	if !c.inBusy && len(data) <= maxSendNow {
		// Nothing queued or out: the request goes from here, with no
		// goroutine hand-off before the server sees the key (issue 26,
		// the attached window's echo). It is a notification while the
		// server has read all but maxUnsynced bytes of the earlier ones:
		// no reply to write, read and wait for; a refusal comes on the
		// stream (read). Else a call, whose reply sendInputs waits for.
		// Neither waits (no dial, a small write into a socket with
		// room), so inMu is held: a concurrent SendInput queues behind
		// this one.
		params := proto.ScreenInputParams{Token: c.token, SurfaceID: id, Data: data}
		if c.notify && c.unsynced < maxUnsynced {
			n, ok, err := c.calls.NotifyNow(proto.MethodScreenInput, params)
			if ok && !errors.Is(err, ipc.ErrNotSent) {
				// Sent, or it may have reached the server: not sent again.
				c.unsynced += n
				c.inMu.Unlock()
				return nil
			}
		} else {
			p, ok, err := c.calls.StartNow(proto.MethodScreenInput, params)
			switch {
			case ok && err == nil:
				c.inSent, c.inSentID = p, id
				data = nil
			case ok && !errors.Is(err, ipc.ErrNotSent):
				data = nil // it may have reached the server: not sent again
			}
		}
	}
	c.inBusy = true
	c.inBytes += len(data)
	for len(data) > 0 {
		if n := len(c.inQ); n > 0 && c.inQ[n-1].id == id && len(c.inQ[n-1].data) < maxInputCall {
			last := &c.inQ[n-1]
			k := min(len(data), maxInputCall-len(last.data))
			last.data = append(last.data, data[:k]...)
			data = data[k:]
			continue
		}
		k := min(len(data), maxInputCall)
		c.inQ = append(c.inQ, queuedInput{id: id, data: append([]byte(nil), data[:k]...)})
		data = data[k:]
	}
	c.inMu.Unlock()
	select {
	case c.inWake <- struct{}{}:
	default:
	}
	return nil
}

// synced records the reply of a screen.input call: the server has read
// every notification sent before it.
func (c *Client) synced() {
	c.inMu.Lock()
	c.unsynced = 0
	c.inMu.Unlock()
}

// errOr returns err, or def when err is nil.
func errOr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// sendInputs sends the queued input, oldest first, one screen.input call
// at a time (the server writes each to the program before it answers, so
// the order holds), until Close. A request queueInput wrote itself goes
// first: its reply is waited for before the queue is sent.
func (c *Client) sendInputs() {
	defer close(c.inDone)
	var batch []queuedInput
	for {
		select {
		case <-c.inWake:
		case <-c.inQuit:
			return
		}
		for {
			c.inMu.Lock()
			sent, sentID := c.inSent, c.inSentID
			c.inSent = nil
			batch, c.inQ = c.inQ, batch[:0]
			c.inBytes = 0
			if sent == nil && len(batch) == 0 {
				c.inBusy = false
				c.inMu.Unlock()
				break
			}
			c.inMu.Unlock()
			if sent != nil {
				ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
				// As below: a refused or lost write drops its input.
				c.reportRefused(sentID, c.syncedBy(sent.Wait(ctx, nil)))
				cancel()
			}
			for _, in := range batch {
				// A refused or lost write drops its input, as a closed
				// pane's does: a refusal is reported (InputRefused), a
				// lost connection by the stream's end.
				c.reportRefused(in.id, c.syncedBy(c.sendInput(in.id, in.data)))
			}
			clear(batch)
		}
	}
}

// syncedBy returns err, the outcome of a screen.input call, after
// recording that its reply came (synced) when one did: success or the
// server's error reply.
func (c *Client) syncedBy(err error) error {
	var rpcErr *ipc.Error
	if err == nil || errors.As(err, &rpcErr) {
		c.synced()
	}
	return err
}

// sendInput makes one screen.input call and waits for its answer.
func (c *Client) sendInput(id uint64, data []byte) error {
	return c.call(func(ctx context.Context, calls proto.Client) error {
		_, err := calls.ScreenInput(ctx, proto.ScreenInputParams{Token: c.token, SurfaceID: id, Data: data})
		return err
	})
}

// reportRefused tells Options.InputRefused about err when it is the
// server's refusal of pane id's input (an error reply).
func (c *Client) reportRefused(id uint64, err error) {
	var rpcErr *ipc.Error
	if c.refusedHook != nil && errors.As(err, &rpcErr) {
		c.refusedHook(id, err)
	}
}

// ReadOnly reports why the server will refuse this attachment's input,
// resize and reset while its scripting gate is closed (this process runs
// inside one of its panes), or "" when it accepts them.
func (c *Client) ReadOnly() string { return c.readOnly }

// Done is closed when the stream ended (Close, the server went away, or a
// malformed frame); Err says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err reports why the stream ended (nil while it runs, and after Close).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Pane returns the mirror of pane id, creating an empty one (no screen
// until its first frame arrives: Watch says when) if none exists yet. A
// pane closed on the server is forgotten once its Closed channel is
// closed; asking for it again gives a new, empty mirror that never fills.
func (c *Client) Pane(id uint64) *Pane {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.panes[id]
	if p == nil {
		p = &Pane{c: c, id: id, closed: make(chan struct{}), hist: make(map[uint64]histLine)}
		c.panes[id] = p
	}
	return p
}

// Panes lists the ids of the panes with a mirror (closed ones left out).
func (c *Client) Panes() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]uint64, 0, len(c.panes))
	for id := range c.panes {
		out = append(out, id)
	}
	return out
}

// read applies the stream's frames until it ends.
func (c *Client) read() {
	defer close(c.done)
	var err error
	for {
		var raw json.RawMessage
		raw, err = c.stream.Next()
		if err != nil {
			break
		}
		var f proto.ScreenFrame
		if err = proto.DecodeScreenFrame(raw, &f); err != nil {
			break
		}
		switch f.Type {
		case proto.FrameScreen:
			err = c.Pane(f.SurfaceID).apply(&f)
		case proto.FrameInputRefused:
			c.inputRefused(raw)
		case proto.FrameScreenClosed:
			c.mu.Lock()
			p := c.panes[f.SurfaceID]
			delete(c.panes, f.SurfaceID)
			c.mu.Unlock()
			if p != nil {
				p.markClosed()
			}
		}
		if err != nil {
			break
		}
	}
	c.mu.Lock()
	if !errors.Is(err, context.Canceled) && !errors.Is(err, net.ErrClosed) {
		c.err = err
	}
	panes := c.panes
	c.mu.Unlock()
	for _, p := range panes {
		p.markClosed()
	}
}

// inputRefused reports an input_refused frame to Options.InputRefused as
// the error reply a call would have had.
func (c *Client) inputRefused(raw []byte) {
	var f proto.InputRefusedFrame
	if c.refusedHook == nil || json.Unmarshal(raw, &f) != nil {
		return
	}
	c.refusedHook(f.SurfaceID, &ipc.Error{Code: f.Code, Message: f.Message})
}

// SetShown tells the server which panes the window shows now (nil:
// every pane, as at the start): the stream sends the others' frames at
// most proto.HiddenAttachFPS a second, so their mirrors lag by up to a
// second while out of sight. A server without screen.shown answers
// method not found; the stream then goes on pacing every pane alike.
func (c *Client) SetShown(ids []uint64) error {
	return c.call(func(ctx context.Context, calls proto.Client) error {
		_, err := calls.ScreenShown(ctx, proto.ScreenShownParams{Token: c.token, Surfaces: ids})
		return err
	})
}

// call runs one on-demand call on the call connection with the client's
// timeout (an ipc.Redialer: a new connection once the server closed the
// last or it sat idle for callIdle; a call never sent is made once more).
func (c *Client) call(f func(ctx context.Context, calls proto.Client) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	return f(ctx, proto.Client{Caller: c.calls})
}

// histLine is one cached scrollback line.
type histLine struct {
	cells   []terminal.Cell
	wrapped bool
}

// maxCachedLines bounds a pane's scrollback cache; past it the cache is
// dropped and refilled on demand.
const maxCachedLines = 20000

// fetchPad is how many lines around a missing one a scrollback fetch
// takes along.
const fetchPad = 200

// Pane is a mirror of one remote pane: the screen as the last frame left
// it, scrollback lines fetched on demand (and cached), and the pane's
// writes sent over the Client's call connection. Its method set is
// app/termview's Pane, so a terminal view renders it unchanged; it also
// has DroppedLines (termview's droppedCounter). It is safe for concurrent
// use.
type Pane struct {
	c  *Client
	id uint64

	mu      sync.Mutex
	m       Mirror
	gen     uint64 // frames applied: the Watch generation
	changed chan struct{}
	closed  chan struct{}
	gone    bool
	hist    map[uint64]histLine // by HistoryDropped+index
	histEnd uint64              // HistoryDropped+HistoryLen of the last frame
	cols    int                 // the width the cached lines were fetched at
}

// ID returns the pane's surface id.
func (p *Pane) ID() uint64 { return p.id }

// Closed is closed when the pane was closed on the server or the stream
// ended.
func (p *Pane) Closed() <-chan struct{} { return p.closed }

func (p *Pane) markClosed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		p.gone = true
		close(p.closed)
	}
}

// apply takes in one frame and wakes the watchers.
func (p *Pane) apply(f *proto.ScreenFrame) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.m.Apply(f); err != nil {
		return err
	}
	end := p.m.HistoryDropped + uint64(p.m.HistoryLen)
	if p.m.Screen.Cols != p.cols || end < p.histEnd {
		// Lines were reflowed or pulled back out of the scrollback: the
		// cached ones may no longer be what those numbers name.
		clear(p.hist)
		p.cols = p.m.Screen.Cols
	}
	p.histEnd = end
	p.gen++
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
	return nil
}

// Snapshot copies the screen into s, scrolled back by offset lines
// (clamped to the scrollback; ignored on the alternate screen), as
// terminal.Emulator.SnapshotAt does. Scrollback lines not cached yet are
// fetched first (the call waits for them, up to the client's timeout;
// lines it could not get show blank). s.Generation is the Watch
// generation.
func (p *Pane) Snapshot(s *terminal.Snapshot, offset int) {
	for range 2 {
		p.mu.Lock()
		first, missing := p.missingLocked(offset)
		p.mu.Unlock()
		if !missing {
			break
		}
		p.fetch(first-fetchPad, first+offset+fetchPad)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	scr := &p.m.Screen
	scr.CopyTo(s)
	s.Generation = p.gen
	offset = p.clampLocked(offset)
	if offset == 0 {
		return
	}
	cols, rows := s.Cols, s.Rows
	fromHist := min(offset, rows)
	for y := rows - 1; y >= fromHist; y-- {
		copy(s.Row(y), scr.Row(y-offset))
		s.Wrapped[y] = scr.Wrapped[y-offset]
	}
	first := p.m.HistoryLen - offset
	for y := range fromHist {
		dst := s.Cells[y*cols : (y+1)*cols]
		l, ok := p.hist[p.m.HistoryDropped+uint64(first+y)]
		k := copy(dst, l.cells)
		clear(dst[k:])
		s.Wrapped[y] = ok && l.wrapped
	}
	s.Cursor.Visible = false
	s.Offset = offset
}

// clampLocked is offset as Snapshot applies it.
func (p *Pane) clampLocked(offset int) int {
	if offset <= 0 || p.m.Screen.AltScreen || p.m.Screen.Rows == 0 {
		return 0
	}
	return min(offset, p.m.HistoryLen)
}

// missingLocked reports whether a snapshot at offset needs scrollback
// lines that are not cached, and the index of the first line it shows.
func (p *Pane) missingLocked(offset int) (first int, missing bool) {
	offset = p.clampLocked(offset)
	first = p.m.HistoryLen - offset
	for y := range min(offset, p.m.Screen.Rows) {
		if _, ok := p.hist[p.m.HistoryDropped+uint64(first+y)]; !ok {
			return first, true
		}
	}
	return first, false
}

// fetch caches scrollback lines [from, to) (clipped) with screen.rows.
func (p *Pane) fetch(from, to int) {
	from = max(from, 0)
	for from < to {
		var res proto.ScreenRowsResult
		err := p.c.call(func(ctx context.Context, calls proto.Client) (err error) {
			res, err = calls.ScreenRows(ctx, proto.ScreenRowsParams{SurfaceID: p.id, From: from, To: min(to, from+proto.MaxScreenRows)})
			return err
		})
		if err != nil || len(res.Lines) == 0 {
			return
		}
		p.mu.Lock()
		if len(p.hist)+len(res.Lines) > maxCachedLines {
			clear(p.hist)
		}
		if res.Cols == p.m.Screen.Cols {
			err = p.m.DecodeRows(&res.ScreenCells, res.Cols, func(r proto.ScreenRow, cells []terminal.Cell) {
				p.hist[res.HistoryDropped+uint64(r.Y)] = histLine{cells: cells, wrapped: r.Wrapped}
			})
		}
		p.mu.Unlock()
		if err != nil || res.Cols != p.m.Screen.Cols {
			return
		}
		from = res.Lines[len(res.Lines)-1].Y + 1
	}
}

// HistoryLen is the number of scrollback lines, as of the last frame.
func (p *Pane) HistoryLen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.HistoryLen
}

// DroppedLines is how many lines ever left the scrollback, as of the last
// frame (terminal.Emulator.DroppedLines).
func (p *Pane) DroppedLines() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.HistoryDropped
}

// Lines returns rows [from, to) of the main buffer as text, row 0 the
// oldest scrollback line (terminal.Emulator.Lines), read from the server
// (screen.lines); nil when it cannot be reached.
func (p *Pane) Lines(from, to int) []string {
	var out []string
	from = max(from, 0)
	for from < to {
		var res proto.ScreenLinesResult
		err := p.c.call(func(ctx context.Context, calls proto.Client) (err error) {
			res, err = calls.ScreenLines(ctx, proto.ScreenLinesParams{SurfaceID: p.id, From: from, To: min(to, from+proto.MaxScreenRows)})
			return err
		})
		if err != nil || len(res.Text) == 0 {
			break
		}
		out = append(out, res.Text...)
		from += len(res.Text)
	}
	return out
}

// Watch returns the mirror's generation (frames applied) and a channel
// closed when the next frame is applied.
func (p *Pane) Watch() (uint64, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.gen, p.changed
}

// Bells counts the bells the program rang, as of the last frame.
func (p *Pane) Bells() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Bells
}

// SendInput sends bytes to the program (screen.input). On a writable
// attachment it queues them and returns at once, as the in-process
// terminal's SendInput does, so that a window's UI goroutine never waits
// for the server: when nothing is queued or out, input of up to 4 KiB (a
// key) is written to the socket at once, from the caller's goroutine,
// with no dial or wait for the reply; otherwise one goroutine of the
// Client sends the queue in order (input of up to 64 KiB a call, merged
// while the previous call is out);
// it fails only when the Client is closed, the stream ended or 4 MiB are
// still waiting, and input the server then refuses is dropped and
// reported to Options.InputRefused. On a read-only attachment
// (Client.ReadOnly) it waits for the server's answer, up to the client's
// call timeout, and returns the scripting gate's refusal (also reported);
// there it takes at most 64 KiB.
func (p *Pane) SendInput(b []byte) error {
	if p.c.readOnly != "" {
		err := p.c.sendInput(p.id, b)
		p.c.reportRefused(p.id, err)
		return err
	}
	return p.c.queueInput(p.id, b)
}

// Resize sets the pane's terminal size in cells (screen.resize); the
// mirror follows with the next frame.
func (p *Pane) Resize(cols, rows int) error {
	return p.c.call(func(ctx context.Context, calls proto.Client) error {
		_, err := calls.ScreenResize(ctx, proto.ScreenResizeParams{Token: p.c.token, SurfaceID: p.id, Cols: cols, Rows: rows})
		return err
	})
}

// ClearScrollback drops the pane's scrollback (screen.clear_scrollback);
// a failure is not reported (termview's Pane has no error here).
func (p *Pane) ClearScrollback() {
	_ = p.c.call(func(ctx context.Context, calls proto.Client) error {
		_, err := calls.ScreenClearScrollback(ctx, proto.ScreenPaneParams{Token: p.c.token, SurfaceID: p.id})
		return err
	})
}

// Reset resets the pane's terminal (screen.reset); the program is not
// told. A failure is not reported.
func (p *Pane) Reset() {
	_ = p.c.call(func(ctx context.Context, calls proto.Client) error {
		_, err := calls.ScreenReset(ctx, proto.ScreenPaneParams{Token: p.c.token, SurfaceID: p.id})
		return err
	})
}
