//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// Generous bounds for a loaded 2-core machine running race-built binaries.
// They only bound how long a broken build takes to fail; no test asserts
// that anything is fast.
const (
	stopTimeout = servetest.StopTimeout // SIGTERM until exit
	cliTimeout  = 120 * time.Second     // one CLI run
	pollTimeout = 30 * time.Second      // output or state to appear
)

// bin is the paneflow binary built once for the whole package (with -race
// when the tests themselves run with it), as installed: the command-line
// client (tags nogui and client), with the full headless program next to
// it as paneflow-server, to which `paneflow serve` hands over. Every test
// thus goes through that hand-over and the client build.
var bin string

// serverBin is the full headless program (tag nogui), next to bin.
var serverBin string

// hookBin is the paneflow-ai-hook binary, built next to bin.
var hookBin string

// mcpBin is the paneflow-mcp bridge, built next to bin.
var mcpBin string

func TestMain(m *testing.M) {
	if os.Getenv(fakeAgentEnv) != "" {
		os.Exit(fakeAgentMain(os.Args[1:]))
	}
	if sock := os.Getenv(rawClientEnv); sock != "" {
		os.Exit(rawClientMain(sock))
	}
	if sock := os.Getenv(rawListenerEnv); sock != "" {
		os.Exit(rawListenerMain(sock))
	}
	dir, err := os.MkdirTemp("", "paneflow-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "paneflow")
	serverBin = filepath.Join(dir, "paneflow-server")
	hookBin = filepath.Join(dir, "paneflow-ai-hook")
	mcpBin = filepath.Join(dir, "paneflow-mcp")
	if err := servetest.Build(dir, raceEnabled,
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui,client"},
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui", Out: "paneflow-server"},
		servetest.Binary{Pkg: "cmd/paneflow-ai-hook"},
		servetest.Binary{Pkg: "cmd/paneflow-mcp"},
	); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// rawClientEnv, when set to a socket path, makes the test binary a raw
// client instead (see rawClientMain): tests run it as another user.
const rawClientEnv = "PANEFLOW_E2E_RAW_CLIENT"

// rawClientMain sends one system.ping to sock and prints the first line
// the server answers, exactly as received.
func rawClientMain(sock string) int {
	c, err := net.DialTimeout("unix", sock, 30*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawclient:", err)
		return 1
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"system.ping"}` + "\n")) // may fail: the server may close first
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawclient: reading:", err)
		return 1
	}
	fmt.Print(line)
	return 0
}

// rawListenerEnv, when set to a socket path, makes the test binary a
// squatter instead (see rawListenerMain): tests run it as another user.
const rawListenerEnv = "PANEFLOW_E2E_RAW_LISTENER"

// rawListenerMain listens on sock (mode 0666), prints "listening", then
// for each connection "accepted" and every chunk it reads as "got %q",
// until stdin closes.
func rawListenerMain(sock string) int {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawlistener:", err)
		return 1
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		fmt.Fprintln(os.Stderr, "rawlistener:", err)
		return 1
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	say("listening")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			say("accepted")
			go func() {
				defer c.Close()
				b := make([]byte, 4096)
				for {
					n, err := c.Read(b)
					if n > 0 {
						say("got %q", b[:n])
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	io.Copy(io.Discard, os.Stdin)
	ln.Close()
	return 0
}

// server is a running `paneflow serve`.
type server struct {
	t      testing.TB
	sock   string
	dir    string // the server's working directory and HOME; the CLI runs here too
	proc   *proctest.Process
	stderr *proctest.Buffer
	env    []string
}

// baseEnv is the environment every process of a test gets: an isolated
// XDG tree, a UTF-8 locale and a plain shell.
func baseEnv(dir string) []string { return servetest.Env(dir) }

// tempDir returns a fresh short-pathed directory, removed when the test
// ends (see servetest.TempDir).
func tempDir(t testing.TB) string {
	t.Helper()
	return servetest.TempDir(t, "pf-")
}

// startServer runs `paneflow serve` on a socket in a fresh temp dir. extra
// adds environment variables (e.g. PANEFLOW_IPC_SCRIPTING=1).
func startServer(t testing.TB, extra ...string) *server {
	t.Helper()
	dir := tempDir(t)
	return startServerAt(t, dir, filepath.Join(dir, "pf.sock"), extra...)
}

// startServerAt runs `paneflow serve --socket sock` with dir as its
// working directory and HOME, and waits until the socket answers
// system.ping. When the test fails, the server's output is logged.
func startServerAt(t testing.TB, dir, sock string, extra ...string) *server {
	t.Helper()
	s := &server{t: t, dir: dir, sock: sock}
	s.env = append(baseEnv(dir), extra...)
	srv := servetest.Start(t, servetest.Config{Bin: bin, Sock: sock, Dir: dir, Env: s.env})
	s.proc, s.stderr = srv.Proc, srv.Output
	return s
}

// pid is the server's process id.
func (s *server) pid() int { return s.proc.Pid() }

// terminate sends SIGTERM and returns the process's exit error (nil for a
// clean exit 0). It fails the test if the server does not exit in time.
func (s *server) terminate() error {
	s.t.Helper()
	return s.proc.TerminateOrFail(s.t, "paneflow serve", stopTimeout)
}

// stop ends the process if it still runs, checking it exits cleanly.
func (s *server) stop() { s.proc.StopOrFail(s.t, "paneflow serve", stopTimeout) }

// result is one CLI run.
type result struct {
	prog           string // "" means paneflow
	args           []string
	stdout, stderr string
	code           int
}

// String describes the run for failure messages.
func (r result) String() string {
	prog := r.prog
	if prog == "" {
		prog = "paneflow"
	}
	return fmt.Sprintf("`%s %s` exited %d\n  stdout:\n%s\n  stderr:\n%s",
		prog, strings.Join(quoteArgs(r.args), " "), r.code, proctest.Indent(r.stdout), proctest.Indent(r.stderr))
}

// quoteArgs quotes arguments that need it, for readable messages.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"$;|&<>*?()\\") {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return out
}

// runCLI runs the paneflow binary with env in dir.
func runCLI(t testing.TB, env []string, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("paneflow %s did not finish within %v\n  stdout:\n%s\n  stderr:\n%s",
			strings.Join(quoteArgs(args), " "), cliTimeout, proctest.Indent(r.stdout), proctest.Indent(r.stderr))
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("paneflow %s: %v", strings.Join(quoteArgs(args), " "), err)
	}
	return r
}

// clientEnv is the environment of a CLI run against s.
func (s *server) clientEnv() []string {
	return append(append([]string{}, s.env...), "PANEFLOW_SOCKET_PATH="+s.sock)
}

// cli runs the paneflow CLI against s, in s.dir.
func (s *server) cli(args ...string) result {
	s.t.Helper()
	return runCLI(s.t, s.clientEnv(), s.dir, args...)
}

// mustCLI runs the CLI and fails the test unless it exits 0; it decodes
// stdout as JSON into v when v is not nil.
func (s *server) mustCLI(v any, args ...string) result {
	s.t.Helper()
	r := s.cli(args...)
	if r.code != 0 {
		s.t.Fatalf("want exit 0:\n%s", r)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
			s.t.Fatalf("output is not the expected JSON (%v):\n%s", err, r)
		}
	}
	return r
}

// wantCode runs the CLI and fails the test unless it exits with code and
// stderr contains every one of substrs.
func (s *server) wantCode(code int, substrs []string, args ...string) result {
	s.t.Helper()
	r := s.cli(args...)
	if r.code != code {
		s.t.Errorf("got exit %d, want %d:\n%s", r.code, code, r)
		return r
	}
	for _, sub := range substrs {
		if !strings.Contains(r.stderr, sub) {
			s.t.Errorf("stderr does not contain %q:\n%s", sub, r)
		}
	}
	return r
}

// tryRPC sends one raw JSON-RPC line on a fresh connection to sock and
// returns the reply line.
func tryRPC(sock, line string) (string, error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(reply), nil
}

// rpc sends one raw JSON-RPC line on a fresh connection and returns the
// reply line.
func (s *server) rpc(line string) string {
	s.t.Helper()
	reply, err := tryRPC(s.sock, line)
	if err != nil {
		s.t.Fatalf("raw request %s: %v", line, err)
	}
	return reply
}

// frame is a decoded JSON-RPC reply or stream frame.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Type string `json:"type"` // stream frames
	raw  string
}

// parseFrame decodes one line.
func parseFrame(t testing.TB, line string) frame {
	t.Helper()
	var f frame
	if err := json.Unmarshal([]byte(line), &f); err != nil {
		t.Fatalf("frame is not JSON (%v): %q", err, line)
	}
	f.raw = line
	return f
}

// rawConn is a raw client connection for wire-level tests.
type rawConn struct {
	t  testing.TB
	c  net.Conn
	br *bufio.Reader
}

// dial opens a raw connection to s.
func (s *server) dial() *rawConn {
	s.t.Helper()
	c, err := net.Dial("unix", s.sock)
	if err != nil {
		s.t.Fatalf("dial %s: %v", s.sock, err)
	}
	s.t.Cleanup(func() { c.Close() })
	return &rawConn{t: s.t, c: c, br: bufio.NewReaderSize(c, 1<<20)}
}

// send writes line and a newline.
func (r *rawConn) send(line string) {
	r.t.Helper()
	r.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := r.c.Write([]byte(line + "\n")); err != nil {
		r.t.Fatalf("writing %q: %v", line, err)
	}
}

// recv reads one line and decodes it.
func (r *rawConn) recv() frame {
	r.t.Helper()
	line, err := r.recvLine()
	if err != nil {
		r.t.Fatalf("reading a frame: %v", err)
	}
	return parseFrame(r.t, line)
}

// recvLine reads one line with a generous deadline.
func (r *rawConn) recvLine() (string, error) {
	r.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := r.br.ReadString('\n')
	if err != nil {
		return line, err
	}
	return strings.TrimSpace(line), nil
}

// wantEOF checks the server closed the connection.
func (r *rawConn) wantEOF() {
	r.t.Helper()
	line, err := r.recvLine()
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		r.t.Errorf("got %q, %v; want the server to close the connection (EOF)", line, err)
	}
}

// surface is one row of `paneflow ls`.
type surface struct {
	ID        uint64  `json:"surface_id"`
	Name      string  `json:"name"`
	Title     string  `json:"title"`
	Cwd       *string `json:"cwd"`
	Cmd       *string `json:"cmd"`
	Workspace int     `json:"workspace"`
	Exited    bool    `json:"exited"`
	ExitCode  *int    `json:"exit_code"`
}

// listing is `paneflow ls`'s output.
type listing struct {
	PaneCount int       `json:"pane_count"`
	Workspace int       `json:"workspace"`
	Surfaces  []surface `json:"surfaces"`
}

// ls runs `paneflow ls`.
func (s *server) ls() listing {
	s.t.Helper()
	var l listing
	s.mustCLI(&l, "ls")
	return l
}

// surface returns the ls row of pane id.
func (s *server) surface(id uint64) (surface, bool) {
	s.t.Helper()
	for _, x := range s.ls().Surfaces {
		if x.ID == id {
			return x, true
		}
	}
	return surface{}, false
}

// split runs `paneflow split` with args and returns the new pane's id.
func (s *server) split(args ...string) uint64 {
	s.t.Helper()
	var res struct {
		Split     bool   `json:"split"`
		SurfaceID uint64 `json:"surface_id"`
		Panes     int    `json:"panes"`
	}
	s.mustCLI(&res, append([]string{"split"}, args...)...)
	if !res.Split || res.SurfaceID == 0 {
		s.t.Fatalf("split %q: got %+v, want split:true and a surface_id", args, res)
	}
	return res.SurfaceID
}

// command starts a pane running shell command line cmd (next to the active
// workspace's first pane) and returns its id. Extra args go to split.
func (s *server) command(cmd string, args ...string) uint64 {
	s.t.Helper()
	return s.split(append([]string{"v", "--command", cmd}, args...)...)
}

// readRaw returns the unfenced text of a pane's newest 4000 rows.
func (s *server) readRaw(target string) string {
	s.t.Helper()
	return s.mustCLI(nil, "read", target, "--raw", "--lines", "4000").stdout
}

// eventually polls cond until it reports true, failing the test with the
// last state it described after pollTimeout.
func (s *server) eventually(what string, cond func() (bool, string)) {
	s.t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("gave up after %v waiting for %s; last state:\n%s", pollTimeout, what, proctest.Indent(state))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitOutput polls `read --raw` until the pane's text matches re and
// returns the first submatch (or the whole match).
func (s *server) waitOutput(target, re string) string {
	s.t.Helper()
	rx := regexp.MustCompile(re)
	var got string
	s.eventually(fmt.Sprintf("pane %s to show /%s/", target, re), func() (bool, string) {
		text := s.readRaw(target)
		m := rx.FindStringSubmatch(text)
		if m == nil {
			return false, text
		}
		got = m[len(m)-1]
		return true, ""
	})
	return got
}

// panePID starts a pane whose process prints its pid and then stays
// alive, and returns the pane's id and the pid.
func (s *server) panePID(args ...string) (uint64, int) {
	s.t.Helper()
	id := s.command("echo PID=$$; exec sleep 1000", args...)
	pid, err := strconv.Atoi(s.waitOutput(strconv.FormatUint(id, 10), `PID=(\d+)`))
	if err != nil {
		s.t.Fatal(err)
	}
	return id, pid
}

// processGone reports whether pid no longer runs: no /proc entry, or a
// zombie waiting for its parent.
func processGone(pid int) (bool, string) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true, ""
	}
	// Fields after the parenthesized command: state first.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'Z' {
		return true, ""
	}
	return false, s
}

// fdCount is the number of open file descriptors of pid.
func fdCount(t testing.TB, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("counting fds of %d: %v", pid, err)
	}
	return len(ents)
}

// socketFDs counts the sockets process pid has open (0 when it cannot be
// read, e.g. the process is gone).
func socketFDs(pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// id formats a surface id as a CLI target.
func id(n uint64) string { return strconv.FormatUint(n, 10) }

// watcher is a `paneflow watch` running in the background.
type watcher struct {
	s      *server
	cmd    *exec.Cmd
	frames chan string
	stderr *proctest.Buffer
	done   chan struct{}
	err    error
}

// startWatch starts `paneflow watch` with args against s. It is killed when
// the test ends if it is still running.
func (s *server) startWatch(args ...string) *watcher {
	s.t.Helper()
	w := &watcher{s: s, frames: make(chan string, 1024), stderr: new(proctest.Buffer), done: make(chan struct{})}
	w.cmd = exec.Command(bin, append([]string{"watch"}, args...)...)
	w.cmd.Env = s.clientEnv()
	w.cmd.Dir = s.dir
	w.cmd.Stderr = w.stderr
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			w.frames <- sc.Text()
		}
		close(w.frames)
		w.err = w.cmd.Wait()
		close(w.done)
	}()
	s.t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			w.cmd.Process.Kill()
			<-w.done
		}
	})
	return w
}

// next returns the next frame printed, failing the test if none comes
// within pollTimeout or watch ends.
func (w *watcher) next() map[string]any {
	w.s.t.Helper()
	select {
	case line, ok := <-w.frames:
		if !ok {
			<-w.done
			w.s.t.Fatalf("watch ended (%v) before the expected frame; stderr:\n%s", w.err, proctest.Indent(w.stderr.String()))
		}
		var f map[string]any
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			w.s.t.Fatalf("watch printed a line that is not a JSON object (%v): %q", err, line)
		}
		return f
	case <-time.After(pollTimeout):
		w.s.t.Fatalf("watch printed nothing for %v; stderr:\n%s", pollTimeout, proctest.Indent(w.stderr.String()))
	}
	return nil
}

// interrupt sends SIGINT (Ctrl-C) and checks watch exits 0.
func (w *watcher) interrupt() {
	w.s.t.Helper()
	w.cmd.Process.Signal(os.Interrupt)
	w.wantExit(0)
}

// wantExit waits for watch to end by itself and checks its exit code.
func (w *watcher) wantExit(code int) {
	w.s.t.Helper()
	go func() {
		for range w.frames { // drain, so the reader goroutine can finish
		}
	}()
	select {
	case <-w.done:
	case <-time.After(stopTimeout):
		w.cmd.Process.Kill()
		<-w.done
		w.s.t.Errorf("watch did not exit within %v", stopTimeout)
		return
	}
	got := 0
	var ee *exec.ExitError
	if errors.As(w.err, &ee) {
		got = ee.ExitCode()
	} else if w.err != nil {
		got = -1
	}
	if got != code {
		w.s.t.Errorf("watch exited %d (%v), want %d; stderr:\n%s", got, w.err, code, proctest.Indent(w.stderr.String()))
	}
}
