package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// browserFPS is the most screen frames a second a browser gets of the
// pane it shows (the server's pacing: latest wins, a slow browser gets
// fewer, larger frames).
const browserFPS = 30

// writeTimeout bounds one message to a browser; a browser that takes
// longer is disconnected.
const writeTimeout = 10 * time.Second

// callTimeout bounds a write of a browser (a submitted prompt waits up
// to 30 s for an agent to read its input, as `paneflow send --submit`).
const callTimeout = 35 * time.Second

// The screen frames relayed to the page (the socket's own encoding).
var (
	screenPrefix = []byte(`{"type":"` + proto.FrameScreen + `"`)
	closedPrefix = []byte(`{"type":"` + proto.FrameScreenClosed + `"`)
)

// wsConn is one browser's WebSocket.
type wsConn struct {
	s       *Service
	c       *websocket.Conn
	browser storeBrowser
	ctx     context.Context
	cancel  context.CancelFunc
	ovKick  chan struct{} // the overview changed (latest wins)
	wg      sync.WaitGroup

	mu    sync.Mutex
	relay context.CancelFunc // the open pane's relay, guarded by mu
}

// clientMsg is a message from the page (its own format, not the socket's).
type clientMsg struct {
	T    string `json:"t"`
	ID   uint64 `json:"id"`
	Text string `json:"text"`
	Key  string `json:"key"`
	Req  int64  `json:"req"`
	// From and To are the scrollback lines of a "rows" request.
	From int `json:"from"`
	To   int `json:"to"`
}

// helloMsg is the first message to the page.
type helloMsg struct {
	T        string `json:"t"`
	ID       string `json:"id"`
	ReadOnly bool   `json:"ro"`
	// Writes says the server's scripting gate is open (else every write
	// is refused, as on the socket).
	Writes bool   `json:"writes"`
	URL    string `json:"url"`
	// Now is the server's clock (Unix ms): the page's times in state are
	// counted from the server's, whatever the phone's clock says.
	Now int64 `json:"now"`
}

// resultMsg answers a write of the page.
type resultMsg struct {
	T     string `json:"t"`
	Req   int64  `json:"req"`
	OK    bool   `json:"ok"`
	Error string `json:"err,omitempty"`
	// Ready is false when a submitted prompt went in before the agent
	// read its input (send_text's input_ready).
	Ready bool `json:"ready,omitempty"`
	// Confirming: the prompt went to an agent pane, and a startMsg with
	// the same Req follows once its turn start is confirmed or not.
	Confirming bool `json:"confirming,omitempty"`
}

