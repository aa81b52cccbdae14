package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/paneflow-go/paneflow/internal/qrtext"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// fakeServer answers the socket calls the web client makes.
type fakeServer struct {
	mu       sync.Mutex
	calls    []string          // methods called, in order
	params   []json.RawMessage // their params
	sendErr  error             // surface.send_text's answer
	frames   []string          // screen.attach's frames after the attached one
	events   chan struct{}     // each send is one event frame
	scripted bool
	name     string // the one pane's name ("build" when empty)
	// agent makes pane 7 an agent pane (send_text's agent_target) whose
	// status is hooked when hooked is set; a send starts a turn (turn_seq
	// moves) when starts is set.
	agent, hooked, starts bool
	turnSeq               uint64
}

func (f *fakeServer) Call(ctx context.Context, method string, params, result any) error {
	b, _ := json.Marshal(params)
	f.mu.Lock()
	f.calls = append(f.calls, method)
	f.params = append(f.params, b)
	sendErr := f.sendErr
	f.mu.Unlock()
	var res any
	switch method {
	case proto.MethodSystemCapabilities:
		res = proto.SystemCapabilitiesResult{Scripting: f.scripted}
	case proto.MethodSurfaceList:
		cmd, name := "bash", "build"
		f.mu.Lock()
		if f.name != "" {
			name = f.name
		}
		f.mu.Unlock()
		res = proto.SurfaceListResult{Surfaces: []proto.SurfaceInfo{{ID: 7, Name: name, Cmd: &cmd}}}
	case proto.MethodFleetList:
		res = proto.FleetListResult{}
	case proto.MethodSurfaceSendText:
		if sendErr != nil {
			return sendErr
		}
		f.mu.Lock()
		if f.starts {
			f.turnSeq++
		}
		res = proto.SurfaceSendTextResult{Sent: true, InputReady: true, AgentTarget: f.agent}
		f.mu.Unlock()
	case proto.MethodSurfaceStatus:
		f.mu.Lock()
		var st proto.SurfaceStatusResult
		st.SurfaceID, st.State, st.Hooked, st.TurnSeq = 7, proto.StateIdle, f.hooked, f.turnSeq
		f.mu.Unlock()
		res = st
	case proto.MethodSurfaceSendKeystroke:
		res = proto.SentResult{Sent: true}
	case proto.MethodSurfaceInterrupt:
		res = proto.SurfaceInterruptResult{Sent: true, Tool: "claude", Keys: []string{"escape"}}
	case proto.MethodScreenRows:
		var p proto.ScreenRowsParams
		json.Unmarshal(b, &p)
		r := proto.ScreenRowsResult{Cols: 10, HistoryLen: 50, HistoryDropped: 3}
		for y := p.From; y < p.To; y++ {
			r.Lines = append(r.Lines, proto.ScreenRow{Y: y, Runs: []proto.ScreenRun{{Text: fmt.Sprintf("line %d", y), Width: proto.RunNarrow}}})
		}
		res = r
	default:
		return ipc.Errorf(ipc.CodeMethodNotFound, "method not found: %s", method)
	}
	b, _ = json.Marshal(res)
	return json.Unmarshal(b, result)
}

// called returns the methods called so far.
func (f *fakeServer) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// fakeStream is a push stream of fixed frames, then silence until closed.
type fakeStream struct {
	ctx    context.Context
	frames chan json.RawMessage
}

func (s *fakeStream) Next() (json.RawMessage, error) {
	select {
	case f := <-s.frames:
		return f, nil
	case <-s.ctx.Done():
		return nil, s.ctx.Err()
	}
}

func (s *fakeStream) Close() error { return nil }

