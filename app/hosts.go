package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/remote"
	"github.com/paneflow-go/paneflow/workspace"
)

// HostLink is one live connection to another host's server, such as a
// *remote.Conn (one ssh running `paneflow bridge`): Open makes one socket
// connection through it, Close ends it. Both are safe for concurrent use;
// Open fails once the link is gone.
type HostLink interface {
	Open(ctx context.Context) (net.Conn, error)
	Close() error
}

// HostConnector connects to the host at address (as the user wrote it in
// the config: ssh://[user@]host[:port] or an ssh alias). ctx bounds the
// connecting only. It is called again, with backoff, after a link ends.
type HostConnector func(ctx context.Context, address string) (HostLink, error)

// SSHHosts is the [HostConnector] of the desktop app: the user's own ssh
// runs `paneflow bridge` on the host (package remote); getenv reads
// PANEFLOW_SSH (nil: plain "ssh"). A host's own problem (no paneflow
// there, another version) comes back as package remote's error naming the
// fix.
func SSHHosts(getenv func(string) string) HostConnector {
	return func(ctx context.Context, address string) (HostLink, error) {
		h, err := remote.ParseHost(address)
		if err != nil {
			return nil, err
		}
		c, err := remote.Dial(ctx, h, remote.Env{Getenv: getenv})
		if err != nil {
			if re := remote.AsError(err); re != nil {
				err = re
			}
			return nil, err
		}
		return c, nil
	}
}

// Host connection states, as the sidebar's host header shows them.
const (
	hostConnecting   = "connecting"
	hostConnected    = "connected"
	hostReconnecting = "reconnecting"
	hostFailed       = "failed"
)

// Reconnection backoff of a host whose link failed or ended: the first
// retry after hostBackoffMin, doubling up to hostBackoffMax; a link that
// came up starts again from hostBackoffMin.
const (
	hostBackoffMin = 250 * time.Millisecond
	hostBackoffMax = 30 * time.Second
	// hostConnectTimeout bounds one connection attempt (ssh, the bridge's
	// hello, the ping and the screen stream).
	hostConnectTimeout = 45 * time.Second
	// hostRereadEvery is the age at which a host's panes' ports are read
	// again (hostPorts).
	hostRereadEvery = 10 * time.Second
)

// hostShift places a remote host's slot in the top bits of its panes' and
// workspaces' ids: the window sees every host's ids in one space (slot 0,
// the window's own server, keeps its ids). A server numbers its panes
// from 1 per process, far below 2^48.
const hostShift = 48

// hostSlot is the host a window-side id belongs to (0: the window's own
// server).
func hostSlot(id uint64) int { return int(id >> hostShift) }

// localID is a window-side id as its host's server knows it.
func localID(id uint64) uint64 { return id & (1<<hostShift - 1) }

// globalID is the window-side id of a host's id (0 stays 0: "none").
func globalID(slot int, id uint64) uint64 {
	if id == 0 || slot == 0 {
		return id
	}
	return uint64(slot)<<hostShift | id
}

// hostStatus is what the sidebar shows about one remote host.
type hostStatus struct {
	Slot    int
	Address string
	State   string // hostConnecting, hostConnected, hostReconnecting or hostFailed
	Err     string // why the last attempt failed or the link ended; "" when connected
}

// hostEvent is published on the window's bus when a remote host's
// connection state changes; Up is set when it (re)connected: its panes
// are then the new screen stream's, and views of the old one's must go.
type hostEvent struct {
	Slot int
	Up   bool
}

// EventType is part of bus.Event: a type no server publishes.
func (hostEvent) EventType() string { return "paneflow_host" }

// hostLister is the optional Backend capability of a window with remote
// hosts: their states, in the order they were added.
type hostLister interface {
	hostStatuses() []hostStatus
}

