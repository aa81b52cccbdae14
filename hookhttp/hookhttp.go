// Package hookhttp is the server's loopback HTTP endpoint for Claude
// Code's http hooks (issue 25): a Claude Code hook of type "http" POSTs the
// JSON a command hook gets on stdin, so an agent launched through the shim
// reports its lifecycle with no process per hook. The launch shim's
// opencode plugin posts its events there too, with fetch(). The endpoint turns each
// POST into the ai.* frame paneflow-ai-hook would have sent for the same
// payload ([hook.Map], the same answer artifact) and runs it through the
// conductor's state machine before it answers, so frames keep their order
// and none is refused for load.
//
// It is off until a launch asks: the first hooks.endpoint call listens on
// 127.0.0.1 at a port the kernel picks and makes a random 32-byte secret.
// A request must be POST /hook, Content-Type application/json, carry
// X-Paneflow-Hook: 1 and "Authorization: Bearer <secret>" (compared in
// constant time), name this listener in Host, and carry no Origin or
// Sec-Fetch-Site header: a web page on the machine can make none of these
// (a custom header or a JSON content type needs a CORS preflight, which is
// refused). Headers must arrive within 5 s, the body within 30 s; bodies
// past [hook.MaxStdin] are refused, and of a longer payload only the first
// [MaxBody] bytes are read, as the hook binary salvages a cut payload; at
// most [MaxConns] connections are served at once (more wait in the
// kernel's backlog, they are not refused).
package hookhttp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
)

// Limits of the endpoint.
const (
	// MaxBody is how much of a payload is read and mapped; the rest, up
	// to hook.MaxStdin, is read and dropped.
	MaxBody = 1 << 20
	// MaxConns bounds the connections served at once.
	MaxConns = 1024
	// HeaderTimeout bounds the arrival of a request's headers, the first
	// request's included.
	HeaderTimeout = 5 * time.Second
	// BodyTimeout bounds the arrival of a whole request.
	BodyTimeout = 30 * time.Second
	// IdleTimeout closes a kept-alive connection that sends nothing.
	IdleTimeout = 30 * time.Second
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 16 << 10
)

// The request's parts the endpoint requires.
const (
	// Path is the endpoint's only path.
	Path = "/hook"
	// MarkHeader must be "1" (hook.HTTPHookMark).
	MarkHeader = hook.HTTPHookMark
)

// Options configure an [Endpoint].
type Options struct {
	// Frame runs one ai.* frame through the state machine
	// (conductor.Conductor.Frame). Required.
	Frame func(method string, params json.RawMessage) (any, error)
	// Getenv locates the artifact root for turn answers; nil means the
	// subsystem host's, else os.Getenv.
	Getenv func(string) string
	// Logf logs a diagnostic line; nil means the host's, else none.
	Logf func(format string, args ...any)
	// WorkspaceOf returns the workspace of a live pane, for hooks.report
	// (whose caller names only the pane); nil takes none, and the
	// answer artifact of a Stop is then not kept.
	WorkspaceOf func(surfaceID uint64) (uint64, bool)
}

// Endpoint is the http-hook endpoint, a subsystem ("hooks", method
// hooks.endpoint). Make it with [New]; it is safe for concurrent use.
type Endpoint struct {
	o Options

	mu     sync.Mutex
	srv    *http.Server
	host   string // 127.0.0.1:PORT, once open
	token  string
	closed bool
	served chan struct{} // closed when Serve returned
}

var _ subsystem.Subsystem = (*Endpoint)(nil)

// New returns a closed endpoint; hooks.endpoint (or [Endpoint.Open])
// opens it.
func New(o Options) *Endpoint { return &Endpoint{o: o} }

// Name is "hooks", the subsystem's name and namespace.
func (e *Endpoint) Name() string { return "hooks" }

// Init registers hooks.endpoint and hooks.report, admitted as hook frames
// (never refused).
func (e *Endpoint) Init(h *subsystem.Host) error {
	if e.o.Frame == nil {
		return errors.New("hookhttp: Options.Frame is required")
	}
	if e.o.Getenv == nil {
		e.o.Getenv = h.Getenv
	}
	if e.o.Logf == nil {
		e.o.Logf = h.Logf
	}
	h.Methods.Register(proto.MethodHooksEndpoint, func(context.Context, json.RawMessage) (any, error) {
		r, err := e.Open()
		if err != nil {
			return nil, ipc.Errorf(ipc.CodeInternal, "hooks endpoint: %v", err)
		}
		return r, nil
	}, ipc.Admit(ipc.KindHook))
	h.Methods.Register(proto.MethodHooksReport, e.hooksReport, ipc.Admit(ipc.KindHook))
	return nil
}