func (f *fakeServer) Subscribe(ctx context.Context, method string, params any) (Stream, error) {
	st := &fakeStream{ctx: ctx, frames: make(chan json.RawMessage, 16)}
	switch method {
	case proto.MethodScreenAttach:
		st.frames <- json.RawMessage(`{"type":"attached","id":1,"token":"SECRET-TOKEN"}`)
		for _, fr := range f.frames {
			st.frames <- json.RawMessage(fr)
		}
	case proto.MethodEventsSubscribe:
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-f.events:
					st.frames <- json.RawMessage(`{"type":"agent_state"}`)
				}
			}
		}()
	default:
		return nil, errors.New("unexpected stream " + method)
	}
	return st, nil
}

// startService serves a Service over the fake on a loopback port, with a
// clock that stands still (no refill of the pairing limit).
func startService(t *testing.T, f *fakeServer) *Service {
	t.Helper()
	if f.events == nil {
		f.events = make(chan struct{})
	}
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	s := New(Options{
		Listen:    Listen{Addr: "127.0.0.1:0"},
		StatePath: filepath.Join(t.TempDir(), "web", "web.json"),
		Call:      func(time.Duration) proto.Caller { return f },
		Subscribe: f.Subscribe,
		Now:       func() time.Time { return now },
	})
	s.logf = t.Logf
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return s
}

// pair makes a pairing link and posts its token as the page does; it
// returns a client holding the cookie.
func pair(t *testing.T, s *Service, readOnly bool) *http.Client {
	t.Helper()
	res, err := s.rpcPair(context.Background(), json.RawMessage(`{"read_only":`+map[bool]string{true: "true", false: "false"}[readOnly]+`}`))
	if err != nil {
		t.Fatal(err)
	}
	link := res.(proto.WebPairResult).URL
	base, tok, ok := strings.Cut(link, "/pair#")
	if !ok || base != s.URL() {
		t.Fatalf("pairing link %q: want %s/pair#TOKEN", link, s.URL())
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp := postPair(t, c, s, tok)
	if resp.StatusCode != http.StatusOK { // after the redirect to /
		t.Fatalf("pairing: got %s, want 200 after the redirect", resp.Status)
	}
	return c
}

func postPair(t *testing.T, c *http.Client, s *Service, tok string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL()+"/pair", strings.NewReader(url.Values{"token": {tok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.URL())
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// dialWS opens the page's WebSocket with c's cookie and origin.
func dialWS(t *testing.T, s *Service, c *http.Client, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL(), "http")+"/ws", &websocket.DialOptions{HTTPClient: c, HTTPHeader: h})
}

// openPage serves the fake, pairs a browser and opens its WebSocket,
// closed when the test ends.
func openPage(t *testing.T, f *fakeServer, readOnly bool) (*Service, *http.Client, *websocket.Conn) {
	t.Helper()
	s := startService(t, f)
	c := pair(t, s, readOnly)
	ws, _, err := dialWS(t, s, c, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return s, c, ws
}

// readMsg reads messages until one of type typ arrives.
func readMsg(t *testing.T, ws *websocket.Conn, typ string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for a %q message: %v", typ, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if m["t"] == typ {
			return m
		}
	}
}

func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestNoCookieIsRefused(t *testing.T) {
	s := startService(t, &fakeServer{})
	for _, p := range []string{"/session", "/ws"} {
		if resp := get(t, http.DefaultClient, s.URL()+p); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a cookie: got %s, want 401", p, resp.Status)
		}
	}
	_, resp, err := dialWS(t, s, http.DefaultClient, s.URL())
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("WebSocket without a cookie: got %v (%v), want 401", resp, err)
	}
	// A cookie of the right name with a made-up value is no better.
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.URL())
	jar.SetCookies(u, []*http.Cookie{{Name: s.st.cookieName(false), Value: randomToken()}})
	if resp := get(t, &http.Client{Jar: jar}, s.URL()+"/session"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /session with a forged cookie: got %s, want 401", resp.Status)
	}
	// The page itself is public: it holds nothing.
	if resp := get(t, http.DefaultClient, s.URL()+"/"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /: got %s, want 200", resp.Status)
	}
}

