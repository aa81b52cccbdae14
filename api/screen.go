package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/attach"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// screenMaxFrame is the most bytes of one screen frame or screen.rows
// reply: ipc.MaxFrame less room for the envelope.
const screenMaxFrame = ipc.MaxFrame - 1024

// screenSendBuffer is the socket send buffer of a screen.attach stream.
const screenSendBuffer = 32 << 10

// Pacing while a client types (ARCHITECTURE.md, "Screen streaming"):
// for typingFor after a screen.input with a client's token, the panes it
// did not type into get at most typingOthersFPS frames a second on its
// stream (at most its fps), and none within echoQuiet of a key unless
// they waited twice their interval, so that a pane flooding beside the
// one typed into keeps few of its frames ahead of a key's echo on the
// socket, in the client's decoder and in the window's paint.
const (
	typingFor       = time.Second
	typingOthersFPS = 4
	echoQuiet       = 100 * time.Millisecond
)

// attachments holds the live screen.attach streams' tokens. Its zero
// value is empty and ready; it is safe for concurrent use.
type attachments struct {
	mu     sync.Mutex
	tokens map[string]attachment
	n      uint64
}

// attachment is one live screen.attach stream.
type attachment struct {
	id uint64
	// readOnly, when not empty, is why its writes are refused while the
	// scripting gate is closed (inPane's answer for its process).
	readOnly string
	// since is when it was made (the server's clock), typedAt when the
	// last screen.input with its token came, as time since since plus
	// one (0: never): its stream does not pace output for a frame
	// interval after one (the echo of a key).
	// typedPane is the pane of that last screen.input.
	since     time.Time
	typedAt   *atomic.Int64
	typedPane *atomic.Uint64
	// watching is the pane whose emulator its stream watches itself
	// (0: none), for the echo of a key without the bus's hand-off.
	watching *atomic.Uint64
	// shown is the panes its window shows (screen.shown); nil: every
	// pane. wake (buffered, 1) tells its stream the set changed.
	shown *atomic.Pointer[map[uint64]bool]
	wake  chan struct{}
	// refused are the refusals of its screen.input notifications that
	// its stream has still to send (wake tells it).
	refused *refusals
}

// refusals is an attachment's queue of input_refused frames.
type refusals struct {
	mu sync.Mutex
	q  []proto.InputRefusedFrame // guarded by mu
}

// maxRefusals bounds an attachment's queue of unsent refusals: past it
// the oldest are dropped (the window shows the last one anyway).
const maxRefusals = 16

// refuse queues the refusal of a screen.input notification into pane id
// for the attachment's stream.
func (at attachment) refuse(id uint64, err *ipc.Error) {
	at.refused.mu.Lock()
	if len(at.refused.q) >= maxRefusals {
		at.refused.q = slices.Delete(at.refused.q, 0, 1)
	}
	at.refused.q = append(at.refused.q, proto.InputRefusedFrame{Type: proto.FrameInputRefused, SurfaceID: id, Code: err.Code, Message: err.Message})
	at.refused.mu.Unlock()
	select {
	case at.wake <- struct{}{}:
	default:
	}
}

// takeRefused returns the queued refusals and empties the queue.
func (at attachment) takeRefused() []proto.InputRefusedFrame {
	at.refused.mu.Lock()
	defer at.refused.mu.Unlock()
	q := at.refused.q
	at.refused.q = nil
	return q
}

// hidden reports whether its window said it does not show pane id.
func (at attachment) hidden(id uint64) bool {
	m := at.shown.Load()
	return m != nil && !(*m)[id]
}

// typed records a screen.input with the attachment's token into pane id
// at now, and wakes its stream unless the stream already watches that
// pane's emulator (so that it watches it before the echo comes; a typist's
// later keys cost no wake).
func (at attachment) typed(id uint64, now time.Time) {
	at.typedPane.Store(id)
	at.typedAt.Store(int64(now.Sub(at.since)) + 1)
	if at.watching.Load() != id {
		select {
		case at.wake <- struct{}{}:
		default:
		}
	}
}