// hostsBackend is the [Backend] of a window showing other hosts' servers
// beside its own (the primary backend, slot 0): each remote host is an
// attached backend over its own link, connected and reconnected with
// backoff by a goroutine of its own. Ids carry the host's slot
// (globalID), workspace indexes run through the primary's workspaces,
// then each connected host's in order. The window shows one active
// workspace: the primary's active one until the window selects or
// focuses something on another host. Every event of every host reaches
// one bus with its ids made global. A host that is not connected shows
// no workspaces: its header says why, and its server (and every program
// in it) is untouched.
//
// The window's own operations that need this machine (sessions, the
// launch pad's Caller, busy panes at quit) are the primary's.
type hostsBackend struct {
	primary Backend
	connect HostConnector
	fps     int
	logf    func(format string, args ...any)
	events  *bus.Bus
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// portsEvery, when not 0, replaces hostRereadEvery as the age at
	// which a host's pane ports are read again (tests: nanoseconds).
	portsEvery atomic.Int64
	// upHook, when set (before AddHost; tests), runs on a host's
	// goroutine each time the host came up, after its "connected" was
	// published and before its events are read.
	upHook func(slot int)

	mu     sync.Mutex
	hosts  []*remoteHost // in the order added; guarded by mu
	next   int           // the next slot; guarded by mu
	active int           // the slot whose active workspace is shown; guarded by mu
	closed bool          // Shutdown ran; guarded by mu
}

// remoteHost is one remote host of a hostsBackend.
type remoteHost struct {
	slot    int
	address string
	cancel  context.CancelFunc
	done    chan struct{} // closed when run returned

	mu      sync.Mutex
	link    HostLink  // the live link; nil while down; guarded by mu
	be      *attached // attached once first connected; guarded by mu
	status  hostStatus
	stopped bool // detach ran: a link or backend made later is closed at once; guarded by mu
	// forwards are the port forwards of the host's panes (hostports.go);
	// ports and portsAt its panes' ports as last read. Guarded by mu.
	forwards map[fwdKey]*portForward
	ports    map[uint64][]int
	portsAt  time.Time
}

// newHosts wraps primary in a window backend that can add remote hosts.
// It forwards primary's events at once.
func newHosts(primary Backend, connect HostConnector, fps int, logf func(string, ...any)) *hostsBackend {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hostsBackend{primary: primary, connect: connect, fps: fps, logf: logf, events: bus.New(), ctx: ctx, cancel: cancel, next: 1}
	h.forward(0, primary)
	return h
}

var (
	_ Backend     = (*hostsBackend)(nil)
	_ hostLister  = (*hostsBackend)(nil)
	_ readPasser  = (*hostsBackend)(nil)
	_ reattacher  = (*hostsBackend)(nil)
	_ shownSetter = (*hostsBackend)(nil)
)

// forward republishes be's window events on h's bus with slot's ids until
// be's bus closes.
func (h *hostsBackend) forward(slot int, be Backend) {
	sub := be.Subscribe(fmt.Sprintf("hosts#%d", slot), guiEvents, 4096)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer sub.Close()
		var buf []bus.Event
		for {
			select {
			case <-sub.Ready():
			case <-sub.Done():
				return
			case <-h.ctx.Done():
				return
			}
			evs, _ := sub.Drain(buf)
			for _, e := range evs {
				if c, ok := e.(bus.SurfaceClosed); ok && slot != 0 {
					if r := h.hostAt(slot); r != nil {
						r.closeForwards(func(k fwdKey) bool { return k.pane == c.SurfaceID })
					}
				}
				if _, ok := e.(bus.ChecksChanged); ok && slot != 0 {
					// Its worktree is a path on that host, which the
					// window cannot match to panes (their roots are
					// read from this disk).
					continue
				}
				h.events.Publish(rehome(slot, e))
			}
			clear(evs)
			buf = evs[:0]
		}
	}()
}