// Open starts listening, the first time, and returns the URL and secret.
func (e *Endpoint) Open() (proto.HooksEndpointResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return proto.HooksEndpointResult{}, errors.New("the server is shutting down")
	}
	if e.srv == nil {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return proto.HooksEndpointResult{}, err
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return proto.HooksEndpointResult{}, err
		}
		e.token = hex.EncodeToString(b[:])
		e.host = ln.Addr().String()
		e.srv = &http.Server{
			Handler:           e,
			ReadHeaderTimeout: HeaderTimeout,
			ReadTimeout:       BodyTimeout,
			WriteTimeout:      BodyTimeout,
			IdleTimeout:       IdleTimeout,
			MaxHeaderBytes:    maxHeaderBytes,
		}
		e.served = make(chan struct{})
		srv, served := e.srv, e.served
		go func() {
			defer close(served)
			srv.Serve(netutil.LimitListener(ln, MaxConns))
		}()
	}
	return proto.HooksEndpointResult{URL: "http://" + e.host + Path, Token: e.token}, nil
}

// Shutdown stops the listener and waits for requests in progress, up to
// ctx.
func (e *Endpoint) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	srv, served := e.srv, e.served
	e.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Shutdown(ctx)
	if err != nil {
		srv.Close()
	}
	<-served
	return err
}

// fail answers a refused request with code and a one-line reason.
func fail(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "paneflow hooks: "+format+"\n", args...)
}

