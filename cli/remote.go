package cli

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/remote"
)

// hostLink is how a session with --host (PANEFLOW_HOST) reaches the
// host's socket: through the host's link (a local socket kept by
// `paneflow host link`, see package remote), started on first use, or,
// where links are off (PANEFLOW_HOST_PERSIST=0, Windows) or the link could
// not start, through an ssh of this call's own. Safe for concurrent use.
type hostLink struct {
	host remote.Host
	env  remote.Env
	ctx  context.Context // the session's: Ctrl-C ends a connection attempt

	mu        sync.Mutex
	path      string       // the link's socket once it serves; guarded by mu
	conn      *remote.Conn // the direct connection, when used; guarded by mu
	restarted bool         // the link was started again once; guarded by mu
}

// connect starts using the link or, failing that, a direct connection.
func (l *hostLink) connect() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.path != "" || l.conn != nil {
		return nil
	}
	if remote.LinksSupported && l.env.Persist() > 0 {
		if self, err := os.Executable(); err == nil {
			path, err := remote.EnsureLink(l.ctx, l.host, l.env, self)
			if err == nil {
				l.path = path
				return nil
			}
			var le *remote.LinkError
			if l.ctx.Err() != nil {
				return l.ctx.Err()
			} else if errors.As(err, &le) && !le.SSH {
				// Not ssh's failure: an ssh of this call's own would
				// meet the same (no paneflow there, another version).
				return err
			}
		}
	}
	// The link needs the ssh to run without this terminal; an ssh of
	// this call's own can ask for a passphrase, and its errors are the
	// typed ones.
	c, err := remote.Dial(l.ctx, l.host, l.env)
	if err != nil {
		return err
	}
	l.conn = c
	return nil
}

// dial makes one connection to the host's socket (ipc.Client's Dial).
func (l *hostLink) dial(ctx context.Context) (net.Conn, error) {
	if err := l.connect(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	path, conn := l.path, l.conn
	l.mu.Unlock()
	if conn != nil {
		return conn.Open(ctx)
	}
	nc, err := ipc.DialSocket(ctx, path)
	if err == nil || !linkGone(err) {
		return nc, err
	}
	// The link ended (idle, or its ssh did) since it was found: start
	// it again, once.
	l.mu.Lock()
	again := !l.restarted
	l.restarted = true
	l.mu.Unlock()
	if !again {
		return nil, err
	}
	self, serr := os.Executable()
	if serr != nil {
		return nil, err
	}
	if serr := remote.StartLink(ctx, l.host, l.env, self); serr != nil {
		return nil, serr
	}
	return ipc.DialSocket(ctx, path)
}

// linkGone reports whether a dial failed because nothing serves the
// socket any more.
func linkGone(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// close ends the direct connection, if any (a link stays for the next
// call).
func (l *hostLink) close() {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// dialHost is dial for a session with a host.
func (s *session) dialHost(timeout time.Duration) (caller, error) {
	return ipcCaller{&ipc.Client{Path: s.host.host.String(), Timeout: timeout, Dial: s.host.dial}}, nil
}

// dialHostMux is dialMux for a session with a host.
func (s *session) dialHostMux(ctx context.Context) (caller, io.Closer, error) {
	return redialMux(ctx, func(ctx context.Context) (*ipc.Mux, error) {
		return ipc.DialMuxWith(ctx, s.host.host.String(), s.host.dial)
	})
}

// runOnHost runs a verb that the host carries out itself (up, flow run,
// trust, untrust: specs and the trust store are the host's) with
// `paneflow <args>` over ssh, on a terminal when this one is.
func (s *session) runOnHost(ctx context.Context, args []string) error {
	tty := s.isTerminal(s.stdin) && s.isTerminal(s.stdout)
	code, err := remote.Exec(ctx, s.host.host, s.host.env, tty, args, s.stdin, s.stdout, s.stderr)
	if err != nil {
		return &exitError{Code: ExitFailure, Err: err}
	}
	if code != 0 {
		return &exitError{Code: code}
	}
	return nil
}