// rehome gives e the window-side ids of host slot's.
func rehome(slot int, e bus.Event) bus.Event {
	if slot == 0 {
		return e
	}
	g := func(id uint64) uint64 { return globalID(slot, id) }
	switch ev := e.(type) {
	case bus.SurfaceCreated:
		ev.SurfaceID, ev.WorkspaceID = g(ev.SurfaceID), g(ev.WorkspaceID)
		return ev
	case bus.SurfaceExited:
		ev.SurfaceID = g(ev.SurfaceID)
		return ev
	case inputRefused:
		ev.SurfaceID = g(ev.SurfaceID)
		return ev
	case bus.SurfaceClosed:
		ev.SurfaceID, ev.WorkspaceID = g(ev.SurfaceID), g(ev.WorkspaceID)
		return ev
	case bus.SurfaceRenamed:
		ev.SurfaceID = g(ev.SurfaceID)
		return ev
	case bus.TitleChanged:
		ev.SurfaceID = g(ev.SurfaceID)
		return ev
	case bus.FocusChanged:
		ev.SurfaceID, ev.WorkspaceID = g(ev.SurfaceID), g(ev.WorkspaceID)
		return ev
	case bus.WorkspaceCreated:
		ev.WorkspaceID = g(ev.WorkspaceID)
		return ev
	case bus.WorkspaceClosed:
		ev.WorkspaceID = g(ev.WorkspaceID)
		return ev
	case bus.WorkspaceSelected:
		ev.WorkspaceID = g(ev.WorkspaceID)
		return ev
	case bus.WorkspaceChanged:
		ev.WorkspaceID = g(ev.WorkspaceID)
		return ev
	case bus.LayoutChanged:
		ev.WorkspaceID = g(ev.WorkspaceID)
		return ev
	case bus.AgentState:
		ev.SurfaceID, ev.WorkspaceID = g(ev.SurfaceID), g(ev.WorkspaceID)
		return ev
	case bus.BudgetAlert:
		ids := make([]uint64, len(ev.SurfaceIDs))
		for i, id := range ev.SurfaceIDs {
			ids[i] = g(id)
		}
		ev.SurfaceIDs = ids
		return ev
	}
	return e
}

// AddHost adds the host at address (it connects in the background); a
// host already added is not added twice. It reports whether it added one.
func (h *hostsBackend) AddHost(address string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || slices.ContainsFunc(h.hosts, func(r *remoteHost) bool { return r.address == address }) {
		return false
	}
	ctx, cancel := context.WithCancel(h.ctx)
	r := &remoteHost{slot: h.next, address: address, cancel: cancel, done: make(chan struct{}),
		status: hostStatus{Slot: h.next, Address: address, State: hostConnecting}}
	h.next++
	h.hosts = append(h.hosts, r)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(r.done)
		h.run(ctx, r)
	}()
	return true
}

// RemoveHost stops showing the host at address: its port forwards, screen
// stream and link end (its server and every program there go on), and
// its workspaces leave the window. It returns once the host's goroutine
// has; it reports whether there was such a host. A later AddHost of the
// same address gives it a new slot.
func (h *hostsBackend) RemoveHost(address string) bool {
	h.mu.Lock()
	i := slices.IndexFunc(h.hosts, func(r *remoteHost) bool { return r.address == address })
	if i < 0 {
		h.mu.Unlock()
		return false
	}
	r := h.hosts[i]
	h.hosts = slices.Delete(slices.Clone(h.hosts), i, i+1)
	if h.active == r.slot {
		h.active = 0
	}
	h.mu.Unlock()
	r.cancel()
	r.detach()
	<-r.done
	h.logf("paneflow: host %s removed (detached: nothing there stopped)", address)
	h.events.Publish(hostEvent{Slot: r.slot})
	return true
}

// AddHosts adds every host of addresses not added yet.
func (h *hostsBackend) AddHosts(addresses []string) {
	for _, a := range addresses {
		h.AddHost(a)
	}
}