// sinceTyped returns the pane of the last screen.input with its token and
// how long before now it came (ok: there was one).
func (at attachment) sinceTyped(now time.Time) (pane uint64, ago time.Duration, ok bool) {
	t := at.typedAt.Load()
	return at.typedPane.Load(), time.Duration(int64(now.Sub(at.since)) + 1 - t), t != 0
}

// add registers a new attachment made at now and returns it and its
// token.
func (a *attachments) add(readOnly string, now time.Time) (attachment, string) {
	tok := newFenceID() + newFenceID()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tokens == nil {
		a.tokens = make(map[string]attachment)
	}
	a.n++
	at := attachment{id: a.n, readOnly: readOnly, since: now, typedAt: new(atomic.Int64), typedPane: new(atomic.Uint64),
		watching: new(atomic.Uint64), shown: new(atomic.Pointer[map[uint64]bool]), wake: make(chan struct{}, 1), refused: new(refusals)}
	a.tokens[tok] = at
	return at, tok
}

func (a *attachments) remove(tok string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.tokens, tok)
}

// lookup returns the live attachment tok names.
func (a *attachments) lookup(tok string) (attachment, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.tokens[tok]
	return at, ok && tok != ""
}

// inPane tells whether the process that made the request of ctx runs
// inside one of the panes: the pane's own process or a descendant of it,
// by the process tree when the request is served (SO_PEERCRED's pid and
// its ancestry, and their equivalents on macOS and Windows). It returns
// why, for the attachment's ReadOnly, or "" for a process outside every
// pane, and for a peer whose pid the system does not tell (there the
// socket's owner check is the only boundary). A peer whose ancestry
// cannot be read counts as inside: the gate errs closed. A process that
// deliberately left its pane's tree (a double fork re-parents it to init)
// is not recognised; SECURITY.md says so.
func (s *server) inPane(ctx context.Context) string {
	pid, ok := ipc.PeerPID(ctx)
	if !ok {
		return ""
	}
	panes := make(map[int]uint64)
	for _, pl := range s.m.Panes() {
		if sf, ok := s.m.Surface(pl.ID); ok {
			if p := sf.Terminal().Pid(); p > 0 {
				panes[p] = pl.ID
			}
		}
	}
	if len(panes) == 0 {
		return ""
	}
	if id, ok := panes[pid]; ok {
		return fmt.Sprintf("attached from pane %d's own process (pid %d)", id, pid)
	}
	up, err := terminal.Ancestors(pid)
	if errors.Is(err, terminal.ErrNoProcessTable) {
		return ""
	}
	if err != nil {
		return fmt.Sprintf("attached from pid %d, whose process tree could not be read (%v)", pid, err)
	}
	for _, p := range up {
		if id, ok := panes[p]; ok {
			return fmt.Sprintf("attached from pid %d, a process inside pane %d", pid, id)
		}
	}
	return ""
}

// attachedPane is one pane of an attachment: its surface, the encoder
// holding what this client was last sent, and when (sent: ever).
type attachedPane struct {
	sf   *workspace.Surface
	enc  *attach.Encoder
	last time.Time
	sent bool
}