func TestCookieAttributes(t *testing.T) {
	s := startService(t, &fakeServer{})
	res, _ := s.rpcPair(context.Background(), json.RawMessage(`{}`))
	_, tok, _ := strings.Cut(res.(proto.WebPairResult).URL, "#")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("POST", s.URL()+"/pair", strings.NewReader("token="+url.QueryEscape(tok)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sc := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %s", sc, want)
		}
	}
	if strings.Contains(sc, "Secure") {
		t.Errorf("Set-Cookie %q is Secure on plain HTTP: the browser would drop it", sc)
	}
}

func TestForeignOriginIsRefused(t *testing.T) {
	s := startService(t, &fakeServer{})
	c := pair(t, s, false)
	for _, origin := range []string{"http://evil.example", "", "https" + strings.TrimPrefix(s.URL(), "http"), s.URL() + "/x", "null"} {
		ws, resp, err := dialWS(t, s, c, origin)
		if err == nil {
			ws.CloseNow()
			t.Errorf("WebSocket with Origin %q was accepted", origin)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("WebSocket with Origin %q: got %v (%v), want 403", origin, resp, err)
		}
	}
	ws, _, err := dialWS(t, s, c, s.URL())
	if err != nil {
		t.Fatalf("WebSocket with the server's own origin: %v", err)
	}
	ws.CloseNow()
	// DNS rebinding: a page on another name that resolves to loopback.
	req, _ := http.NewRequest("GET", s.URL()+"/session", nil)
	req.Host = "rebind.example:80"
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host rebind.example: got %s, want 421", resp.Status)
	}
}

func TestRevokedBrowserIsRefused(t *testing.T) {
	s, c, ws := openPage(t, &fakeServer{}, false)
	readMsg(t, ws, "hello")
	list, err := s.rpcList(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	browsers := list.(proto.WebListResult).Browsers
	if len(browsers) != 1 {
		t.Fatalf("web.list: got %d browsers, want 1", len(browsers))
	}
	res, err := s.rpcRevoke(context.Background(), json.RawMessage(`{"id":"`+browsers[0].ID+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(proto.WebRevokeResult); !got.Revoked || got.Closed != 1 {
		t.Errorf("web.revoke: got %+v, want revoked with 1 page closed", got)
	}
	if bye := readMsg(t, ws, "bye"); !strings.Contains(bye["why"].(string), "revoked") {
		t.Errorf("the open page was told %v, want revoked", bye)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			break // closed
		}
	}
	if resp := get(t, c, s.URL()+"/session"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /session after revoke: got %s, want 401", resp.Status)
	}
	if _, resp, err := dialWS(t, s, c, s.URL()); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("WebSocket after revoke: got %v (%v), want 401", resp, err)
	}
	if _, err := s.rpcRevoke(context.Background(), json.RawMessage(`{"id":"`+browsers[0].ID+`"}`)); err == nil {
		t.Error("revoking it again: got no error")
	}
}

func TestReadOnlyCannotWrite(t *testing.T) {
	f := &fakeServer{scripted: true}
	_, _, ws := openPage(t, f, true)
	if h := readMsg(t, ws, "hello"); h["ro"] != true {
		t.Errorf("hello: got %v, want ro true", h)
	}
	for i, m := range []string{`{"t":"send","id":7,"text":"rm -rf ~","req":1}`, `{"t":"type","id":7,"text":"1","req":2}`, `{"t":"key","id":7,"key":"enter","req":3}`, `{"t":"stop","id":7,"req":4}`} {
		if err := ws.Write(context.Background(), websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
		r := readMsg(t, ws, "res")
		if r["ok"] != false || !strings.Contains(r["err"].(string), "read-only") || r["req"] != float64(i+1) {
			t.Errorf("%s: got %v, want a read-only refusal", m, r)
		}
	}
	for _, m := range f.called() {
		if m == proto.MethodSurfaceSendText || m == proto.MethodSurfaceSendKeystroke || m == proto.MethodSurfaceInterrupt {
			t.Errorf("a read-only browser made the server call %s", m)
		}
	}
}

func TestWritesGoThroughTheGate(t *testing.T) {
	gate := ipc.Errorf(ipc.CodeMethodNotFound, "%s", proto.MsgSendTextGate)
	f := &fakeServer{sendErr: gate}
	_, _, ws := openPage(t, f, false)
	if h := readMsg(t, ws, "hello"); h["writes"] != false {
		t.Errorf("hello: got %v, want writes false (gate closed)", h)
	}
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"send","id":7,"text":"hello","req":1}`))
	if r := readMsg(t, ws, "res"); r["ok"] != false || r["err"] != proto.MsgSendTextGate {
		t.Errorf("send with the gate closed: got %v, want the gate's message", r)
	}
	f.mu.Lock()
	f.sendErr = nil
	f.mu.Unlock()
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"send","id":7,"text":"hello","req":2}`))
	if r := readMsg(t, ws, "res"); r["ok"] != true {
		t.Errorf("send with the gate open: got %v, want ok", r)
	}
	f.mu.Lock()
	last := string(f.params[len(f.params)-1])
	f.mu.Unlock()
	var p proto.SurfaceSendTextParams
	json.Unmarshal([]byte(last), &p)
	if p.SurfaceID == nil || *p.SurfaceID != 7 || p.Text != "hello" || !p.Submit {
		t.Errorf("send_text params: got %s, want pane 7, text hello, submitted", last)
	}
}

