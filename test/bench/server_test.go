//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/tmuxtest"
)

// This file holds the fixtures of the server benchmarks (ipc_bench_test.go,
// flood_test.go): a `paneflow serve` process and a raw JSON-RPC client for
// it, a tmux server with a control-mode client, and the pane programs both
// sides run.

// binEnv names the environment variable with a prebuilt nogui paneflow
// binary; scripts/bench.sh builds it once for all rounds. Without it the
// first server benchmark builds one.
const binEnv = "PANEFLOW_BENCH_BIN"

// Pane size of the server benchmarks, on both sides.
const (
	srvCols = 80
	srvRows = 24
)

// setupTimeout bounds waiting for a fixture (a server, a pane's output).
const setupTimeout = 30 * time.Second

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// paneflowBin returns the paneflow command-line client (tags nogui and
// client), with the headless server it hands `serve` over to next to it as
// paneflow-server: $PANEFLOW_BENCH_BIN (make bench builds both), else both
// built on first use next to the benchmark binary (go test's work
// directory, removed after the run).
func paneflowBin(b testing.TB) string {
	b.Helper()
	binOnce.Do(func() {
		if binPath = os.Getenv(binEnv); binPath != "" {
			return
		}
		exe, err := os.Executable()
		if err != nil {
			binErr = err
			return
		}
		dir := filepath.Join(filepath.Dir(exe), "paneflow-bench-bin")
		binPath = filepath.Join(dir, "paneflow")
		for _, c := range []struct{ out, tags string }{{binPath, "nogui,client"}, {filepath.Join(dir, "paneflow-server"), "nogui"}} {
			cmd := exec.Command("go", "build", "-tags", c.tags, "-o", c.out, "github.com/paneflow-go/paneflow/cmd/paneflow")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("building %s: %v\n%s", filepath.Base(c.out), err, out)
				return
			}
		}
	})
	if binErr != nil {
		b.Fatal(binErr)
	}
	return binPath
}

// pfServer is a running `paneflow serve` on a private socket.
type pfServer struct {
	bin  string
	sock string
	env  []string // of the server and of CLI processes (PANEFLOW_SOCKET_PATH set)
	cmd  *exec.Cmd
	errs *proctest.Buffer
	once sync.Once // guards stop
}