// ServeHTTP handles one hook POST (see the package doc).
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	token, host := e.token, e.host
	e.mu.Unlock()
	if r.URL.Path != Path {
		fail(w, http.StatusNotFound, "no such path %q", r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, http.StatusMethodNotAllowed, "method %s; only POST", r.Method)
		return
	}
	if r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" {
		fail(w, http.StatusForbidden, "requests from web pages are refused")
		return
	}
	if host != "" && r.Host != host {
		fail(w, http.StatusMisdirectedRequest, "host %q is not this endpoint", r.Host)
		return
	}
	if r.Header.Get(MarkHeader) != "1" {
		fail(w, http.StatusForbidden, "%s: 1 is missing", MarkHeader)
		return
	}
	got, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" || !bearer || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
		fail(w, http.StatusUnauthorized, "missing or wrong Authorization bearer secret")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(w, http.StatusUnsupportedMediaType, "Content-Type %q; only application/json", r.Header.Get("Content-Type"))
		return
	}
	q := r.URL.Query()
	event := q.Get("event")
	if !slices.Contains(hook.HTTPEvents, event) {
		fail(w, http.StatusBadRequest, "event %q is not one of %s", event, strings.Join(hook.HTTPEvents, ", "))
		return
	}
	env := map[string]string{}
	for key, name := range hook.HTTPHookQuery {
		if v := q.Get(key); v != "" {
			env[name] = v
		}
	}
	for h, name := range hook.HTTPHookHeaders {
		if v := r.Header.Get(h); v != "" {
			env[name] = v
		}
	}
	for _, name := range []string{hook.EnvSurfaceID, hook.EnvWorkspaceID} {
		if v, ok := env[name]; ok || name == hook.EnvSurfaceID {
			if n, err := strconv.ParseUint(v, 10, 64); err != nil || n == 0 {
				fail(w, http.StatusBadRequest, "the pane's %s %q is not an id (a decimal > 0)", name, v)
				return
			}
		}
	}
	data, err := readBody(w, r.Body)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			fail(w, http.StatusRequestEntityTooLarge, "body over %d bytes", int64(hook.MaxStdin))
			return
		}
		fail(w, http.StatusBadRequest, "reading the body: %v", err)
		return
	}
	if !isObject(data) {
		fail(w, http.StatusBadRequest, "the body is not a JSON object")
		return
	}
	if _, err := e.report(event, env, data); err != nil {
		var ie *ipc.Error
		if errors.As(err, &ie) && ie.Code == ipc.CodeInvalidParams {
			fail(w, http.StatusBadRequest, "%s", ie.Message)
			return
		}
		fail(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// report maps one hook event as paneflow-ai-hook maps it (env standing in
// for the hook's environment, data for its stdin), keeps a Stop's answer
// as the artifact and runs the frame through the state machine. It
// returns the ai.* method sent, "" when the event says nothing to report
// (a notification that is not a question: the hook binary sends nothing
// then either).
func (e *Endpoint) report(event string, env map[string]string, data []byte) (string, error) {
	method, params, ok := hook.Map(event, nil, data, func(name string) string { return env[name] })
	if !ok {
		return "", nil
	}
	if method == hook.MethodStop {
		if err := hook.KeepAnswer(event, nil, data, params, e.getenv, time.Now()); err != nil && e.o.Logf != nil {
			e.o.Logf("hooks: %s: answer artifact not written: %v", event, err)
		}
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return "", err
	}
	if _, err := e.o.Frame(method, raw); err != nil {
		return "", err
	}
	return method, nil
}

// hooksReport is hooks.report: [Endpoint.Report] over the socket.
func (e *Endpoint) hooksReport(_ context.Context, raw json.RawMessage) (any, error) {
	var p proto.HooksReportParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, ipc.InvalidParams("invalid params: %v", err)
	}
	return e.Report(p)
}

// Report runs one hook event that no hook process carried
// (proto.MethodHooksReport): the event of a Codex mcp_tool hook, which
// the agent's MCP bridge forwards for its own pane. It makes the frame
// paneflow-ai-hook makes of the same event, payload and environment. The
// socket is the user's own, as for the ai.* frames the hook binary
// sends; the pane must be live, and its workspace is the server's to
// say, not the caller's. Bad params are -32602 errors.
func (e *Endpoint) Report(p proto.HooksReportParams) (proto.HooksReportResult, error) {
	if !slices.Contains(hook.CodexEvents, p.Event) {
		return proto.HooksReportResult{}, ipc.InvalidParams("invalid params: event %q is not one of %s", p.Event, strings.Join(hook.CodexEvents, ", "))
	}
	if p.SurfaceID == 0 {
		return proto.HooksReportResult{}, ipc.InvalidParams("invalid params: surface_id is required")
	}
	if !isObject(p.Payload) {
		return proto.HooksReportResult{}, ipc.InvalidParams("invalid params: payload is not a JSON object")
	}
	env := map[string]string{hook.EnvSurfaceID: strconv.FormatUint(p.SurfaceID, 10)}
	if e.o.WorkspaceOf != nil {
		ws, ok := e.o.WorkspaceOf(p.SurfaceID)
		if !ok {
			return proto.HooksReportResult{}, ipc.InvalidParams("invalid params: no pane %d", p.SurfaceID)
		}
		env[hook.EnvWorkspaceID] = strconv.FormatUint(ws, 10)
	}
	if p.Tool != "" {
		env[hook.EnvTool] = p.Tool
	}
	if p.PID > 0 {
		env[hook.EnvPID] = strconv.Itoa(p.PID)
	}
	method, err := e.report(p.Event, env, p.Payload)
	return proto.HooksReportResult{Sent: method}, err
}

func (e *Endpoint) getenv(name string) string {
	if e.o.Getenv != nil {
		return e.o.Getenv(name)
	}
	return os.Getenv(name)
}

// readBody reads the first MaxBody bytes of body and drops the rest; a
// body longer than hook.MaxStdin is an error.
func readBody(w http.ResponseWriter, body io.ReadCloser) ([]byte, error) {
	lim := http.MaxBytesReader(w, body, hook.MaxStdin)
	data, err := io.ReadAll(io.LimitReader(lim, MaxBody))
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, lim); err != nil {
		return nil, err
	}
	return data, nil
}

// isObject reports whether data starts as a JSON object (the mapping
// salvages a cut one, so it is not parsed whole here).
func isObject(data []byte) bool {
	t := strings.TrimLeft(string(data[:min(len(data), 64)]), " \t\r\n")
	return strings.HasPrefix(t, "{")
}