// screenAttach streams screen updates of some or all panes to one client
// (see ARCHITECTURE.md, "Screen streaming"): an attached frame, then per
// pane a full frame and deltas. One goroutine (this one) per client: it
// waits for the panes' output events (the bus coalesces them, so a
// flooding pane costs one pending event), at most fps rounds a second
// snapshots each pane that changed, diffs it against what this client was
// sent, and writes the frame; the write returns when the client's socket
// took it, so a slow client gets fewer frames with more rows in each and
// nothing queues for it here. The PTY readers and the other clients never
// wait on it: they only publish to the bus. Each pane is paced on its
// own. Output of the pane this client typed into within a frame interval
// (screen.input with its token: a typed key's echo) is not paced: its
// frame goes at once, first, also when it arrives while a round is being
// waited for. While the client types (typingFor) its other panes are paced
// at typingOthersFPS: a pane flooding beside the one typed into does not
// fill the socket ahead of the echo.
func (s *server) screenAttach(ctx context.Context, params json.RawMessage, w ipc.FrameWriter) error {
	var p proto.ScreenAttachParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return err
	}
	fps := proto.DefaultAttachFPS
	if p.FPS != nil {
		fps = *p.FPS
	}
	if fps < proto.MinAttachFPS || fps > proto.MaxAttachFPS {
		return ipc.InvalidParams("fps must be between %d and %d", proto.MinAttachFPS, proto.MaxAttachFPS)
	}
	panes := make(map[uint64]*attachedPane)
	all := p.Surfaces == nil
	filter := bus.MatchTypes(bus.TypeSurfaceChanged, bus.TypeSurfaceCreated, bus.TypeSurfaceClosed)
	if !all {
		filter = bus.All(filter, bus.MatchSurfaces(p.Surfaces...))
	}
	// A small send buffer: frames queued in the kernel ahead of the
	// echo of a key (a flooding pane's) delay it until the client reads
	// them all.
	if b, ok := w.(interface{ SetWriteBuffer(int) error }); ok {
		b.SetWriteBuffer(screenSendBuffer)
	}
	readOnly := s.inPane(ctx)
	at, tok := s.attached.add(readOnly, s.o.Clock.Now())
	defer s.attached.remove(tok)
	if all && readOnly == "" && s.o.Windows != nil {
		s.o.Windows.n.Add(1)
		defer s.o.Windows.n.Add(-1)
	}
	id := at.id
	// The output of the pane this goroutine watches itself (echo below)
	// wakes it from that pane's emulator: the bus's event for the same
	// output would wake it a second time, for a frame already sent.
	unwatched := func(e bus.Event) bool {
		sc, ok := e.(bus.SurfaceChanged)
		return !ok || sc.SurfaceID != at.watching.Load()
	}
	// Subscribe before listing the panes, so none created in between is missed.
	sub := s.b.Subscribe("screen.attach#"+strconv.FormatUint(id, 10), bus.All(filter, unwatched), 0)
	defer sub.Close()
	ids := p.Surfaces
	if all {
		for _, pl := range s.m.Panes() {
			ids = append(ids, pl.ID)
		}
	}
	for _, sid := range ids {
		sf, ok := s.m.Surface(sid)
		if !ok {
			if all {
				continue // closed since it was listed
			}
			return ipc.InvalidParams("Surface not found: %d", sid)
		}
		panes[sid] = &attachedPane{sf: sf, enc: attach.NewEncoder(sid)}
	}
	if err := w.WriteFrame(proto.AttachedFrame{Type: proto.FrameAttached, ID: id, Token: tok, ReadOnly: readOnly, InputRefused: true}); err != nil {
		return err
	}
	dirty := make(map[uint64]bool, len(panes))
	for sid := range panes {
		dirty[sid] = true
	}
	interval := time.Second / time.Duration(fps)
	others := max(interval, time.Second/typingOthersFPS)
	hidden := max(interval, time.Second/proto.HiddenAttachFPS)
	// wait is how long dirty pane sid must still wait at now: 0 for its
	// first frame and for the echo of this client's input into it; a
	// pane the window does not show waits its hidden interval.
	wait := func(sid uint64, now time.Time) time.Duration {
		ap := panes[sid]
		if !ap.sent {
			return 0
		}
		since := now.Sub(ap.last)
		tp, ago, ok := at.sinceTyped(now)
		switch {
		case ok && ago < interval && tp == sid:
			return 0
		case at.hidden(sid):
			return hidden - since
		case ok && ago < typingFor && tp != sid:
			return max(others-since, min(echoQuiet-ago, 2*others-since))
		}
		return interval - since
	}
	// next is the shortest wait of the dirty panes.
	next := func(now time.Time) time.Duration {
		w := time.Duration(1<<63 - 1)
		for sid := range dirty {
			w = min(w, wait(sid, now))
		}
		return w
	}
	var evs []bus.Event
	var frames [][]byte
	var order []uint64
	hb := time.NewTimer(s.heartbeat)
	defer hb.Stop()
	// take applies queued events to panes and dirty; closed lists the
	// panes that went away.
	take := func() (closed []uint64, ended bool) {
		var dropped int
		evs, dropped = sub.Drain(evs[:0])
		for _, e := range evs {
			switch e := e.(type) {
			case bus.SurfaceChanged:
				// Skipped when a frame (or echo below) already took
				// that output in.
				if ap := panes[e.SurfaceID]; ap != nil && !(ap.sent && e.Generation <= ap.enc.Generation()) {
					dirty[e.SurfaceID] = true
				}
			case bus.SurfaceCreated:
				if all && panes[e.SurfaceID] == nil {
					if sf, ok := s.m.Surface(e.SurfaceID); ok {
						panes[e.SurfaceID] = &attachedPane{sf: sf, enc: attach.NewEncoder(e.SurfaceID)}
						dirty[e.SurfaceID] = true
					}
				}
			case bus.SurfaceClosed:
				if panes[e.SurfaceID] != nil {
					delete(panes, e.SurfaceID)
					delete(dirty, e.SurfaceID)
					closed = append(closed, e.SurfaceID)
				}
			}
		}
		clear(evs)
		if dropped > 0 { // the queue shed events: look at every pane
			for sid := range panes {
				dirty[sid] = true
			}
		}
		select {
		case <-sub.Done():
			ended = true
		default:
		}
		return closed, ended
	}
	// gather takes in the queued events and tells the client about the
	// panes that closed; ended reports that the bus closed.
	gather := func() (ended bool, err error) {
		closed, ended := take()
		for _, sid := range closed {
			if err := w.WriteFrame(proto.ScreenClosedFrame{Type: proto.FrameScreenClosed, SurfaceID: sid}); err != nil {
				return ended, err
			}
		}
		return ended, nil
	}
	// watch makes pane sid (0: none) the one this goroutine watches
	// itself (the attachment's watching), whose output events the bus
	// then keeps from it (unwatched). A pane it stops watching is made
	// dirty when it changed since its last frame: its events were kept
	// back until the swap, and the output they told of is in the
	// generation read after it.
	watch := func(sid uint64) {
		old := at.watching.Swap(sid)
		if old == 0 || old == sid {
			return
		}
		if ap := panes[old]; ap != nil && ap.sf.Terminal().Emulator().Generation() != ap.enc.Generation() {
			dirty[old] = true
		}
	}
	// echo returns the pane this client typed into within typingFor and
	// its emulator's change channel, which this goroutine waits on itself
	// (the watching of the attachment): the echo of a key wakes it from
	// the PTY reader's parse, not through the manager's watch goroutine
	// and the bus, two hand-offs later. No channel while that pane is
	// dirty (its frame goes first); one found changed since its last
	// frame is made dirty here.
	echo := func(now time.Time) (uint64, <-chan struct{}) {
		tp, ago, ok := at.sinceTyped(now)
		if !ok || ago >= typingFor || panes[tp] == nil {
			if at.watching.Load() == 0 {
				return 0, nil
			}
			// Stop, then look again: a screen.input that found its
			// pane watched, and so did not wake this goroutine,
			// recorded its time before.
			watch(0)
			if tp, ago, ok = at.sinceTyped(now); !ok || ago >= typingFor || panes[tp] == nil {
				return 0, nil
			}
		}
		watch(tp)
		ap := panes[tp]
		if dirty[tp] || !ap.sent {
			return tp, nil
		}
		g, ch := ap.sf.Terminal().Emulator().Watch()
		if g != ap.enc.Generation() {
			dirty[tp] = true
			return tp, nil
		}
		return tp, ch
	}
	// sendRefused tells the client about its refused input.
	sendRefused := func() error {
		for _, f := range at.takeRefused() {
			if err := w.WriteFrame(f); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		var ep uint64
		var ech <-chan struct{}
		if len(dirty) == 0 {
			ep, ech = echo(s.o.Clock.Now())
		}
		if len(dirty) == 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-hb.C:
				if err := w.WriteFrame(proto.HeartbeatFrame{Type: proto.FrameHeartbeat}); err != nil {
					return err
				}
				hb.Reset(s.heartbeat)
				continue
			case <-at.wake:
				if err := sendRefused(); err != nil {
					return err
				}
				continue
			case <-ech:
				dirty[ep] = true
			case <-sub.Ready():
			case <-sub.Done():
			}
		}
		ended, err := gather()
		if err != nil {
			return err
		}
		// Pace: what changes meanwhile goes into the same round, except
		// the echo of this client's input, which goes now. The timer is
		// set again only when a pane comes due sooner.
		var t clock.Timer
		var due chan struct{}
		var dueAt time.Time
		for !ended && len(dirty) > 0 {
			now := s.o.Clock.Now()
			ep, ech = echo(now)
			d := next(now)
			if d <= 0 {
				break
			}
			if t == nil || now.Add(d).Before(dueAt) {
				if t != nil {
					t.Stop()
				}
				ch := make(chan struct{})
				due, dueAt = ch, now.Add(d)
				t = s.o.Clock.AfterFunc(d, func() { close(ch) })
			}
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-due:
				t = nil
			case <-ech:
				dirty[ep] = true
			case <-at.wake:
				// The shown panes changed (one may be due sooner), or
				// input was refused.
				if err := sendRefused(); err != nil {
					t.Stop()
					return err
				}
			case <-sub.Ready():
				// Drained at once: a change coalesced into a queued
				// event would signal nothing.
				if ended, err = gather(); err != nil {
					t.Stop()
					return err
				}
			}
		}
		if t != nil {
			t.Stop()
		}
		if len(dirty) > 0 {
			// The panes that are due, the one typed into first.
			now := s.o.Clock.Now()
			order = order[:0]
			for sid := range dirty {
				if ended || wait(sid, now) <= 0 {
					order = append(order, sid)
				}
			}
			tp, ago, ok := at.sinceTyped(now)
			if !ok || ago >= typingFor {
				tp = 0
			}
			slices.SortFunc(order, func(a, b uint64) int {
				if (a == tp) != (b == tp) {
					if a == tp {
						return -1
					}
					return 1
				}
				return cmp.Compare(a, b)
			})
			for _, sid := range order {
				ap := panes[sid]
				delete(dirty, sid)
				ap.last, ap.sent = now, true
				frames = ap.enc.Frames(ap.sf.Terminal().Emulator(), screenMaxFrame, frames[:0])
				for _, f := range frames {
					// Returns once the socket took the frame: the backpressure.
					if err := w.WriteFrame(json.RawMessage(f)); err != nil {
						return err
					}
				}
				clear(frames)
			}
			hb.Reset(s.heartbeat)
		}
		if ended {
			return nil
		}
	}
}

