package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/internal/qrtext"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
)

// Listen says where the web client listens. The zero value serves none.
type Listen struct {
	// Addr is host:port; "" serves no web client (web.* then say so).
	// The host is an IP address or "localhost"; port 0 picks a free one.
	Addr string
	// CertFile and KeyFile are a TLS certificate and its key (PEM), both
	// or neither. Without them Addr must be a loopback address.
	CertFile, KeyFile string
}

// TLS reports whether l serves HTTPS.
func (l Listen) TLS() bool { return l.CertFile != "" }

// CheckListen reports whether l may be served, and why not: an address
// other than loopback needs TLS, since the session cookie and every key
// typed into a pane would otherwise cross the network in clear text.
func CheckListen(l Listen) error {
	if (l.CertFile == "") != (l.KeyFile == "") {
		return errors.New("web: give both --web-tls-cert and --web-tls-key, or neither")
	}
	host, _, err := net.SplitHostPort(l.Addr)
	if err != nil {
		return fmt.Errorf("web: --web %q: want HOST:PORT, for example 127.0.0.1:8080 (%v)", l.Addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fmt.Errorf("web: --web %q: the host must be an IP address or localhost", l.Addr)
	}
	if !ip.IsLoopback() && !l.TLS() {
		return fmt.Errorf("web: --web %s is not a loopback address: without TLS the session cookie and every key typed into a pane would cross the network in clear text; "+
			"give --web-tls-cert and --web-tls-key (a certificate for that address), or listen on 127.0.0.1 and reach it through an SSH forward, Tailscale or a VPN", l.Addr)
	}
	return nil
}

// Stream is a push stream of the socket (ipc.Stream's methods).
type Stream interface {
	Next() (json.RawMessage, error)
	Close() error
}

// Options configure a [Service].
type Options struct {
	// Listen is where to serve; its zero value serves nothing.
	Listen Listen
	// StatePath is the file holding the secret and the paired browsers
	// (created 0600); "" keeps them in memory (tests).
	StatePath string
	// Call makes calls on the server's socket; required when Listen.Addr
	// is set. Each call may take up to timeout.
	Call func(timeout time.Duration) proto.Caller
	// Subscribe opens a push stream on the server's socket (screen.attach,
	// events.subscribe); required when Listen.Addr is set. Cancelling ctx
	// closes it.
	Subscribe func(ctx context.Context, method string, params any) (Stream, error)
	// Now is the clock of pairing links, the rate limit and times in
	// state; nil means time.Now.
	Now func() time.Time
	// Optional: when serving fails to start (the port is taken, the
	// certificate unreadable), Init logs why and the server runs without
	// a web client, answering web.* with MsgWebOff. Set for an address
	// from the configuration file; an explicit --web fails instead.
	Optional bool
}

// Service is the web client: a subsystem of the core (namespace web).
// Create it with [New]; Init starts it, Shutdown stops it. See the package
// doc for what it serves.
type Service struct {
	o       Options
	logf    func(string, ...any)
	st      *store
	limit   limiter
	ln      net.Listener
	srv     *http.Server
	url     string // scheme://host:port of the listener
	hosts   []string
	secure  bool
	hub     *hub
	ctx     context.Context // ends at Shutdown: every WebSocket and relay
	cancel  context.CancelFunc
	wg      sync.WaitGroup // the HTTP server, the hub, every WebSocket
	static  map[string]asset
	serveMu sync.Mutex
	conns   map[*wsConn]bool // guarded by serveMu
}

var _ subsystem.Subsystem = (*Service)(nil)

// New returns a Service that serves o.Listen once Init ran.
func New(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{o: o, limit: limiter{burst: 5, every: 12 * time.Second}, conns: make(map[*wsConn]bool)}
}

// Name returns "web".
func (s *Service) Name() string { return "web" }

// URL is the web client's address (scheme://host:port), "" when it
// serves none. Valid after Init.
func (s *Service) URL() string { return s.url }

// Init registers web.* and, when Options.Listen.Addr is set, opens the
// state file, listens and starts serving. On error nothing runs.
func (s *Service) Init(h *subsystem.Host) error {
	s.logf = h.Logf
	h.Methods.Register(proto.MethodWebPair, s.rpcPair)
	h.Methods.Register(proto.MethodWebList, s.rpcList)
	h.Methods.Register(proto.MethodWebRevoke, s.rpcRevoke)
	if s.o.Listen.Addr == "" {
		return nil
	}
	err := s.start()
	if err != nil && s.o.Optional {
		s.logf("paneflow: %v; no web client", err)
		// start fails before it listens: nothing runs; forget what it
		// set, so web.* answers MsgWebOff.
		s.st, s.secure, s.hosts, s.static = nil, false, nil, nil
		return nil
	}
	return err
}

// start opens the store and the listener and serves.
func (s *Service) start() error {
	l := s.o.Listen
	if err := CheckListen(l); err != nil {
		return err
	}
	if s.o.Call == nil || s.o.Subscribe == nil {
		return errors.New("web: Options.Call and Options.Subscribe are required")
	}
	st, err := openStore(s.o.StatePath, s.o.Now)
	if err != nil {
		return err
	}
	s.st = st
	var tcfg *tls.Config
	if l.TLS() {
		cert, err := tls.LoadX509KeyPair(l.CertFile, l.KeyFile)
		if err != nil {
			return fmt.Errorf("web: TLS certificate: %v", err)
		}
		tcfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.secure = true
		if leaf, err := x509.ParseCertificate(cert.Certificate[0]); err == nil {
			s.hosts = append(s.hosts, leaf.DNSNames...)
			for _, ip := range leaf.IPAddresses {
				s.hosts = append(s.hosts, ip.String())
			}
		}
	}
	static, err := loadStatic()
	if err != nil {
		return err
	}
	s.static = static
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return fmt.Errorf("web: %v", err)
	}
	if tcfg != nil {
		ln = tls.NewListener(ln, tcfg)
	}
	s.ln = ln
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil {
			host = name
		}
	}
	scheme := "http"
	if s.secure {
		scheme = "https"
	}
	s.url = scheme + "://" + net.JoinHostPort(host, port)
	s.hosts = append(s.hosts, host)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.hub = newHub(s)
	s.srv = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          nil,
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("paneflow: web: %v", err)
		}
	}()
	go func() {
		defer s.wg.Done()
		s.hub.run(s.ctx)
	}()
	s.logf("paneflow: web client on %s (pair a browser: paneflow web pair)", s.url)
	return nil
}