// run connects r and keeps it connected until ctx ends: after a failed
// attempt or a lost link it waits (backoff, doubling) and connects again.
// The host's server is never asked to do anything but be attached to.
func (h *hostsBackend) run(ctx context.Context, r *remoteHost) {
	backoff := hostBackoffMin
	everUp := false
	for ctx.Err() == nil {
		err := h.connectHost(ctx, r)
		if err == nil {
			r.mu.Lock()
			be := r.be
			r.mu.Unlock()
			// Subscribed before the host shows as connected (and the
			// window reads its model): a change after that read then
			// comes as an event, which drops the kept view.
			var st *ipc.Stream
			if st, err = be.subscribe(); err == nil {
				everUp = true
				backoff = hostBackoffMin
				r.setStatus(hostConnected, nil)
				h.logf("paneflow: host %s connected", r.address)
				h.events.Publish(hostEvent{Slot: r.slot, Up: true})
				if h.upHook != nil {
					h.upHook(r.slot)
				}
				err = be.pump(st)
				if ctx.Err() != nil || err == nil {
					return
				}
				err = fmt.Errorf("connection lost: %w", err)
			}
		}
		if ctx.Err() != nil {
			return
		}
		r.dropLink()
		state := hostFailed
		if everUp {
			state = hostReconnecting
		}
		r.setStatus(state, err)
		h.logf("paneflow: host %s: %s: %v (next attempt in %s)", r.address, state, err, backoff)
		h.events.Publish(hostEvent{Slot: r.slot})
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, hostBackoffMax)
	}
}

// connectHost makes r's link and attaches over it: the first time a new
// attached backend (whose events h then forwards), later its screen
// stream again.
func (h *hostsBackend) connectHost(ctx context.Context, r *remoteHost) error {
	cctx, cancel := context.WithTimeout(ctx, hostConnectTimeout)
	defer cancel()
	link, err := h.connect(cctx, r.address)
	if err != nil {
		return err
	}
	r.mu.Lock()
	stopped := r.stopped
	if !stopped {
		r.link = link
	}
	be := r.be
	r.mu.Unlock()
	if stopped {
		link.Close()
		return errHostDown
	}
	if be != nil {
		return be.Reattach(cctx)
	}
	b, err := Attach(cctx, AttachOptions{Path: r.address, FPS: h.fps, Dial: r.open})
	if err != nil {
		return err
	}
	be = b.(*attached)
	// The host's model is read again only after one of its events (or
	// an operation, or a new subscription): an idle host costs no
	// round trip (attached.keepView).
	be.keepView = true
	r.mu.Lock()
	stopped = r.stopped
	if !stopped {
		r.be = be
	}
	r.mu.Unlock()
	if stopped {
		be.Shutdown(context.Background())
		return errHostDown
	}
	h.forward(r.slot, be)
	return nil
}

// errHostDown is what a call to a host that is not connected gets.
var errHostDown = errors.New("app: the host is not connected")

// open makes one connection through r's live link.
func (r *remoteHost) open(ctx context.Context) (net.Conn, error) {
	r.mu.Lock()
	link := r.link
	r.mu.Unlock()
	if link == nil {
		return nil, errHostDown
	}
	return link.Open(ctx)
}

// dropLink closes r's link, if any.
func (r *remoteHost) dropLink() {
	r.mu.Lock()
	link := r.link
	r.link = nil
	r.mu.Unlock()
	if link != nil {
		link.Close()
	}
}

// detach ends r's port forwards, attachment and link (its server goes
// on).
func (r *remoteHost) detach() {
	r.mu.Lock()
	r.stopped = true
	be := r.be
	r.mu.Unlock()
	r.closeForwards(func(fwdKey) bool { return true })
	if be != nil {
		be.Shutdown(context.Background())
	}
	r.dropLink()
}

func (r *remoteHost) setStatus(state string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status.State, r.status.Err = state, ""
	if err != nil {
		r.status.Err = hostReason(r.address, err)
	}
}

// hostReason is err as the host's header shows it: what follows the last
// mention of the address (the header names the host already), as
// "ssh failed: ssh: connect to host build port 22: Connection refused".
func hostReason(address string, err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, address+": "); i >= 0 {
		msg = msg[i+len(address)+2:]
	}
	return msg
}

// up returns r's backend when r is connected, else nil.
func (r *remoteHost) up() *attached {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status.State != hostConnected {
		return nil
	}
	return r.be
}

// hostStatuses implements hostLister.
func (h *hostsBackend) hostStatuses() []hostStatus {
	h.mu.Lock()
	hosts := slices.Clone(h.hosts)
	h.mu.Unlock()
	out := make([]hostStatus, len(hosts))
	for i, r := range hosts {
		r.mu.Lock()
		out[i] = r.status
		r.mu.Unlock()
	}
	return out
}