// screenSurface finds a pane of a screen.* call.
func (s *server) screenSurface(id uint64) (*workspace.Surface, error) {
	sf, ok := s.m.Surface(id)
	if !ok {
		return nil, ipc.InvalidParams("Surface not found: %d", id)
	}
	return sf, nil
}

// screenRows answers screen.rows: scrollback lines as cells, as many of
// [from, to) as fit a frame.
func (s *server) screenRows(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.ScreenRowsParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	sf, err := s.screenSurface(p.SurfaceID)
	if err != nil {
		return nil, err
	}
	to := min(p.To, p.From+proto.MaxScreenRows)
	var snap terminal.Snapshot
	emu := sf.Terminal().Emulator()
	for {
		first, dropped := emu.ScrollbackRows(&snap, p.From, to)
		res := proto.ScreenRowsResult{Cols: snap.Cols, HistoryLen: emu.HistoryLen(), HistoryDropped: dropped}
		attach.AppendRows(&res.ScreenCells, &snap, first)
		if b, _ := res.MarshalJSON(); len(b) <= screenMaxFrame || to-p.From <= 1 {
			return res, nil
		}
		to = p.From + (to-p.From)/2
	}
}

// screenLines answers screen.lines: rows of the main buffer as text, as
// many of [from, to) as fit a frame.
func (s *server) screenLines(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.ScreenLinesParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	sf, err := s.screenSurface(p.SurfaceID)
	if err != nil {
		return nil, err
	}
	lines := sf.Terminal().Emulator().Lines(p.From, min(p.To, p.From+proto.MaxScreenRows))
	size := 0
	for i, l := range lines {
		size += len(l)*6 + 3 // each byte encodes in at most 6, plus quotes and comma
		if size > screenMaxFrame-64 {
			lines = lines[:i]
			break
		}
	}
	if lines == nil {
		lines = []string{}
	}
	return proto.ScreenLinesResult{Text: lines}, nil
}

