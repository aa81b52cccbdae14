package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HandshakeTimeout bounds the wait for the bridge's hello after ssh
// starts (connecting, authenticating, starting the remote program).
const HandshakeTimeout = 30 * time.Second

// Conn is one ssh process running `paneflow bridge` on a host: the
// remote socket, on which [Conn.Open] makes connections. Create it with
// [Dial]; Close it when done. Safe for concurrent use.
type Conn struct {
	host  Host
	hello Hello
	cmd   *exec.Cmd
	stdin io.WriteCloser
	w     *recordWriter
	errb  *tailBuffer

	mu    sync.Mutex
	next  uint64               // last channel id, guarded by mu
	chans map[uint64]*chanConn // guarded by mu
	err   error                // why the Conn ended, guarded by mu
	done  chan struct{}        // closed once the reader ended

	closeOnce sync.Once
}

// Dial starts ssh to h with `paneflow bridge` as the remote command and
// returns once the bridge said hello. ctx bounds the start only (with
// [HandshakeTimeout]); the Conn lives until Close or until ssh ends.
// Errors: *[NotInstalledError] (no paneflow on the host, or one without
// the bridge), *[IncompatibleError], *[SSHError] (ssh itself failed).
func Dial(ctx context.Context, h Host, env Env) (*Conn, error) {
	cmd := h.command(env, false, "bridge")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errb := &tailBuffer{max: 8 << 10}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		return nil, &SSHError{Host: h, Err: fmt.Errorf("starting %s: %w", cmd.Path, err)}
	}
	c := &Conn{host: h, cmd: cmd, stdin: stdin, w: &recordWriter{w: stdin}, errb: errb,
		chans: map[uint64]*chanConn{}, done: make(chan struct{})}
	br := bufio.NewReaderSize(stdout, 64<<10)
	type result struct {
		line string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		// A login shell may print something first (a banner from its
		// start-up files): skip up to 100 lines to the hello.
		var line string
		var err error
		for range 100 {
			line, err = br.ReadString('\n')
			line = strings.TrimSuffix(line, "\n")
			if _, ok := parseHello(line); ok || err != nil {
				break
			}
		}
		got <- result{line, err}
	}()
	timer := time.NewTimer(HandshakeTimeout)
	defer timer.Stop()
	var r result
	select {
	case r = <-got:
	case <-ctx.Done():
		c.abort()
		return nil, ctx.Err()
	case <-timer.C:
		c.abort()
		return nil, &SSHError{Host: h, Err: fmt.Errorf("no answer from `paneflow bridge` within %s", HandshakeTimeout), Stderr: errb.String()}
	}
	hello, ok := parseHello(r.line)
	if !ok {
		return nil, c.startFailure(r.line)
	}
	c.hello = hello
	if hello.Protocol != ProtocolVersion {
		c.stdin.Close()
		waitTimeout(c.cmd, 5*time.Second)
		return nil, &IncompatibleError{Host: h, Remote: hello}
	}
	go c.read(br)
	return c, nil
}

// startFailure explains why the bridge did not say hello: ssh's exit
// status and stderr tell a missing program from a failed connection.
func (c *Conn) startFailure(firstLine string) error {
	c.stdin.Close()
	waitErr := waitTimeout(c.cmd, 5*time.Second)
	stderr := c.errb.String()
	code := -1
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		code = ee.ExitCode()
	}
	return classify(c.host, code, stderr, firstLine)
}

// classify turns a remote command's failure into the error to show.
func classify(h Host, code int, stderr, stdout string) error {
	switch {
	case code == 255:
		return &SSHError{Host: h, Err: errors.New("ssh failed"), Stderr: stderr}
	case code == 127 || strings.Contains(stderr, "not found"):
		return &NotInstalledError{Host: h, Detail: lastLine(stderr)}
	case strings.Contains(stderr, "unknown verb 'bridge'") || strings.Contains(stdout, "unknown verb 'bridge'"):
		return &NotInstalledError{Host: h, Old: true, Detail: lastLine(stderr)}
	}
	detail := lastLine(stderr)
	if detail == "" {
		detail = truncate(stdout, 200)
	}
	return &SSHError{Host: h, Err: fmt.Errorf("`paneflow bridge` did not start (exit status %d)", code), Stderr: detail}
}

// Hello returns what the bridge announced.
func (c *Conn) Hello() Hello { return c.hello }

// Host returns the host this Conn reaches.
func (c *Conn) Host() Host { return c.host }