// hostAt is the remote host of slot, nil when there is none.
func (h *hostsBackend) hostAt(slot int) *remoteHost {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.hosts {
		if r.slot == slot {
			return r
		}
	}
	return nil
}

// part is one host's backend as the window reads it now.
type part struct {
	slot int
	be   Backend
}

// parts lists the primary, then every connected host.
func (h *hostsBackend) parts() []part {
	h.mu.Lock()
	hosts := slices.Clone(h.hosts)
	h.mu.Unlock()
	out := []part{{0, h.primary}}
	for _, r := range hosts {
		if be := r.up(); be != nil {
			out = append(out, part{r.slot, be})
		}
	}
	return out
}

// of is the backend holding window-side id, nil when its host is not
// connected.
func (h *hostsBackend) of(id uint64) Backend {
	slot := hostSlot(id)
	if slot == 0 {
		return h.primary
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.hosts {
		if r.slot == slot {
			if be := r.up(); be != nil {
				return be
			}
		}
	}
	return nil
}

// callerAt reaches the server of the host in slot (its socket methods,
// each call taking up to timeout; 0 the default). The host is looked up
// at each call, so a caller kept across a reconnect uses the new link;
// while the host is not connected a call fails with errHostOffline.
func (h *hostsBackend) callerAt(slot int, timeout time.Duration) proto.Caller {
	return hostCaller{h: h, slot: slot, timeout: timeout}
}

// hostCaller is callerAt's Caller.
type hostCaller struct {
	h       *hostsBackend
	slot    int
	timeout time.Duration
}

// Call calls method on the host's server, if it is connected.
func (c hostCaller) Call(ctx context.Context, method string, params, result any) error {
	r := c.h.hostAt(c.slot)
	if r == nil {
		return fmt.Errorf("app: host %d: %w", c.slot, errHostOffline)
	}
	be := r.up()
	if be == nil {
		return fmt.Errorf("%s: %w", r.address, errHostOffline)
	}
	return be.Caller(c.timeout).Call(ctx, method, params, result)
}

// subscribeAt opens a stream of method on the host of slot, if it is
// connected (the Diff view's review.watch).
func (h *hostsBackend) subscribeAt(ctx context.Context, slot int, method string, params any) (*ipc.Stream, error) {
	r := h.hostAt(slot)
	if r == nil {
		return nil, fmt.Errorf("app: host %d: %w", slot, errHostOffline)
	}
	be := r.up()
	if be == nil {
		return nil, fmt.Errorf("%s: %w", r.address, errHostOffline)
	}
	return be.cl.Subscribe(ctx, method, params)
}

// errHostOffline is what an operation on a pane or workspace of a host
// that is not connected gets.
var errHostOffline = fmt.Errorf("%w: its host is not connected", workspace.ErrNotFound)

// at finds the workspace at window-side index: its host and index there.
func (h *hostsBackend) at(index int) (part, int, error) {
	for _, p := range h.parts() {
		n := len(p.be.Workspaces())
		if index < n {
			return p, index, nil
		}
		index -= n
	}
	return part{}, 0, fmt.Errorf("%w: no workspace %d", workspace.ErrNotFound, index+1)
}

func (h *hostsBackend) activeSlot() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active
}

func (h *hostsBackend) setActive(slot int) {
	h.mu.Lock()
	h.active = slot
	h.mu.Unlock()
}

// setShown tells each connected remote host which of its panes the
// window shows (ids: window-side; a host with none shown gets an empty
// set), so that a host's panes out of sight cost its screen stream,
// the link and the window little (attached.setShown). The primary's
// stream is left pacing every pane alike.
func (h *hostsBackend) setShown(ids []uint64) {
	bySlot := map[int][]uint64{}
	for _, id := range ids {
		if slot := hostSlot(id); slot != 0 {
			bySlot[slot] = append(bySlot[slot], localID(id))
		}
	}
	for _, p := range h.parts() {
		if a, ok := p.be.(*attached); ok && p.slot != 0 {
			a.setShown(bySlot[p.slot])
		}
	}
}