// screenWriter checks a screen.* write's token and finds its pane. An
// attachment made from inside a pane writes only while the scripting gate
// is open: a window types into panes, an agent must not get around the
// gate of surface.send_text and send_keystroke by attaching.
func (s *server) screenWriter(token string, id uint64) (*workspace.Surface, attachment, error) {
	at, ok := s.attached.lookup(token)
	if !ok {
		return nil, at, ipc.InvalidParams("token names no live screen.attach stream")
	}
	if at.readOnly != "" && !s.o.Scripting() {
		return nil, at, ipc.Errorf(ipc.CodeMethodNotFound, "%s (%s)", proto.MsgScreenWriteGate, at.readOnly)
	}
	sf, err := s.screenSurface(id)
	return sf, at, err
}

// screenInput answers screen.input: the window's keys and pastes, written
// as they are. Inline, so one connection's inputs keep their order. A
// window sends keys as notifications, with no reply to wait for or read;
// their refusals go to its stream (screenInputRefused).
func (s *server) screenInput(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.ScreenInputParams
	if err := proto.DecodeScreenInputParams(params, &p); err != nil {
		return nil, err
	}
	sf, at, err := s.screenWriter(p.Token, p.SurfaceID)
	if err != nil {
		return nil, err
	}
	if len(p.Data) > sendTextMax {
		return nil, ipc.InvalidParams("data exceeds 64 KiB limit")
	}
	// Recorded before the program can see it, so its echo finds it;
	// the other panes' output waits meanwhile (the echo hold).
	at.typed(p.SurfaceID, s.o.Clock.Now())
	s.hold.Start(s.m, p.SurfaceID)
	if err := sendInputNow(sf, p.Data); err != nil {
		return nil, err
	}
	return proto.ScreenDoneResult{Done: true}, nil
}