func TestPairingIsOneTimeAndRateLimited(t *testing.T) {
	s := startService(t, &fakeServer{})
	res, _ := s.rpcPair(context.Background(), json.RawMessage(`{}`))
	_, tok, _ := strings.Cut(res.(proto.WebPairResult).URL, "#")
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if resp := postPair(t, c, s, tok); resp.StatusCode != http.StatusOK {
		t.Fatalf("first use: got %s, want 200", resp.Status)
	}
	if resp := postPair(t, http.DefaultClient, s, tok); resp.StatusCode != http.StatusForbidden {
		t.Errorf("second use of the link: got %s, want 403", resp.Status)
	}
	// 5 attempts a burst (two used above), then 429, whatever the token:
	// the clock stands still, so nothing refills.
	for i := range 3 {
		if resp := postPair(t, http.DefaultClient, s, "guess"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("bad attempt %d: got %s, want 403", i+3, resp.Status)
		}
	}
	res, _ = s.rpcPair(context.Background(), json.RawMessage(`{}`))
	_, tok, _ = strings.Cut(res.(proto.WebPairResult).URL, "#")
	if resp := postPair(t, http.DefaultClient, s, tok); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("attempt 6 (a valid token): got %s, want 429", resp.Status)
	}
}

// TestPairQR: web.pair sends the link's QR modules only when asked (the
// command-line client draws them; it links no encoder).
func TestPairQR(t *testing.T) {
	s := startService(t, &fakeServer{})
	res, err := s.rpcPair(context.Background(), json.RawMessage(`{"qr":true}`))
	if err != nil {
		t.Fatal(err)
	}
	r := res.(proto.WebPairResult)
	want, err := qrtext.Modules(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.QR, want) {
		t.Errorf("qr: got %d rows, want the link's %d", len(r.QR), len(want))
	}
	res, _ = s.rpcPair(context.Background(), json.RawMessage(`{}`))
	if qr := res.(proto.WebPairResult).QR; qr != nil {
		t.Errorf("not asked: got %d rows of QR, want none", len(qr))
	}
}

func TestLimiterRefills(t *testing.T) {
	l := limiter{burst: 2, every: 10 * time.Second}
	t0 := time.Unix(1000, 0)
	for i, c := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {0, true}, {0, false}, {9 * time.Second, false}, {10 * time.Second, true}, {10 * time.Second, false}, {time.Hour, true}, {time.Hour, true}, {time.Hour, false}} {
		if got := l.allow(t0.Add(c.at)); got != c.want {
			t.Errorf("attempt %d at +%v: got %v, want %v", i, c.at, got, c.want)
		}
	}
}