// Done is closed once the Conn has ended (ssh exited, or Close).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the Conn ended, nil while it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// read dispatches the bridge's records to their channels until ssh's
// stdout ends.
func (c *Conn) read(br *bufio.Reader) {
	rr := newRecordReader(br)
	var err error
	for {
		var rec record
		rec, err = rr.next()
		if err != nil {
			break
		}
		c.mu.Lock()
		cc := c.chans[rec.ch]
		c.mu.Unlock()
		if cc == nil {
			continue
		}
		switch rec.op {
		case opData:
			if !cc.deliver(rec.payload) {
				c.forget(cc.id)
				c.w.record(opClose, cc.id, nil)
			}
		case opClose:
			var why error = io.EOF
			if len(rec.payload) > 0 {
				why = &ChannelError{Host: c.host, Port: cc.port, Msg: string(rec.payload)}
			}
			c.forget(cc.id)
			cc.end(why)
		}
	}
	c.stdin.Close()
	werr := waitTimeout(c.cmd, 5*time.Second)
	why := &SSHError{Host: c.host, Err: errors.New("the connection ended"), Stderr: lastLine(c.errb.String())}
	if werr != nil {
		why.Err = fmt.Errorf("the connection ended (%v)", werr)
	}
	c.mu.Lock()
	if c.err == nil {
		c.err = why
	}
	chans := c.chans
	c.chans = map[uint64]*chanConn{}
	c.mu.Unlock()
	for _, cc := range chans {
		cc.end(why)
	}
	close(c.done)
}

// forget removes a channel from the table.
func (c *Conn) forget(id uint64) {
	c.mu.Lock()
	delete(c.chans, id)
	c.mu.Unlock()
}

// Open makes one connection to the remote socket, as dialing it there
// would: a channel of the bridge. It returns at once; if the bridge
// cannot dial the socket (no server running there), the first read fails
// with a *[ChannelError] saying why.
func (c *Conn) Open(ctx context.Context) (net.Conn, error) {
	return c.open(ctx, opOpen, 0)
}

// ErrNoTCP is [Conn.OpenTCP]'s error when the host's paneflow is older
// than port forwards (its bridge does not announce [FeatureTCP]).
var ErrNoTCP = errors.New("remote: the paneflow there is too old to forward ports")

// OpenTCP makes one TCP connection to port on the host's loopback address
// (127.0.0.1, else ::1), as a channel of the bridge: a port forward over
// the same ssh, with nothing listening on the host. It returns at once;
// if nothing answers on that port there, the first read fails with a
// *[ChannelError] saying so. It fails with an error wrapping [ErrNoTCP]
// (naming `paneflow host install`) when the bridge cannot forward. It
// never reaches another address than the host's loopback.
func (c *Conn) OpenTCP(ctx context.Context, port int) (net.Conn, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("remote: not a TCP port: %d", port)
	}
	if !c.hello.Has(FeatureTCP) {
		return nil, fmt.Errorf("%w (%s, version %s); run `paneflow host install %s` to put this build there",
			ErrNoTCP, c.host, c.hello.Version, c.host)
	}
	return c.open(ctx, opTCP, port)
}

// open makes a channel with an op record (opOpen: the socket; opTCP:
// port).
func (c *Conn) open(ctx context.Context, op byte, port int) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.next++
	cc := newChanConn(c, c.next)
	cc.port = port
	c.chans[cc.id] = cc
	c.mu.Unlock()
	var payload []byte
	if op == opTCP {
		payload = strconv.AppendInt(nil, int64(port), 10)
	}
	if err := c.w.record(op, cc.id, payload); err != nil {
		c.forget(cc.id)
		return nil, &SSHError{Host: c.host, Err: err, Stderr: lastLine(c.errb.String())}
	}
	return cc, nil
}

// Close ends the bridge (its stdin closes, it closes its connections and
// exits) and waits a moment for ssh to exit, killing it after that.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		if c.err == nil {
			c.err = &SSHError{Host: c.host, Err: net.ErrClosed}
		}
		c.mu.Unlock()
		c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(closeGrace):
			c.kill()
			<-c.done
		}
	})
	return nil
}

// closeGrace is how long Close lets ssh end the session by itself
// before it kills it.
const closeGrace = 5 * time.Second

// kill ends ssh at once.
func (c *Conn) kill() {
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
	c.stdin.Close()
}

// abort ends an ssh that never said hello and reaps it.
func (c *Conn) abort() {
	c.kill()
	c.cmd.Wait()
}

// waitTimeout waits for cmd, killing it after d.
func waitTimeout(cmd *exec.Cmd, d time.Duration) error {
	t := time.AfterFunc(d, func() { cmd.Process.Kill() })
	defer t.Stop()
	return cmd.Wait()
}

// chanConn is one channel as a net.Conn. Read belongs to one goroutine at
// a time, as does Write; deadlines and Close may be set from any.
type chanConn struct {
	c    *Conn
	id   uint64
	port int // a TCP channel's port (OpenTCP); 0 for the socket's

	mu       sync.Mutex
	buf      []byte        // received, unread; guarded by mu
	err      error         // set when the bridge closed it; guarded by mu
	closed   bool          // Close was called; guarded by mu
	rdl, wdl time.Time     // deadlines, guarded by mu
	wake     chan struct{} // capacity 1: data, end, close or a new deadline
}

func newChanConn(c *Conn, id uint64) *chanConn {
	return &chanConn{c: c, id: id, wake: make(chan struct{}, 1)}
}