// screenInputRefused is screen.input's [ipc.Unanswered] hook: the
// refusal of a notification goes to the stream of the attachment its
// token names (none: nobody to tell, the window that sent it is gone).
func (s *server) screenInputRefused(_ context.Context, params json.RawMessage, err *ipc.Error) {
	var p proto.ScreenInputParams
	if proto.DecodeScreenInputParams(params, &p) != nil {
		return
	}
	if at, ok := s.attached.lookup(p.Token); ok {
		at.refuse(p.SurfaceID, err)
	}
}

// screenShown answers screen.shown: the panes the attachment's window
// shows from now on (the others' frames are paced at
// proto.HiddenAttachFPS). It writes nothing, so a read-only attachment
// may call it too.
func (s *server) screenShown(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.ScreenShownParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	at, ok := s.attached.lookup(p.Token)
	if !ok {
		return nil, ipc.InvalidParams("token names no live screen.attach stream")
	}
	var m *map[uint64]bool
	if p.Surfaces != nil {
		shown := make(map[uint64]bool, len(p.Surfaces))
		for _, id := range p.Surfaces {
			shown[id] = true
		}
		m = &shown
	}
	at.shown.Store(m)
	select {
	case at.wake <- struct{}{}:
	default:
	}
	return proto.ScreenDoneResult{Done: true}, nil
}

// screenResize answers screen.resize (clamped to the model's limits, as
// the in-process window's resize is).
func (s *server) screenResize(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.ScreenResizeParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if _, _, err := s.screenWriter(p.Token, p.SurfaceID); err != nil {
		return nil, err
	}
	cols := min(max(p.Cols, 1), workspace.MaxPaneDim)
	rows := min(max(p.Rows, 1), workspace.MaxPaneDim)
	if err := s.m.Resize(p.SurfaceID, cols, rows); err != nil {
		return nil, fail(err)
	}
	return proto.ScreenDoneResult{Done: true}, nil
}

// screenPaneOp answers screen.clear_scrollback and screen.reset.
func (s *server) screenPaneOp(op func(*terminal.Emulator)) ipc.Handler {
	return func(_ context.Context, params json.RawMessage) (any, error) {
		var p proto.ScreenPaneParams
		if err := proto.DecodeParams(params, &p); err != nil {
			return nil, err
		}
		sf, _, err := s.screenWriter(p.Token, p.SurfaceID)
		if err != nil {
			return nil, err
		}
		op(sf.Terminal().Emulator())
		return proto.ScreenDoneResult{Done: true}, nil
	}
}