// startMsg says whether the agent a prompt was submitted to started its
// turn, as `paneflow send --submit` confirms it: OK with Reason (its
// start_reason), or Error saying the prompt was delivered but no start
// was seen.
type startMsg struct {
	T      string `json:"t"` // "start"
	Req    int64  `json:"req"`
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"err,omitempty"`
}

// serveWS is GET /ws: the page's one WebSocket. It needs the session
// cookie and the server's own Origin (a page of another site cannot open
// it with the user's cookie: cross-site WebSocket hijacking).
func (s *Service) serveWS(w http.ResponseWriter, r *http.Request) {
	b, ok := s.authenticate(r)
	if !ok {
		notPaired(w)
		return
	}
	if !s.sameOrigin(r) {
		http.Error(w, "web: a WebSocket from another origin is refused", http.StatusForbidden)
		return
	}
	s.serveMu.Lock()
	if s.ctx.Err() != nil {
		s.serveMu.Unlock()
		http.Error(w, "web: the server is stopping", http.StatusServiceUnavailable)
		return
	}
	s.wg.Add(1)
	s.serveMu.Unlock()
	defer s.wg.Done()
	c, err := websocket.Accept(w, r, nil) // checks the Origin's host again
	if err != nil {
		return
	}
	c.SetReadLimit(128 << 10)
	ctx, cancel := context.WithCancel(s.ctx)
	wc := &wsConn{s: s, c: c, browser: b, ctx: ctx, cancel: cancel, ovKick: make(chan struct{}, 1)}
	s.serveMu.Lock()
	s.conns[wc] = true
	s.serveMu.Unlock()
	defer func() {
		s.serveMu.Lock()
		delete(s.conns, wc)
		s.serveMu.Unlock()
		s.hub.remove(wc)
		cancel()
		wc.wg.Wait()
		c.CloseNow()
	}()
	wc.run()
}

// run says hello, follows the overview and reads the page's messages
// until the WebSocket or the server ends.
func (c *wsConn) run() {
	writes := false
	var caps proto.SystemCapabilitiesResult
	if err := c.s.o.Call(5*time.Second).Call(c.ctx, proto.MethodSystemCapabilities, proto.NoParams{}, &caps); err == nil {
		writes = caps.Scripting
	}
	if !c.sendJSON(helloMsg{T: "hello", ID: c.browser.ID, ReadOnly: c.browser.ReadOnly, Writes: writes, URL: c.s.url, Now: c.s.o.Now().UnixMilli()}) {
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			select {
			case <-c.ctx.Done():
				return
			case <-c.ovKick:
			}
			if msg := c.s.hub.latest(); msg != nil && !c.send(msg) {
				return
			}
		}
	}()
	c.s.hub.add(c)
	for {
		_, data, err := c.c.Read(c.ctx)
		if err != nil {
			return
		}
		if !c.s.st.known(c.browser.ID) {
			c.kill("this browser's pairing was revoked")
			return
		}
		var m clientMsg
		if err := json.Unmarshal(data, &m); err != nil {
			c.kill("bad message")
			return
		}
		switch m.T {
		case "open":
			c.open(m.ID)
		case "close":
			c.open(0)
		case "send", "type", "key", "stop":
			c.write(m)
		case "rows":
			c.rows(m)
		default:
			c.kill(fmt.Sprintf("unknown message type %q", m.T))
			return
		}
	}
}

// kill tells the page why it is disconnected (a "bye" it does not
// reconnect after) and closes the WebSocket. No close handshake: the
// read loop holds the connection's reader, so a handshake from here would
// wait for its timeout.
func (c *wsConn) kill(why string) {
	ctx, cancel := context.WithTimeout(c.ctx, time.Second)
	b, _ := json.Marshal(struct {
		T   string `json:"t"`
		Why string `json:"why"`
	}{"bye", why})
	c.c.Write(ctx, websocket.MessageText, b)
	cancel()
	c.cancel()
	c.c.CloseNow()
}

// send writes one message; false means the WebSocket is gone.
func (c *wsConn) send(msg []byte) bool {
	ctx, cancel := context.WithTimeout(c.ctx, writeTimeout)
	defer cancel()
	if err := c.c.Write(ctx, websocket.MessageText, msg); err != nil {
		c.cancel()
		return false
	}
	return true
}

func (c *wsConn) sendJSON(v any) bool {
	b, err := json.Marshal(v)
	return err == nil && c.send(b)
}

// open shows pane id (0: none): the relay of the pane shown before ends,
// one of id's screen starts.
func (c *wsConn) open(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.relay != nil {
		c.relay()
		c.relay = nil
	}
	if id == 0 {
		return
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.relay = cancel
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.relayScreen(ctx, id)
	}()
}

// relayScreen passes pane id's screen frames to the page as the server
// encoded them (one screen.attach per open pane). It reads the next
// frame only once the browser took the last, so the server's pacing and
// backpressure reach the browser.
func (c *wsConn) relayScreen(ctx context.Context, id uint64) {
	fps := browserFPS
	st, err := c.s.o.Subscribe(ctx, proto.MethodScreenAttach, proto.ScreenAttachParams{Surfaces: []uint64{id}, FPS: &fps})
	if err != nil {
		if ctx.Err() == nil {
			c.sendJSON(struct {
				T   string `json:"t"`
				ID  uint64 `json:"id"`
				Err string `json:"err"`
			}{"gone", id, err.Error()})
		}
		return
	}
	defer st.Close()
	var msg []byte
	for {
		f, err := st.Next()
		if err != nil {
			return
		}
		if !bytes.HasPrefix(f, screenPrefix) && !bytes.HasPrefix(f, closedPrefix) {
			continue // the attached frame (its token stays here), heartbeats
		}
		msg = append(append(append(msg[:0], `{"t":"f","f":`...), f...), '}')
		if ctx.Err() != nil || !c.send(msg) {
			return
		}
	}
}

// rows answers a "rows" request: scrollback lines [From, To) of pane ID
// as cells (screen.rows, whose result goes to the page as the server
// encoded it, in the screen frames' row format). Reading needs no write
// permission.
func (c *wsConn) rows(m clientMsg) {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	var raw json.RawMessage
	err := c.s.o.Call(10*time.Second).Call(ctx, proto.MethodScreenRows, proto.ScreenRowsParams{SurfaceID: m.ID, From: m.From, To: m.To}, &raw)
	if err != nil {
		c.sendJSON(resultMsg{T: "res", Req: m.Req, Error: err.Error()})
		return
	}
	msg := fmt.Appendf(nil, `{"t":"rows","id":%d,"req":%d,"r":`, m.ID, m.Req)
	c.send(append(append(msg, raw...), '}'))
}

// write does one write of the page through the socket, where the
// scripting gate applies as to any client; a read-only pairing gets no
// further than here.
func (c *wsConn) write(m clientMsg) {
	res := resultMsg{T: "res", Req: m.Req}
	var before *proto.SurfaceStatusResult
	err := c.doWrite(m, &res, &before)
	if err != nil {
		res.Error = err.Error()
		var e *ipc.Error
		if errors.As(err, &e) {
			res.Error = e.Message
		}
	} else {
		res.OK = true
		res.Confirming = before != nil
	}
	if !c.sendJSON(res) || !res.Confirming {
		return
	}
	// The confirmation polls for up to 60 s: it must not hold up the
	// page's next key (an Escape to stop that very turn).
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		st := startMsg{T: "start", Req: m.Req}
		call := proto.Client{Caller: c.s.o.Call(proto.HookConfirmLimit)}
		reason, err := call.ConfirmTurnStart(c.ctx, m.ID, *before)
		if c.ctx.Err() != nil {
			return
		}
		if err != nil {
			st.Error = err.Error()
		} else {
			st.OK, st.Reason = true, reason
		}
		c.sendJSON(st)
	}()
}

// doWrite makes the write m asks for. For a prompt submitted to an agent
// pane it sets *before to the pane's status read before the text went in,
// which the turn-start confirmation compares against.
func (c *wsConn) doWrite(m clientMsg, res *resultMsg, before **proto.SurfaceStatusResult) error {
	if c.browser.ReadOnly {
		return errors.New("this browser was paired read-only: it cannot type into panes (pair it again without --read-only)")
	}
	if m.ID == 0 {
		return errors.New("no pane given")
	}
	ctx, cancel := context.WithTimeout(c.ctx, callTimeout)
	defer cancel()
	call := proto.Client{Caller: c.s.o.Call(callTimeout)}
	id := m.ID
	switch m.T {
	case "key":
		if m.Key == "" {
			return errors.New("no key given")
		}
		_, err := call.SurfaceSendKeystroke(ctx, proto.SurfaceSendKeystrokeParams{SurfaceID: &id, Keystroke: m.Key})
		return err
	case "stop": // the agent's own interrupt keys (surface.interrupt)
		_, err := call.SurfaceInterrupt(ctx, proto.SurfaceInterruptParams{SurfaceID: &id})
		return err
	case "type":
		if m.Text == "" {
			return errors.New("no text given")
		}
		_, err := call.SurfaceSendText(ctx, proto.SurfaceSendTextParams{SurfaceID: &id, Text: m.Text})
		return err
	default: // send: as `paneflow send --submit`
		wait := int64(30000)
		st, stErr := call.SurfaceStatus(ctx, proto.SurfaceTarget(id))
		r, err := call.SurfaceSendText(ctx, proto.SurfaceSendTextParams{SurfaceID: &id, Text: m.Text, Submit: true, InputWaitMS: &wait})
		res.Ready = r.InputReady
		if err == nil && stErr == nil && r.AgentTarget && m.Text != "" {
			*before = &st
		}
		return err
	}
}
