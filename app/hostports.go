package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/proto"
)

// Port chips of remote panes (issue 30): a host's server lists the ports
// its panes listen on (surface.ports); a tap on a chip opens a forward, a
// listener on this machine's 127.0.0.1 at an ephemeral port whose
// connections are TCP channels of the host's ssh to that port on the
// host's loopback (remote.Conn.OpenTCP), and the browser on it.

// tcpOpener is the optional [HostLink] capability of port forwards: a
// TCP connection to port on the host's loopback address, through the
// link (*remote.Conn's OpenTCP: a channel of the same ssh).
type tcpOpener interface {
	OpenTCP(ctx context.Context, port int) (net.Conn, error)
}

// hostPorter is the optional Backend capability of a window with remote
// hosts: the ports their panes listen on, by window-side pane id.
type hostPorter interface {
	hostPorts() map[uint64][]int
}

var _ hostPorter = (*hostsBackend)(nil)

// fwdKey names one forward of a host: a pane (its id on the host) and a
// port.
type fwdKey struct {
	pane uint64
	port int
}

// portForward is one listener of a forward and its connections. Close
// ends the listener and every connection and waits for their goroutines.
type portForward struct {
	l    net.Listener
	addr string // l's address, "127.0.0.1:N"

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // both ends of live relays; guarded by mu
	closed bool                  // guarded by mu
	wg     sync.WaitGroup
}

// hostPorts reads the ports of every connected host's panes (surface.ports,
// at most every hostRereadEvery per host: an idle window costs no round
// trip per tick) and closes the forwards of ports their panes no longer
// listen on.
func (h *hostsBackend) hostPorts() map[uint64][]int {
	h.mu.Lock()
	hosts := slices.Clone(h.hosts)
	h.mu.Unlock()
	var out map[uint64][]int
	for _, r := range hosts {
		be := r.up()
		if be == nil {
			continue
		}
		r.mu.Lock()
		got, at := r.ports, r.portsAt
		r.mu.Unlock()
		every := time.Duration(h.portsEvery.Load())
		if every == 0 {
			every = hostRereadEvery
		}
		if at.IsZero() || time.Since(at) >= every {
			res, err := call[proto.SurfacePortsResult](be, proto.MethodSurfacePorts, proto.SurfaceIDParams{})
			if err != nil {
				// A server older than surface.ports, or the link went:
				// no chips until the next reading.
				res = proto.SurfacePortsResult{}
			}
			got = map[uint64][]int{}
			for _, p := range res.Panes {
				got[p.SurfaceID] = p.Ports
			}
			r.mu.Lock()
			r.ports, r.portsAt = got, time.Now()
			r.mu.Unlock()
			if err == nil {
				r.closeForwards(func(k fwdKey) bool { return !slices.Contains(got[k.pane], k.port) })
			}
		}
		for id, ps := range got {
			if out == nil {
				out = map[uint64][]int{}
			}
			out[globalID(r.slot, id)] = ps
		}
	}
	return out
}

// forwardPort makes (or finds) the forward of port of remote pane id and
// returns its local address, "127.0.0.1:N". It asks the pane's server
// first: only a port that the pane listens on now is forwarded.
func (h *hostsBackend) forwardPort(id uint64, port int) (string, error) {
	slot := hostSlot(id)
	r := h.hostAt(slot)
	if slot == 0 || r == nil {
		return "", fmt.Errorf("app: pane %d is not on another host", id)
	}
	be := r.up()
	if be == nil {
		return "", errHostOffline
	}
	res, err := call[proto.SurfacePortsResult](be, proto.MethodSurfacePorts, proto.SurfaceIDParams{SurfaceID: new(localID(id))})
	if err != nil {
		return "", fmt.Errorf("ports of the pane on %s: %w", r.address, err)
	}
	if !slices.ContainsFunc(res.Panes, func(p proto.PanePorts) bool { return slices.Contains(p.Ports, port) }) {
		return "", fmt.Errorf("the pane on %s no longer listens on port %d", r.address, port)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return "", errHostDown
	}
	if _, ok := r.link.(tcpOpener); !ok {
		return "", fmt.Errorf("the connection to %s cannot forward ports", r.address)
	}
	key := fwdKey{localID(id), port}
	if f := r.forwards[key]; f != nil {
		return f.addr, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	f := &portForward{l: l, addr: l.Addr().String(), conns: map[net.Conn]struct{}{}}
	if r.forwards == nil {
		r.forwards = map[fwdKey]*portForward{}
	}
	r.forwards[key] = f
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		f.serve(func(ctx context.Context) (net.Conn, error) { return r.openTCP(ctx, port) })
	}()
	h.logf("paneflow: host %s: port %d of pane %d forwarded at %s", r.address, port, localID(id), f.addr)
	return f.addr, nil
}

// openTCP opens a TCP channel to port through r's live link.
func (r *remoteHost) openTCP(ctx context.Context, port int) (net.Conn, error) {
	r.mu.Lock()
	link := r.link
	r.mu.Unlock()
	t, ok := link.(tcpOpener)
	if !ok {
		return nil, errHostDown
	}
	return t.OpenTCP(ctx, port)
}