func (cc *chanConn) signal() {
	select {
	case cc.wake <- struct{}{}:
	default:
	}
}

// deliver appends data; false when the reader fell too far behind (the
// channel is then ended).
func (cc *chanConn) deliver(data []byte) bool {
	cc.mu.Lock()
	if len(cc.buf)+len(data) > maxQueued {
		cc.err = &ChannelError{Host: cc.c.host, Msg: "the reader fell behind (over 8 MiB unread)"}
		cc.buf = nil
		cc.mu.Unlock()
		cc.signal()
		return false
	}
	cc.buf = append(cc.buf, data...)
	cc.mu.Unlock()
	cc.signal()
	return true
}

// end marks the channel closed by the far side.
func (cc *chanConn) end(why error) {
	cc.mu.Lock()
	if cc.err == nil {
		cc.err = why
	}
	cc.mu.Unlock()
	cc.signal()
}

func (cc *chanConn) Read(p []byte) (int, error) {
	for {
		cc.mu.Lock()
		switch {
		case cc.closed:
			cc.mu.Unlock()
			return 0, net.ErrClosed
		case len(cc.buf) > 0:
			n := copy(p, cc.buf)
			cc.buf = cc.buf[n:]
			if len(cc.buf) == 0 {
				cc.buf = nil
			}
			cc.mu.Unlock()
			return n, nil
		case cc.err != nil:
			err := cc.err
			cc.mu.Unlock()
			return 0, err
		}
		dl := cc.rdl
		cc.mu.Unlock()
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			t := time.NewTimer(d)
			timeout = t.C
			select {
			case <-cc.wake:
			case <-timeout:
			}
			t.Stop()
			continue
		}
		<-cc.wake
	}
}

func (cc *chanConn) Write(p []byte) (int, error) {
	cc.mu.Lock()
	closed, err, dl := cc.closed, cc.err, cc.wdl
	cc.mu.Unlock()
	switch {
	case closed:
		return 0, net.ErrClosed
	case err != nil && err != io.EOF:
		return 0, err
	case err == io.EOF:
		return 0, io.ErrClosedPipe
	case !dl.IsZero() && !time.Now().Before(dl):
		return 0, os.ErrDeadlineExceeded
	}
	if err := cc.c.w.record(opData, cc.id, p); err != nil {
		return 0, &SSHError{Host: cc.c.host, Err: err}
	}
	return len(p), nil
}

func (cc *chanConn) Close() error {
	cc.mu.Lock()
	if cc.closed {
		cc.mu.Unlock()
		return nil
	}
	cc.closed = true
	ended := cc.err != nil
	cc.buf = nil
	cc.mu.Unlock()
	cc.signal()
	cc.c.forget(cc.id)
	if !ended {
		cc.c.w.record(opClose, cc.id, nil)
	}
	return nil
}

func (cc *chanConn) SetDeadline(t time.Time) error {
	cc.mu.Lock()
	cc.rdl, cc.wdl = t, t
	cc.mu.Unlock()
	cc.signal()
	return nil
}

func (cc *chanConn) SetReadDeadline(t time.Time) error {
	cc.mu.Lock()
	cc.rdl = t
	cc.mu.Unlock()
	cc.signal()
	return nil
}

func (cc *chanConn) SetWriteDeadline(t time.Time) error {
	cc.mu.Lock()
	cc.wdl = t
	cc.mu.Unlock()
	return nil
}

func (cc *chanConn) LocalAddr() net.Addr  { return bridgeAddr("local") }
func (cc *chanConn) RemoteAddr() net.Addr { return bridgeAddr(cc.c.host.String()) }

// bridgeAddr names an end of a channel.
type bridgeAddr string

func (a bridgeAddr) Network() string { return "paneflow-bridge" }
func (a bridgeAddr) String() string  { return string(a) }

// tailBuffer keeps the last max bytes written to it (ssh's stderr, for
// error messages). Safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// lastLine returns the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Redialer opens channels to a host's socket on one [Conn], dialing a new
// one when the last ended (ssh dropped, the host rebooted): what a
// long-lived client such as paneflow-mcp --host holds. Safe for
// concurrent use; Host and Env must be set before the first Open.
type Redialer struct {
	Host Host
	Env  Env

	mu sync.Mutex
	c  *Conn // the current connection, guarded by mu
}

// Open makes one connection (see [Conn.Open]), first dialing ssh if there
// is no live Conn.
func (r *Redialer) Open(ctx context.Context) (net.Conn, error) {
	r.mu.Lock()
	c := r.c
	if c == nil || c.Err() != nil {
		if c != nil {
			c.Close()
		}
		var err error
		if c, err = Dial(ctx, r.Host, r.Env); err != nil {
			r.c = nil
			r.mu.Unlock()
			return nil, err
		}
		r.c = c
	}
	r.mu.Unlock()
	return c.Open(ctx)
}

// Close closes the current Conn, if any; a later Open dials again.
func (r *Redialer) Close() error {
	r.mu.Lock()
	c := r.c
	r.c = nil
	r.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}
