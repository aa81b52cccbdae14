//go:build linux

package mcpe2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// Generous bounds for a loaded machine; they only bound how long a broken
// build takes to fail, nothing asserts speed.
const (
	stopTimeout = 30 * time.Second
	callTimeout = 60 * time.Second
)

// serverBin is the headless paneflow (tag nogui), bridgeBin paneflow-mcp,
// hookBin paneflow-ai-hook, built once for the package (with -race when
// the tests run with it).
var serverBin, bridgeBin, hookBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paneflow-mcp-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "paneflow")
	bridgeBin = filepath.Join(dir, "paneflow-mcp")
	hookBin = filepath.Join(dir, "paneflow-ai-hook")
	for _, b := range []struct{ out, tags, pkg string }{
		{serverBin, "nogui", "cmd/paneflow"},
		{bridgeBin, "", "cmd/paneflow-mcp"},
		{hookBin, "", "cmd/paneflow-ai-hook"},
	} {
		args := []string{"build", "-o", b.out}
		if b.tags != "" {
			args = append(args, "-tags", b.tags)
		}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, "github.com/paneflow-go/paneflow/"+b.pkg)...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "mcpe2e: building %s: %v\n", filepath.Base(b.out), err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running `paneflow serve`.
type server struct {
	t    testing.TB
	dir  string
	sock string
	env  []string
	proc *proctest.Process
}

// baseEnv is an isolated XDG tree, a UTF-8 locale and a plain shell.
func baseEnv(dir string) []string {
	return []string{
		"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "SHELL=/bin/sh",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"), "GORACE=atexit_sleep_ms=0",
	}
}

// tempDir is a short-pathed temp dir removed after the test.
func tempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pfm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startServer runs `paneflow serve` on a fresh socket and waits until it
// answers system.ping.
func startServer(t testing.TB) *server { return startServerGate(t, true) }

// startServerGate is startServer with the scripting gate open or closed.
func startServerGate(t testing.TB, scripting bool) *server {
	t.Helper()
	dir := tempDir(t)
	s := &server{t: t, dir: dir, sock: filepath.Join(dir, "pf.sock"), env: baseEnv(dir)}
	// A closed pane's managed worktree waits for undo close's window
	// before its teardown (a minute by default); TestSpawnWorktree waits
	// for that teardown.
	serveEnv := append(baseEnv(dir), "PANEFLOW_UNDO_WINDOW=2s")
	if scripting {
		serveEnv = append(serveEnv, "PANEFLOW_IPC_SCRIPTING=1") // for surface.send_text
	}
	s.proc = servetest.Start(t, servetest.Config{Bin: serverBin, Sock: s.sock, Dir: dir, Env: serveEnv}).Proc
	return s
}

// tryRPC sends one request on a fresh connection and returns the reply.
func (s *server) tryRPC(method string, params any) (string, error) {
	c, err := net.Dial("unix", s.sock)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(callTimeout))
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if _, err := c.Write(append(req, '\n')); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// rpc is tryRPC that fails the test on a transport error or an error
// reply, and decodes the result into out (if not nil).
func (s *server) rpc(method string, params, out any) {
	s.t.Helper()
	line, err := s.tryRPC(method, params)
	if err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &reply); err != nil || reply.Error != nil {
		s.t.Fatalf("%s: error reply %s", method, line)
	}
	if out != nil {
		if err := json.Unmarshal(reply.Result, out); err != nil {
			s.t.Fatalf("%s: result %s: %v", method, reply.Result, err)
		}
	}
}

// split starts command in a new pane called name and returns its id.
func (s *server) split(name, command string) uint64 {
	s.t.Helper()
	var r struct {
		SurfaceID uint64 `json:"surface_id"`
	}
	s.rpc("surface.split", map[string]any{"direction": "vertical", "command": command, "name": name}, &r)
	return r.SurfaceID
}

// send types text into pane id (the test server opens the scripting
// gate).
func (s *server) send(id uint64, text string) {
	s.t.Helper()
	s.rpc("surface.send_text", map[string]any{"surface_id": id, "text": text}, nil)
}

// waitText waits until pane id's screen holds text (push-driven through
// surface.wait from the pane's start).
func (s *server) waitText(id uint64, text string) {
	s.t.Helper()
	s.rpc("surface.wait", map[string]any{"surface_ids": []uint64{id}, "pattern": regexpQuote(text), "timeout_ms": callTimeout.Milliseconds(), "from_start": true}, nil)
}

// regexpQuote escapes regexp metacharacters.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// events collects what the bridge pushes to the client.
type events struct {
	mu       sync.Mutex
	updated  chan string
	listed   chan struct{}
	progress chan *sdk.ProgressNotificationParams
}

// session is a client connected to a fresh paneflow-mcp.
type session struct {
	*sdk.ClientSession
	ev     *events
	stderr *proctest.Buffer
}

// connect starts paneflow-mcp with env (PANEFLOW_SOCKET_PATH added when
// sock is not empty) and connects the SDK's client to it. version pins
// the protocol version ("" lets the SDK choose).
func connect(t testing.TB, env []string, sock, version string) *session {
	t.Helper()
	return connectArgs(t, env, sock, version)
}

// connectArgs is connect with arguments for paneflow-mcp.
func connectArgs(t testing.TB, env []string, sock, version string, args ...string) *session {
	t.Helper()
	return connectDir(t, "", env, sock, version, args...)
}

// connectDir is connectArgs with paneflow-mcp started in dir ("" = the
// test's own directory), as an agent starts it in its own.
func connectDir(t testing.TB, dir string, env []string, sock, version string, args ...string) *session {
	t.Helper()
	ev := &events{updated: make(chan string, 1024), listed: make(chan struct{}, 1024), progress: make(chan *sdk.ProgressNotificationParams, 1024)}
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpe2e", Version: "0"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			ev.updated <- r.Params.URI
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			select {
			case ev.listed <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			ev.progress <- r.Params
		},
	})
	cmd := exec.Command(bridgeBin, args...)
	cmd.Dir = dir
	cmd.Env = env[:len(env):len(env)]
	if _, bench := t.(*testing.B); !bench {
		cmd.Env = append(cmd.Env, "PANEFLOW_MCP_DEBUG=1") // the SDK's trace, logged when a test fails
	}
	if sock != "" {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "PANEFLOW_SOCKET_PATH="+sock)
	}
	stderr := new(proctest.Buffer)
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: stopTimeout}, opts)
	if err != nil {
		t.Fatalf("connecting to paneflow-mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("paneflow-mcp stderr:\n%s", proctest.Indent(stderr.String()))
		}
	})
	return &session{ClientSession: cs, ev: ev, stderr: stderr}
}

// call calls a tool and returns its text and isError.
func (s *session) call(t testing.TB, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			t.Fatalf("tools/call %s: content %T, want text", name, c)
		}
		texts = append(texts, tc.Text)
	}
	return strings.Join(texts, "\n"), res.IsError
}

// mustCall is call that fails the test on an isError result.
func (s *session) mustCall(t testing.TB, name string, args any) string {
	t.Helper()
	text, isErr := s.call(t, name, args)
	if isErr {
		t.Fatalf("tools/call %s %v: isError: %s", name, args, text)
	}
	return text
}