// Shutdown stops serving, closes every WebSocket and waits, within ctx.
func (s *Service) Shutdown(ctx context.Context) error {
	if s.srv == nil {
		return nil
	}
	s.cancel()
	err := s.srv.Shutdown(ctx)
	if err := subsystem.Wait(ctx, &s.wg); err != nil {
		return fmt.Errorf("web: shutdown: %w", err)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("web: shutdown: %w", err)
	}
	return nil
}

// rpcPair answers web.pair: a one-time pairing link.
func (s *Service) rpcPair(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WebPairParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if s.st == nil {
		return nil, ipc.Errorf(ipc.CodeInvalidRequest, "%s", proto.MsgWebOff)
	}
	tok := s.st.newPairing(p.ReadOnly)
	res := proto.WebPairResult{URL: s.url + "/pair#" + tok, ReadOnly: p.ReadOnly, ExpiresInMS: pairTTL.Milliseconds()}
	if p.QR {
		// The link alone is enough when it cannot be a code.
		res.QR, _ = qrtext.Modules(res.URL)
	}
	return res, nil
}

// rpcList answers web.list.
func (s *Service) rpcList(context.Context, json.RawMessage) (any, error) {
	if s.st == nil {
		return nil, ipc.Errorf(ipc.CodeInvalidRequest, "%s", proto.MsgWebOff)
	}
	res := proto.WebListResult{URL: s.url, Browsers: []proto.WebBrowser{}}
	open := s.connCounts()
	for _, b := range s.st.browsers() {
		wb := proto.WebBrowser{ID: b.ID, ReadOnly: b.ReadOnly, UserAgent: b.Agent, PairedAt: b.Paired.Format(time.RFC3339), Connections: open[b.ID]}
		if !b.Seen.IsZero() {
			wb.LastSeen = b.Seen.Format(time.RFC3339)
		}
		res.Browsers = append(res.Browsers, wb)
	}
	return res, nil
}

// rpcRevoke answers web.revoke: the browser's session ends and its
// WebSockets close now.
func (s *Service) rpcRevoke(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.WebRevokeParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if s.st == nil {
		return nil, ipc.Errorf(ipc.CodeInvalidRequest, "%s", proto.MsgWebOff)
	}
	ok, err := s.st.revoke(p.ID)
	if err != nil {
		return nil, ipc.Errorf(ipc.CodeInternal, "%v", err)
	}
	if !ok {
		return nil, ipc.InvalidParams("no paired browser %q (paneflow web list shows them)", p.ID)
	}
	return proto.WebRevokeResult{Revoked: true, Closed: s.closeBrowser(p.ID)}, nil
}

// connCounts counts the open WebSockets per browser.
func (s *Service) connCounts() map[string]int {
	s.serveMu.Lock()
	defer s.serveMu.Unlock()
	n := make(map[string]int)
	for c := range s.conns {
		n[c.browser.ID]++
	}
	return n
}

// closeBrowser closes browser id's WebSockets and reports how many.
func (s *Service) closeBrowser(id string) int {
	s.serveMu.Lock()
	var list []*wsConn
	for c := range s.conns {
		if c.browser.ID == id {
			list = append(list, c)
		}
	}
	s.serveMu.Unlock()
	for _, c := range list {
		c.kill("this browser's pairing was revoked")
	}
	return len(list)
}

// hostAllowed reports whether a request's Host names this server: a
// loopback server answers to loopback names only, so a page on another
// name resolving to 127.0.0.1 (DNS rebinding) is refused; a TLS server
// to its address and its certificate's names.
func (s *Service) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if !s.secure {
		if host == "localhost" {
			return true
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
	for _, h := range s.hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// sameOrigin reports whether r's Origin header is this server's own
// origin as the browser reached it (scheme and the Host it used).
func (s *Service) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	scheme := "http"
	if s.secure {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host) && u.Path == "" && u.User == nil
}