// Serve serves the primary backend (the remote hosts run on their own).
func (h *hostsBackend) Serve(ctx context.Context) error { return h.primary.Serve(ctx) }

// Shutdown detaches from every remote host, then shuts the primary down.
func (h *hostsBackend) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	hosts := h.hosts
	h.hosts = nil
	h.mu.Unlock()
	h.cancel()
	for _, r := range hosts {
		r.detach()
	}
	err := h.primary.Shutdown(ctx)
	h.wg.Wait()
	h.events.Close()
	return err
}

// Reattach reattaches the primary (see attached.Reattach).
func (h *hostsBackend) Reattach(ctx context.Context) error {
	r, ok := h.primary.(reattacher)
	if !ok {
		return errors.New("app: the window's server cannot be reattached")
	}
	return r.Reattach(ctx)
}

func (h *hostsBackend) beginReadPass() (end func()) {
	var ends []func()
	for _, p := range h.parts() {
		if rp, ok := p.be.(readPasser); ok {
			ends = append(ends, rp.beginReadPass())
		}
	}
	return func() {
		for _, e := range ends {
			e()
		}
	}
}

func (h *hostsBackend) Endpoint() string     { return h.primary.Endpoint() }
func (h *hostsBackend) OutlivesWindow() bool { return h.primary.OutlivesWindow() }

func (h *hostsBackend) Subscribe(name string, f bus.Filter, queue int) *bus.Subscription {
	return h.events.Subscribe(name, f, queue)
}

func (h *hostsBackend) Workspaces() []workspace.WorkspaceInfo {
	active := h.activeSlot()
	var out []workspace.WorkspaceInfo
	for _, p := range h.parts() {
		for _, w := range p.be.Workspaces() {
			w.Index = len(out)
			w.ID = globalID(p.slot, w.ID)
			w.Active = w.Active && p.slot == active
			out = append(out, w)
		}
	}
	if active != 0 && !slices.ContainsFunc(out, func(w workspace.WorkspaceInfo) bool { return w.Active }) {
		// The active host is gone: the primary's active workspace shows.
		for i, w := range h.primary.Workspaces() {
			out[i].Active = w.Active
		}
	}
	return out
}

func (h *hostsBackend) ActiveTree() (workspace.WorkspaceInfo, *workspace.LayoutNode, bool) {
	slot := h.activeSlot()
	be := h.primary
	if slot != 0 {
		if b := h.of(globalID(slot, 1)); b != nil {
			be = b
		} else {
			slot = 0
		}
	}
	info, tree, ok := be.ActiveTree()
	if !ok && slot != 0 {
		slot = 0
		info, tree, ok = h.primary.ActiveTree()
	}
	if !ok || slot == 0 {
		return info, tree, ok
	}
	info.Index += h.offset(slot)
	info.ID = globalID(slot, info.ID)
	tree = cloneLayout(tree) // the host's may be a kept view's, shared
	rehomeTree(slot, tree)
	return info, tree, true
}

// offset is the window-side index of slot's first workspace.
func (h *hostsBackend) offset(slot int) int {
	n := 0
	for _, p := range h.parts() {
		if p.slot == slot {
			return n
		}
		n += len(p.be.Workspaces())
	}
	return n
}

// rehomeTree gives a host's layout (a copy the caller owns) window-side
// pane ids.
func rehomeTree(slot int, n *workspace.LayoutNode) {
	if n == nil {
		return
	}
	for i := range n.Surfaces {
		n.Surfaces[i].SurfaceID = globalID(slot, n.Surfaces[i].SurfaceID)
	}
	for i := range n.Children {
		rehomeTree(slot, &n.Children[i])
	}
}

func (h *hostsBackend) Panes() []workspace.PanePlace {
	var out []workspace.PanePlace
	base := 0
	for _, p := range h.parts() {
		for _, pl := range p.be.Panes() {
			pl.ID, pl.WorkspaceID = globalID(p.slot, pl.ID), globalID(p.slot, pl.WorkspaceID)
			pl.Workspace += base
			out = append(out, pl)
		}
		base += len(p.be.Workspaces())
	}
	return out
}