func TestPairingLinkExpires(t *testing.T) {
	now := time.Unix(1000, 0)
	st, err := openStore("", func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	tok := st.newPairing(false)
	now = now.Add(pairTTL)
	if _, _, err := st.pair(tok, "ua"); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("pairing at its expiry: got %v, want expired", err)
	}
}

func TestStoreKeepsSecretAndBrowsers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w", "web.json")
	st, err := openStore(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	cookie, b, err := st.pair(st.newPairing(true), "Firefox")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), cookie) {
		t.Error("the file holds the session cookie itself")
	}
	again, err := openStore(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := again.browser(cookie)
	if !ok || got.ID != b.ID || !got.ReadOnly {
		t.Errorf("after reopening: got %+v, %v; want browser %s, read-only", got, ok, b.ID)
	}
	if again.cookieName(false) != st.cookieName(false) {
		t.Error("the cookie name changed on reopening")
	}
}

func TestScreenFramesRelayed(t *testing.T) {
	f := &fakeServer{frames: []string{
		`{"type":"heartbeat"}`,
		`{"type":"screen","surface_id":7,"seq":1,"full":true,"cols":10,"rows":2,"lines":[{"y":0,"runs":[[0,"hi"]]}]}`,
		`{"type":"screen_closed","surface_id":7}`,
	}}
	_, _, ws := openPage(t, f, false)
	readMsg(t, ws, "overview")
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"open","id":7}`))
	var got []string
	for range 2 {
		m := readMsg(t, ws, "f")
		b, _ := json.Marshal(m["f"])
		got = append(got, string(b))
	}
	if !strings.Contains(got[0], `"type":"screen"`) || !strings.Contains(got[0], `"hi"`) || !strings.Contains(got[1], `"screen_closed"`) {
		t.Errorf("relayed frames: got %q, want the screen frame then screen_closed", got)
	}
	for _, g := range got {
		if strings.Contains(g, "SECRET-TOKEN") {
			t.Error("the attachment's token reached the browser")
		}
	}
}

func TestScrollbackRows(t *testing.T) {
	// A read-only browser may read the scrollback: it writes nothing.
	_, _, ws := openPage(t, &fakeServer{}, true)
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"rows","id":7,"from":10,"to":12,"req":4}`))
	m := readMsg(t, ws, "rows")
	b, _ := json.Marshal(m["r"])
	if m["id"] != float64(7) || m["req"] != float64(4) || !strings.Contains(string(b), `"line 10"`) || !strings.Contains(string(b), `"line 11"`) || !strings.Contains(string(b), `"history_dropped":3`) {
		t.Errorf("rows 10-12 of pane 7: got %v (r %s), want screen.rows' result as the server wrote it", m, b)
	}
}

func TestOverviewFollowsEvents(t *testing.T) {
	f := &fakeServer{events: make(chan struct{})}
	_, _, ws := openPage(t, f, false)
	m := readMsg(t, ws, "overview")
	panes := m["panes"].([]any)
	if len(panes) != 1 || panes[0].(map[string]any)["name"] != "build" {
		t.Errorf("overview: got %v, want pane build", m)
	}
	f.mu.Lock()
	f.name = "renamed"
	f.mu.Unlock()
	f.events <- struct{}{}
	m = readMsg(t, ws, "overview")
	if panes := m["panes"].([]any); len(panes) != 1 || panes[0].(map[string]any)["name"] != "renamed" {
		t.Errorf("overview after an event: got %v, want pane renamed", m)
	}
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		l    Listen
		want string // "" no error, else part of it
	}{
		{Listen{Addr: "127.0.0.1:8080"}, ""},
		{Listen{Addr: "[::1]:0"}, ""},
		{Listen{Addr: "localhost:9000"}, ""},
		{Listen{Addr: "0.0.0.0:8080"}, "not a loopback address"},
		{Listen{Addr: "192.168.1.5:8080"}, "clear text"},
		{Listen{Addr: "192.168.1.5:8080", CertFile: "c.pem", KeyFile: "k.pem"}, ""},
		{Listen{Addr: "127.0.0.1:8080", CertFile: "c.pem"}, "both"},
		{Listen{Addr: "example.com:80"}, "IP address or localhost"},
		{Listen{Addr: "8080"}, "HOST:PORT"},
	} {
		err := CheckListen(c.l)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckListen(%+v): got %v, want nil", c.l, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckListen(%+v): got %v, want an error with %q", c.l, err, c.want)
		}
	}
}