// closeForwards closes r's forwards whose key drop reports true.
func (r *remoteHost) closeForwards(drop func(fwdKey) bool) {
	r.mu.Lock()
	var gone []*portForward
	for k, f := range r.forwards {
		if drop(k) {
			gone = append(gone, f)
			delete(r.forwards, k)
		}
	}
	r.mu.Unlock()
	for _, f := range gone {
		f.Close()
	}
}

// forwardAddrs lists r's forwards' local addresses (tests).
func (r *remoteHost) forwardAddrs() map[fwdKey]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[fwdKey]string{}
	for k, f := range r.forwards {
		out[k] = f.addr
	}
	return out
}

// serve accepts connections until the listener closes, relaying each to
// a connection made by open.
func (f *portForward) serve(open func(context.Context) (net.Conn, error)) {
	for {
		c, err := f.l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // a transient accept failure (out of descriptors)
		}
		if !f.track(c) {
			c.Close()
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer f.untrack(c)
			ctx, cancel := context.WithTimeout(context.Background(), hostConnectTimeout)
			rc, err := open(ctx)
			cancel()
			if err != nil {
				return
			}
			if !f.track(rc) {
				rc.Close()
				return
			}
			defer f.untrack(rc)
			relay(c, rc)
		}()
	}
}

// relay copies both ways between a and b until either side ends, then
// closes both.
func relay(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		a.Close()
		b.Close()
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
}

// track adds c to the live connections; false once the forward closed.
func (f *portForward) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *portForward) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	c.Close()
}

// Close ends the forward: its listener and every relayed connection; it
// returns once their goroutines have.
func (f *portForward) Close() error {
	f.mu.Lock()
	f.closed = true
	conns := f.conns
	f.conns = map[net.Conn]struct{}{}
	f.mu.Unlock()
	f.l.Close()
	for c := range conns {
		c.Close()
	}
	f.wg.Wait()
	return nil
}

// openPort opens the browser on port of pane id: this machine's
// localhost for a pane of the window's own server; for another host's
// pane, a forward first (off the UI goroutine: it asks the host). A
// failure shows in the banner.
func (s *shell) openPort(id uint64, port string) {
	open := func(hostport string) {
		u := &url.URL{Scheme: "http", Host: hostport}
		if err := s.a.OpenURL(u); err != nil {
			s.guard(func() { s.chrome.banner.show("open " + u.String() + ": " + err.Error()) })
		}
	}
	if hostSlot(id) == 0 || s.hosts() == nil {
		open("localhost:" + port)
		return
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return // the chips are made from numbers
	}
	s.life.wg.Add(1)
	go func() {
		defer s.life.wg.Done()
		addr, err := s.hosts().forwardPort(id, n)
		if err != nil {
			s.do(func() { s.chrome.banner.show("forward port " + port + ": " + err.Error()) })
			return
		}
		s.post(func() { open(addr) })
	}()
}

// probeChipsLocked writes, with PANEFLOW_UI_PROBE=1 and other hosts, where
// each port chip that is new since the last call is, once a frame has
// placed it: `ui-probe chip pane=N port=P x=… y=…` (the GUI tests click
// it).
func (s *shell) probeChipsLocked() {
	select {
	case <-s.life.started:
	default:
		return
	}
	if s.chrome.side.probedChips == nil {
		s.chrome.side.probedChips = map[string]fyne.CanvasObject{}
	}
	for _, cv := range s.chrome.side.views {
		for id, rv := range cv.rows {
			if rv.data.Ports == "" {
				continue
			}
			for _, b := range rowButtons(rv.obj) {
				port, ok := strings.CutPrefix(b.Text, ":")
				if !ok {
					continue
				}
				key := fmt.Sprintf("pane=%d port=%s", id, port)
				if s.chrome.side.probedChips[key] == b {
					continue
				}
				s.chrome.side.probedChips[key] = b
				s.probeChipLater(key, b, 200)
			}
		}
	}
}

// probeChipLater writes chip b's probe once it has a place, looking every
// 50 ms, tries times at most, until the chip is replaced or the window
// quits.
func (s *shell) probeChipLater(key string, b *widget.Button, tries int) {
	time.AfterFunc(50*time.Millisecond, func() {
		s.do(func() {
			if s.life.quitting || s.chrome.side.probedChips[key] != b {
				return
			}
			if l, ok := s.probeLineLocked("chip "+key, b); ok && b.Size().Width > 0 {
				fmt.Fprintln(os.Stderr, l)
				return
			}
			if tries > 1 {
				s.probeChipLater(key, b, tries-1)
			}
		})
	})
}

// rowButtons is every button in o (containers and tap boxes walked).
func rowButtons(o fyne.CanvasObject) []*widget.Button {
	switch o := o.(type) {
	case *widget.Button:
		return []*widget.Button{o}
	case *fyne.Container:
		var out []*widget.Button
		for _, c := range o.Objects {
			out = append(out, rowButtons(c)...)
		}
		return out
	case *tapBox:
		return rowButtons(o.content)
	}
	return nil
}