func (h *hostsBackend) Surfaces() []workspace.SurfaceInfo {
	var out []workspace.SurfaceInfo
	base := 0
	for _, p := range h.parts() {
		for _, in := range p.be.Surfaces() {
			out = append(out, rehomeInfo(p.slot, base, in))
		}
		base += len(p.be.Workspaces())
	}
	return out
}

func rehomeInfo(slot, base int, in workspace.SurfaceInfo) workspace.SurfaceInfo {
	in.ID, in.WorkspaceID = globalID(slot, in.ID), globalID(slot, in.WorkspaceID)
	in.Workspace += base
	return in
}

func (h *hostsBackend) SurfaceInfo(id uint64) (workspace.SurfaceInfo, bool) {
	be := h.of(id)
	if be == nil {
		return workspace.SurfaceInfo{}, false
	}
	in, ok := be.SurfaceInfo(localID(id))
	if !ok {
		return workspace.SurfaceInfo{}, false
	}
	return rehomeInfo(hostSlot(id), h.offset(hostSlot(id)), in), true
}

func (h *hostsBackend) FocusedSurface(wsID uint64) (uint64, bool) {
	be := h.of(wsID)
	if be == nil {
		return 0, false
	}
	id, ok := be.FocusedSurface(localID(wsID))
	return globalID(hostSlot(wsID), id), ok
}

// ResolveTarget finds pane id on its host, or a pane named name on the
// window's own server.
func (h *hostsBackend) ResolveTarget(id uint64, name string) (uint64, error) {
	if id == 0 {
		return h.primary.ResolveTarget(0, name)
	}
	be := h.of(id)
	if be == nil {
		return 0, errHostOffline
	}
	got, err := be.ResolveTarget(localID(id), name)
	return globalID(hostSlot(id), got), err
}

func (h *hostsBackend) Teams() map[uint64]core.TeamMember {
	var out map[uint64]core.TeamMember
	for _, p := range h.parts() {
		for id, m := range p.be.Teams() {
			if out == nil {
				out = map[uint64]core.TeamMember{}
			}
			out[globalID(p.slot, id)] = m
		}
	}
	return out
}

// CreateWorkspace adds the workspace on the host of the active one.
func (h *hostsBackend) CreateWorkspace(title, cwd string, activate bool) error {
	be := h.primary
	slot := h.activeSlot()
	if slot != 0 {
		if be = h.of(globalID(slot, 1)); be == nil {
			return errHostOffline
		}
	}
	return be.CreateWorkspace(title, cwd, activate)
}

func (h *hostsBackend) CloseWorkspace(index int) error {
	p, i, err := h.at(index)
	if err != nil {
		return err
	}
	return p.be.CloseWorkspace(i)
}

// SelectWorkspace selects the workspace on its host and shows that host's
// active workspace.
func (h *hostsBackend) SelectWorkspace(index int) error {
	p, i, err := h.at(index)
	if err != nil {
		return err
	}
	if err := p.be.SelectWorkspace(i); err != nil {
		return err
	}
	h.setActive(p.slot)
	h.events.Publish(bus.WorkspaceSelected{}) // the window reads the model again
	return nil
}

// MoveWorkspace moves a workspace among its own host's workspaces.
func (h *hostsBackend) MoveWorkspace(index, to int) error {
	p, i, err := h.at(index)
	if err != nil {
		return err
	}
	q, j, err := h.at(to)
	if err != nil {
		return err
	}
	if p.slot != q.slot {
		return errors.New("a workspace moves only among the workspaces of its own host")
	}
	return p.be.MoveWorkspace(i, j)
}

func (h *hostsBackend) RenameWorkspace(index int, title string) error {
	p, i, err := h.at(index)
	if err != nil {
		return err
	}
	return p.be.RenameWorkspace(i, title)
}

func (h *hostsBackend) ApplyPreset(index int, preset string) error {
	p, i, err := h.at(index)
	if err != nil {
		return err
	}
	return p.be.ApplyPreset(i, preset)
}