func TestPageSize(t *testing.T) {
	plain, gz, err := PageSize()
	if err != nil {
		t.Fatal(err)
	}
	if gz > 500<<10 {
		t.Errorf("the page is %d bytes gzipped, over the 500 KB budget", gz)
	}
	t.Logf("page: %d bytes, %d gzipped", plain, gz)
}

// TestComposerConfirmsTurnStart: a prompt submitted to an agent pane is
// answered "sent" at once and then with its turn start, confirmed as
// `paneflow send --submit` confirms it; one the agent does not start is
// reported as delivered but not started.
func TestComposerConfirmsTurnStart(t *testing.T) {
	f := &fakeServer{scripted: true, agent: true, hooked: true, starts: true}
	_, _, ws := openPage(t, f, false)
	readMsg(t, ws, "hello")
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"send","id":7,"text":"fix the bug","req":1}`))
	if r := readMsg(t, ws, "res"); r["ok"] != true || r["confirming"] != true {
		t.Errorf("send to an agent pane: got %v, want ok and confirming", r)
	}
	if r := readMsg(t, ws, "start"); r["ok"] != true || r["reason"] != proto.StartHookTurn || r["req"] != float64(1) {
		t.Errorf("turn start: got %v, want ok by %s for req 1", r, proto.StartHookTurn)
	}

	// An agent without hooks that prints nothing after the Enter: no
	// start within the 3 s limit.
	f.mu.Lock()
	f.hooked, f.starts = false, false
	f.mu.Unlock()
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"send","id":7,"text":"hello?","req":2}`))
	if r := readMsg(t, ws, "res"); r["ok"] != true || r["confirming"] != true {
		t.Errorf("second send: got %v, want ok and confirming", r)
	}
	if r := readMsg(t, ws, "start"); r["ok"] != false || !strings.Contains(fmt.Sprint(r["err"]), "no_output_after_enter") {
		t.Errorf("no start: got %v, want not ok with no_output_after_enter", r)
	}

	// A shell pane (not an agent's): nothing to confirm.
	f.mu.Lock()
	f.agent = false
	f.mu.Unlock()
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"send","id":7,"text":"ls","req":3}`))
	if r := readMsg(t, ws, "res"); r["ok"] != true || r["confirming"] != nil {
		t.Errorf("send to a shell pane: got %v, want ok without confirming", r)
	}
}

// TestStopInterruptsTheAgent: the page's Stop is surface.interrupt of the
// open pane (the server picks the agent's own keys).
func TestStopInterruptsTheAgent(t *testing.T) {
	f := &fakeServer{scripted: true}
	_, _, ws := openPage(t, f, false)
	readMsg(t, ws, "hello")
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"t":"stop","id":7,"req":1}`))
	if r := readMsg(t, ws, "res"); r["ok"] != true || r["req"] != float64(1) {
		t.Errorf("stop: got %v, want ok", r)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if last := f.calls[len(f.calls)-1]; last != proto.MethodSurfaceInterrupt || string(f.params[len(f.params)-1]) != `{"surface_id":7}` {
		t.Errorf("stop called %s %s, want surface.interrupt of pane 7", last, f.params[len(f.params)-1])
	}
}