// userEnv returns the environment of the user running the benchmark with
// overrides (KEY=value) applied, and without the variables that would
// point a command at another Paneflow or tmux server. Both sides' commands
// run with it, as they would from the user's shell: what a client does with
// its environment is part of its cost (a tmux client sends every variable
// to its server), so neither side gets a trimmed one.
func userEnv(overrides ...string) []string {
	set := map[string]bool{}
	for _, kv := range overrides {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if set[k] || k == "TMUX" || k == "TMUX_PANE" || strings.HasPrefix(k, "PANEFLOW_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, overrides...)
}

// startPaneflow starts `paneflow serve --size 80x24` with an isolated HOME
// and XDG tree and /bin/sh as the shell, waits until it answers
// system.ping and stops it (SIGTERM) when b ends. extra adds environment
// variables (KEY=value) to the server's and the CLI's.
func startPaneflow(b testing.TB, extra ...string) *pfServer {
	b.Helper()
	return startPaneflowSize(b, srvCols, srvRows, extra...)
}

// startPaneflowSize is startPaneflow with panes of cols×rows.
func startPaneflowSize(b testing.TB, cols, rows int, extra ...string) *pfServer {
	b.Helper()
	bin := paneflowBin(b)
	dir, err := os.MkdirTemp("", "pfb-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	s := &pfServer{bin: bin, sock: filepath.Join(dir, "pf.sock"), errs: new(proctest.Buffer)}
	s.env = userEnv(
		"HOME="+dir, "LANG=C.UTF-8", "SHELL=/bin/sh",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"PANEFLOW_SOCKET_PATH="+s.sock,
	)
	s.env = append(s.env, extra...)
	s.cmd = exec.Command(bin, "serve", "--socket", s.sock, "--size", fmt.Sprintf("%dx%d", cols, rows))
	s.cmd.Env = s.env
	s.cmd.Stderr = s.errs
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.stop)
	deadline := time.Now().Add(setupTimeout)
	for {
		c, err := dialRPC(s.sock)
		if err == nil {
			err = c.call("system.ping", nil, nil)
			c.Close()
			if err == nil {
				return s
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("paneflow serve did not answer within %v: %v\n%s", setupTimeout, err, s.errs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM (which closes its panes), killing it if
// it does not exit in time.
func (s *pfServer) stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() {
			_ = s.cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	})
}

// dial opens a connection for b, closed when b ends.
func (s *pfServer) dial(b testing.TB) *rpcConn {
	b.Helper()
	c, err := dialRPC(s.sock)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// cli returns an unstarted `paneflow <args>` process against the server.
func (s *pfServer) cli(args ...string) *exec.Cmd {
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	return cmd
}

// splitResult is surface.split's reply.
type splitResult struct {
	SurfaceID uint64 `json:"surface_id"`
}

// split starts command in a new pane of the active workspace and returns
// its surface id.
func split(c *rpcConn, command string) (uint64, error) {
	var r splitResult
	err := c.call("surface.split", map[string]any{"direction": "horizontal", "command": command}, &r)
	return r.SurfaceID, err
}

// readResult is surface.read's reply.
type readResult struct {
	Text       string `json:"text"`
	Lines      int    `json:"lines"`
	TotalLines int    `json:"total_lines"`
}

// readPane returns the newest lines of a pane, unfenced.
func readPane(c *rpcConn, id uint64, lines int) (readResult, error) {
	var r readResult
	err := c.call("surface.read", map[string]any{"surface_id": id, "lines": lines, "fenced": false}, &r)
	return r, err
}

// waitPaneText polls a pane until its newest lines contain text (setup
// only; the benchmarks measure with pushed notifications).
func waitPaneText(b testing.TB, c *rpcConn, id uint64, text string) {
	b.Helper()
	deadline := time.Now().Add(setupTimeout)
	for {
		r, err := readPane(c, id, 50)
		if err != nil {
			b.Fatal(err)
		}
		if strings.Contains(r.Text, text) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("surface %d does not show %q within %v; it shows:\n%s", id, text, setupTimeout, r.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rpcConn is a raw JSON-RPC connection to a Paneflow socket: one request
// at a time, each a line of JSON, as the ipc client writes them. Timed
// paths use encode, exchange and decodeReply separately, so that decoding
// a large reply on the client is not counted as the server's time. It is
// not safe for concurrent use.
type rpcConn struct {
	nc  net.Conn
	br  *bufio.Reader
	id  int64
	out []byte
}

// rpcError is a JSON-RPC error reply.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("paneflow error %d: %s", e.Code, e.Message) }

// callTimeout bounds one request on an rpcConn.
const callTimeout = 30 * time.Second

func dialRPC(path string) (*rpcConn, error) {
	nc, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	return &rpcConn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10)}, nil
}

// Close closes the connection.
func (c *rpcConn) Close() { c.nc.Close() }

// encode returns the next request line and its id. The line is valid until
// the next encode.
func (c *rpcConn) encode(method string, params any) ([]byte, int64, error) {
	c.id++
	c.out = append(c.out[:0], `{"jsonrpc":"2.0","id":`...)
	c.out = strconv.AppendInt(c.out, c.id, 10)
	c.out = append(c.out, `,"method":`...)
	c.out = strconv.AppendQuote(c.out, method)
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, 0, err
		}
		c.out = append(c.out, `,"params":`...)
		c.out = append(c.out, p...)
	}
	c.out = append(c.out, "}\n"...)
	return c.out, c.id, nil
}

// send writes one request and returns its id.
func (c *rpcConn) send(method string, params any) (int64, error) {
	req, id, err := c.encode(method, params)
	if err != nil {
		return 0, err
	}
	if err := c.nc.SetDeadline(time.Now().Add(callTimeout)); err != nil {
		return 0, err
	}
	_, err = c.nc.Write(req)
	return id, err
}

// exchange writes an encoded request and returns the reply line, valid
// until the next read.
func (c *rpcConn) exchange(req []byte) ([]byte, error) {
	if err := c.nc.SetDeadline(time.Now().Add(callTimeout)); err != nil {
		return nil, err
	}
	if _, err := c.nc.Write(req); err != nil {
		return nil, err
	}
	return c.readLine()
}

// readLine reads one reply line, valid until the next read.
func (c *rpcConn) readLine() ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		rest, err2 := c.br.ReadBytes('\n')
		line, err = append(bytes.Clone(line), rest...), err2
	}
	return line, err
}

// recv reads the reply to request id and decodes its result into result
// (nil discards it).
func (c *rpcConn) recv(id int64, result any) error {
	line, err := c.readLine()
	if err != nil {
		return err
	}
	return decodeReply(line, id, result)
}

// decodeReply decodes a reply line to request id; result may be nil.
func decodeReply(line []byte, id int64, result any) error {
	var resp struct {
		ID     int64           `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return fmt.Errorf("malformed reply %q: %v", line, err)
	}
	if resp.Error != nil {
		return resp.Error
	}
	if resp.ID != id {
		return fmt.Errorf("reply to request %d, want %d", resp.ID, id)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(resp.Result, result)
}

// call sends a request and waits for its reply.
func (c *rpcConn) call(method string, params, result any) error {
	id, err := c.send(method, params)
	if err != nil {
		return err
	}
	return c.recv(id, result)
}

// tmuxSide is a private tmux server with a session "bench" (80×24) and a
// control-mode client attached to it that records every pane's output.
type tmuxSide struct {
	s   *tmuxtest.Server
	ctl *tmuxtest.Control
	out *paneLog
}

// benchSession is the tmux session the server benchmarks work in.
const benchSession = "bench"

// startTmux starts the tmux side for b, skipping b unless the tmux side is
// enabled. Everything is stopped when b ends.
func startTmux(b *testing.B) *tmuxSide {
	b.Helper()
	requireTmux(b)
	s := tmuxtest.New(b, tmuxtest.Options{Env: userEnv("LANG=C.UTF-8")})
	// Paneflow's panes run commands with /bin/sh -c (SHELL=/bin/sh); so do
	// tmux's, whatever the user's login shell is.
	if _, err := s.Command("set-option", "-g", "default-shell", "/bin/sh"); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Command("new-session", "-d", "-s", benchSession, "-x", strconv.Itoa(srvCols), "-y", strconv.Itoa(srvRows),
		"sh", "-c", "exec sleep 1000000"); err != nil {
		b.Fatal(err)
	}
	t := &tmuxSide{s: s, out: newPaneLog()}
	ctl, err := s.Control(tmuxtest.ControlOptions{Session: benchSession, Output: t.out.add})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(ctl.Close)
	t.ctl = ctl
	return t
}

// window starts sh -c command in a new, detached window of the bench
// session and returns its pane id.
func (t *tmuxSide) window(b testing.TB, command string) string {
	b.Helper()
	out, err := t.s.Command("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", benchSession+":", "sh", "-c", command)
	if err != nil {
		b.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// command runs one command line over the control client.
func (t *tmuxSide) command(line string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return t.ctl.Command(ctx, line)
}

// waitCapture polls capture-pane until the pane's screen contains text
// (setup only).
func (t *tmuxSide) waitCapture(b testing.TB, pane, text string) {
	b.Helper()
	deadline := time.Now().Add(setupTimeout)
	for {
		out, err := t.s.Command("capture-pane", "-p", "-t", pane)
		if err != nil {
			b.Fatal(err)
		}
		if strings.Contains(out, text) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("tmux pane %s does not show %q within %v; it shows:\n%s", pane, text, setupTimeout, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// paneLog records the output tmux pushes to a control client, per pane,
// with the time each piece arrived.
type paneLog struct {
	mu      sync.Mutex
	panes   map[string]*paneOutput
	changed chan struct{} // closed and replaced on every add
}

// paneOutput is everything one pane printed: data, and for each piece the
// offset where it ends and when it arrived.
type paneOutput struct {
	data  []byte
	ends  []int
	times []time.Time
}

func newPaneLog() *paneLog {
	return &paneLog{panes: map[string]*paneOutput{}, changed: make(chan struct{})}
}

// add is the control client's Output callback.
func (l *paneLog) add(pane string, data []byte, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.panes[pane]
	if p == nil {
		p = &paneOutput{}
		l.panes[pane] = p
	}
	p.data = append(p.data, data...)
	p.ends = append(p.ends, len(p.data))
	p.times = append(p.times, at)
	close(l.changed)
	l.changed = make(chan struct{})
}

// waitLine waits until pane has printed a whole line (ended by "\n")
// containing text, and returns the line without its line ending and the
// time the piece that completed it arrived.
func (l *paneLog) waitLine(pane, text string, timeout time.Duration) (string, time.Time, error) {
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		if p := l.panes[pane]; p != nil {
			if i := bytes.Index(p.data, []byte(text)); i >= 0 {
				if j := bytes.IndexByte(p.data[i:], '\n'); j >= 0 {
					end := i + j + 1
					k, _ := slices.BinarySearch(p.ends, end)
					line := strings.TrimRight(string(p.data[i:i+j]), "\r")
					at := p.times[k]
					l.mu.Unlock()
					return line, at, nil
				}
			}
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return "", time.Time{}, fmt.Errorf("tmux pane %s printed no line with %q within %v", pane, text, timeout)
		}
	}
}

// forget drops what pane printed.
func (l *paneLog) forget(pane string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.panes, pane)
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile returns the p-th percentile (0..100) of xs by the nearest-rank
// method; xs must not be empty.
func percentile(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// timeProcess runs cmd with its output in out and returns how long it took
// from start to exit.
func timeProcess(cmd *exec.Cmd, out *bytes.Buffer) (time.Duration, error) {
	out.Reset()
	cmd.Stdout = out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return d, nil
}

// shQuote quotes s for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