func (h *hostsBackend) Equalize(index int) error {
	p, i, err := h.at(index)
	if err != nil {
		return err
	}
	return p.be.Equalize(i)
}

func (h *hostsBackend) SetRatios(wsID uint64, path []int, ratios []float64) error {
	be := h.of(wsID)
	if be == nil {
		return errHostOffline
	}
	return be.SetRatios(localID(wsID), path, ratios)
}

// Split splits target on its host (0: the active workspace's host's
// first pane).
func (h *hostsBackend) Split(target uint64, dir workspace.Direction, spec workspace.PaneSpec) (uint64, error) {
	slot := hostSlot(target)
	if target == 0 {
		slot = h.activeSlot()
	}
	be := h.of(globalID(slot, 1))
	if be == nil {
		return 0, errHostOffline
	}
	id, err := be.Split(localID(target), dir, spec)
	return globalID(slot, id), err
}

// Focus focuses pane id and shows its host's active workspace.
func (h *hostsBackend) Focus(id uint64) error {
	be := h.of(id)
	if be == nil {
		return errHostOffline
	}
	if err := be.Focus(localID(id)); err != nil {
		return err
	}
	if slot := hostSlot(id); slot != h.activeSlot() {
		h.setActive(slot)
		h.events.Publish(bus.WorkspaceSelected{})
	}
	return nil
}

func (h *hostsBackend) Rename(id uint64, name string) error {
	be := h.of(id)
	if be == nil {
		return errHostOffline
	}
	return be.Rename(localID(id), name)
}

func (h *hostsBackend) CloseSurface(id uint64) error {
	be := h.of(id)
	if be == nil {
		return errHostOffline
	}
	return be.CloseSurface(localID(id))
}

// Reopen reopens on the host of the active workspace.
func (h *hostsBackend) Reopen() error {
	be := h.primary
	if slot := h.activeSlot(); slot != 0 {
		if be = h.of(globalID(slot, 1)); be == nil {
			return errHostOffline
		}
	}
	return be.Reopen()
}

// Pane is pane id's terminal on its host (a remote pane: the host's screen
// stream's mirror, typed into through the same stream).
func (h *hostsBackend) Pane(id uint64) (termview.Pane, bool) {
	be := h.of(id)
	if be == nil {
		return nil, false
	}
	return be.Pane(localID(id))
}

func (h *hostsBackend) Paste(id uint64, text string, submit bool) error {
	be := h.of(id)
	if be == nil {
		return errHostOffline
	}
	return be.Paste(localID(id), text, submit)
}

func (h *hostsBackend) OutputGens() map[uint64]uint64 {
	out := map[uint64]uint64{}
	for _, p := range h.parts() {
		for id, g := range p.be.OutputGens() {
			out[globalID(p.slot, id)] = g
		}
	}
	return out
}

// Usage is every connected host's, its pane and workspace ids made the
// window's.
func (h *hostsBackend) Usage() (map[uint64]proto.UsageStatus, map[uint64]proto.Usage) {
	panes, spaces := map[uint64]proto.UsageStatus{}, map[uint64]proto.Usage{}
	for _, p := range h.parts() {
		ps, ws := p.be.Usage()
		for id, u := range ps {
			panes[globalID(p.slot, id)] = u
		}
		for id, u := range ws {
			spaces[globalID(p.slot, id)] = u
		}
	}
	return panes, spaces
}

// PanePIDs are the primary's: a remote pane's process id means nothing
// on this machine (the window reads its ports from this machine's tables).
func (h *hostsBackend) PanePIDs() map[uint64]int { return h.primary.PanePIDs() }

func (h *hostsBackend) BusyPanes() int { return h.primary.BusyPanes() }

func (h *hostsBackend) RestoreSession(path string) ([]string, error) {
	return h.primary.RestoreSession(path)
}

func (h *hostsBackend) SaveSession(path string) error { return h.primary.SaveSession(path) }

func (h *hostsBackend) Caller(timeout time.Duration) proto.Caller { return h.primary.Caller(timeout) }
