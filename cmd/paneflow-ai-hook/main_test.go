package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
)

// hangDeadline is when a hook run that has not exited is killed and
// reported as hung: shortly before the test binary's own -timeout, so
// that no run is ever failed for being slow (a 20 MiB stdin under -race
// takes 5 s on an idle machine and took 12 s under load, which a fixed
// 20 s guard came close to). Zero (-timeout 0) means never. No test
// asserts speed; the benchmarks report it.
var hangDeadline time.Time

// setHangDeadline sets hangDeadline from -test.timeout, leaving a margin
// for the report.
func setHangDeadline(start time.Time) {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return
	}
	d, ok := f.Value.(flag.Getter).Get().(time.Duration)
	if !ok || d <= 0 {
		return
	}
	hangDeadline = start.Add(d - min(d/10, 30*time.Second))
}

// untilHang returns a channel that fires at hangDeadline, or never.
func untilHang() <-chan time.Time {
	if hangDeadline.IsZero() {
		return nil
	}
	return time.After(time.Until(hangDeadline))
}

// hookBin is the paneflow-ai-hook binary built once for the package (with
// -race when the tests run with it).
var hookBin string

func TestMain(m *testing.M) {
	start := time.Now()
	flag.Parse()
	setHangDeadline(start)
	dir, err := os.MkdirTemp("", "paneflow-ai-hook-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hookBin = filepath.Join(dir, "paneflow-ai-hook")
	if runtime.GOOS == "windows" {
		hookBin += ".exe"
	}
	args := []string{"build", "-o", hookBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/paneflow-go/paneflow/cmd/paneflow-ai-hook")
	cmd := exec.Command(goTool(), args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building paneflow-ai-hook:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool returns the go command, from PATH or the toolchain running us.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// frame is one ai.* notification a test server received.
type frame struct {
	Method string
	Params map[string]any
}

// recorder starts an ipctest server that records every ai.* frame.
func recorder(t testing.TB, s *ipc.Server) (*ipc.Server, chan frame) {
	frames := make(chan frame, 64)
	reg := ipc.NewRegistry()
	for _, m := range []string{hook.MethodSessionStart, hook.MethodPromptSubmit, hook.MethodToolUse,
		hook.MethodNotification, hook.MethodStop, hook.MethodExit, hook.MethodSessionEnd} {
		reg.Register(m, func(_ context.Context, raw json.RawMessage) (any, error) {
			var p map[string]any
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, err
			}
			select {
			case frames <- frame{m, p}:
			default:
			}
			return map[string]bool{"ok": true}, nil
		})
	}
	reg.RegisterStream("test.hold", func(ctx context.Context, _ json.RawMessage, w ipc.FrameWriter) error {
		if err := w.WriteFrame(map[string]bool{"held": true}); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
	if s == nil {
		s = &ipc.Server{}
	}
	s.Registry = reg
	return ipctest.StartServer(t, s), frames
}

// hookRun is one run of the hook binary.
type hookRun struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// runHook runs the binary with args, the given environment (and nothing
// else of ours) and stdin, failing the test if it cannot run.
func runHook(t testing.TB, env map[string]string, stdin io.Reader, args ...string) hookRun {
	t.Helper()
	r, err := execHook(env, stdin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// execHook is runHook for any goroutine: it returns its failure.
func execHook(env map[string]string, stdin io.Reader, args ...string) (hookRun, error) {
	cmd := exec.Command(hookBin, args...)
	cmd.Env = []string{}
	for _, k := range []string{"SYSTEMROOT", "TMPDIR", "PATH"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	if raceEnabled {
		// The race runtime sleeps 1 s at exit by default, which was most
		// of every run's time; a race is still reported when it happens.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return hookRun{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-untilHang():
		cmd.Process.Kill()
		<-done
		return hookRun{}, fmt.Errorf("paneflow-ai-hook %q hung; killed after %v, at the test binary's deadline", args, time.Since(start).Round(time.Second))
	}
	r := hookRun{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return r, fmt.Errorf("paneflow-ai-hook %q: %v", args, err)
	}
	return r, nil
}

// check fails unless the run exited 0 and printed nothing. A hook that
// hangs is caught by runHook, which kills it at hangDeadline; how long a
// run took is not asserted (a 20 MiB stdin under -race on a loaded
// machine took 12 s once, which is no hang).
func (r hookRun) check(t testing.TB) {
	t.Helper()
	if r.code != exitOK {
		t.Errorf("exit code = %d, want %d", r.code, exitOK)
	}
	if r.stdout != "" || r.stderr != "" {
		t.Errorf("output: stdout %q, stderr %q; want none", r.stdout, r.stderr)
	}
}

// paneEnv is a pane's environment for a server at sock.
func paneEnv(sock string, kv ...string) map[string]string {
	m := map[string]string{hook.EnvSocketPath: sock, hook.EnvSurfaceID: "7", hook.EnvWorkspaceID: "2"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "hook", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// neverClosed returns a stdin that holds data and then never ends.
func neverClosed(t *testing.T, data string) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	go w.Write([]byte(data))
	return r
}

func waitFrame(t *testing.T, frames chan frame) frame {
	t.Helper()
	select {
	case f := <-frames:
		return f
	case <-untilHang():
		t.Fatal("no frame reached the server by the test binary's deadline")
		return frame{}
	}
}

func TestDelivers(t *testing.T) {
	s, frames := recorder(t, nil)
	tests := []struct {
		name       string
		args       []string
		env        []string // extra environment, as key, value pairs
		stdin      func(t *testing.T) io.Reader
		wantMethod string
		want       map[string]any
	}{
		{name: "claude PreToolUse", args: []string{"PreToolUse"},
			stdin:      func(t *testing.T) io.Reader { return bytes.NewReader(sample(t, "claude/PreToolUse")) },
			wantMethod: hook.MethodToolUse,
			want: map[string]any{"tool": "claude", "tool_name": "Bash", "surface_id": 7.0, "workspace_id": 2.0,
				"session_id": "5f3c2a9e-1b7d-4c2e-9a61-0d8e4f2b7c11"}},
		{name: "claude Notification", args: []string{"Notification"},
			stdin: func(t *testing.T) io.Reader {
				return bytes.NewReader(sample(t, "claude/Notification.permission_prompt"))
			},
			wantMethod: hook.MethodNotification,
			want:       map[string]any{"message": "Claude needs your permission to use Bash", "notification_type": "permission_prompt"}},
		{name: "gemini Stop through the shim", args: []string{"Stop"}, env: []string{hook.EnvTool, "gemini", hook.EnvPID, "6161"},
			stdin:      func(t *testing.T) io.Reader { return bytes.NewReader(sample(t, "gemini/AfterAgent")) },
			wantMethod: hook.MethodStop,
			want:       map[string]any{"tool": "gemini", "pid": 6161.0, "last_result": "There are 4 TODOs in checkout/: two about currency rounding, one about retries, one about logging."}},
		{name: "shim Exit does not read stdin", args: []string{"Exit"},
			env:        []string{hook.EnvTool, "codex", hook.EnvPID, "5151", hook.EnvExitCode, "2"},
			stdin:      func(t *testing.T) io.Reader { return neverClosed(t, "") },
			wantMethod: hook.MethodExit, want: map[string]any{"exit_code": 2.0, "tool": "codex", "pid": 5151.0}},
		{name: "shim SessionEnd does not read stdin", args: []string{"SessionEnd"}, env: []string{hook.EnvTool, "codex", hook.EnvPID, "5151"},
			stdin:      func(t *testing.T) io.Reader { return neverClosed(t, "") },
			wantMethod: hook.MethodSessionEnd, want: map[string]any{"pid": 5151.0}},
		{name: "codex notify in argv", args: []string{"codex-notify", string(sample(t, "codex/notify"))},
			stdin:      func(t *testing.T) io.Reader { return neverClosed(t, "") },
			wantMethod: hook.MethodStop,
			want:       map[string]any{"tool": "codex", "last_result": "Rename complete: 14 occurrences in 5 files; go build ./... is clean."}},
		{name: "20 MiB stdin is cut and still reported", args: []string{"PostToolUse"},
			stdin: func(t *testing.T) io.Reader {
				return io.MultiReader(strings.NewReader(`{"tool_name":"Write","tool_input":{"content":"`),
					strings.NewReader(strings.Repeat("x", 20<<20)), strings.NewReader(`"}}`))
			},
			wantMethod: hook.MethodToolUse, want: map[string]any{"tool_name": "Write"}},
		{name: "stdin is the null device", args: []string{"UserPromptSubmit"},
			stdin: func(t *testing.T) io.Reader {
				f, err := os.Open(os.DevNull)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				return f
			},
			wantMethod: hook.MethodPromptSubmit, want: map[string]any{"tool": "claude", "surface_id": 7.0}},
		{name: "stdin that never ends", args: []string{"PreToolUse"},
			stdin:      func(t *testing.T) io.Reader { return neverClosed(t, `{"session_id":"s9","tool_name":"Grep",`) },
			wantMethod: hook.MethodToolUse, want: map[string]any{"tool_name": "Grep", "session_id": "s9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runHook(t, paneEnv(s.Path, tt.env...), tt.stdin(t), tt.args...)
			r.check(t)
			f := waitFrame(t, frames)
			if f.Method != tt.wantMethod {
				t.Fatalf("method = %q, want %q (params %v)", f.Method, tt.wantMethod, f.Params)
			}
			for k, want := range tt.want {
				if got := f.Params[k]; got != want {
					t.Errorf("params[%q] = %#v, want %#v", k, got, want)
				}
			}
			if _, ok := f.Params["hook_payload"]; ok {
				t.Errorf("frame carries the whole hook_payload; want only the fields the server uses")
			}
		})
	}
}

// TestAlwaysExitsZero runs the hook where nothing can be delivered, or the
// input is unusable: it must exit 0, print nothing and not hang.
func TestAlwaysExitsZero(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		env   map[string]string
		stdin string
		args  []string
	}{
		{"no socket variable", map[string]string{hook.EnvSurfaceID: "7"}, `{}`, []string{"Stop"}},
		{"relative socket path", paneEnv("paneflow.sock"), `{}`, []string{"Stop"}},
		{"no socket file", paneEnv(filepath.Join(dir, "gone.sock")), `{}`, []string{"Stop"}},
		{"socket path is a regular file", paneEnv(writeFile(t, dir, "plain")), `{}`, []string{"Stop"}},
		{"no arguments", paneEnv(filepath.Join(dir, "gone.sock")), `{}`, nil},
		{"garbage stdin", paneEnv(filepath.Join(dir, "gone.sock")), "\x00\x01garbage\xff", []string{"Stop"}},
		{"unknown event", paneEnv(filepath.Join(dir, "gone.sock")), `{}`, []string{"Frobnicate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runHook(t, tt.env, strings.NewReader(tt.stdin), tt.args...).check(t)
		})
	}
	t.Run("20 MiB stdin without a server", func(t *testing.T) {
		big := io.MultiReader(strings.NewReader(`{"x":"`), strings.NewReader(strings.Repeat("y", 20<<20)))
		runHook(t, paneEnv(filepath.Join(dir, "gone.sock")), big, "Stop").check(t)
	})
	t.Run("garbage stdin with a server", func(t *testing.T) {
		s, frames := recorder(t, nil)
		runHook(t, paneEnv(s.Path), strings.NewReader("not json"), "Stop").check(t)
		select {
		case f := <-frames:
			t.Errorf("garbage produced a frame %v", f)
		case <-time.After(100 * time.Millisecond):
		}
	})
	t.Run("flooded server", func(t *testing.T) {
		// Every stream and call slot the server has is taken: a hook
		// frame is still admitted (issue 25: sixteen bridges used to make
		// hooks lose their frames).
		s, frames := recorder(t, &ipc.Server{MaxStreams: 2, MaxCalls: 1})
		for range 2 {
			st, err := ipctest.Client(s).Subscribe(context.Background(), "test.hold", nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
		}
		var busy *ipc.Error
		if st, err := ipctest.Client(s).Subscribe(context.Background(), "test.hold", nil); !errors.As(err, &busy) || busy.Code != ipc.CodeBusy {
			if st != nil {
				st.Close()
			}
			t.Fatalf("a third stream: %v, want the server busy (MaxStreams 2)", err)
		}
		runHook(t, paneEnv(s.Path), bytes.NewReader(sample(t, "claude/Stop")), "Stop").check(t)
		select {
		case f := <-frames:
			if f.Method != hook.MethodStop {
				t.Errorf("frame %s, want %s", f.Method, hook.MethodStop)
			}
		default:
			t.Errorf("the hook's frame did not reach a server whose streams are all taken")
		}
	})
	t.Run("many hooks at once", func(t *testing.T) {
		// None is refused for admission. On a loaded machine a hook can
		// still run out of its 550 ms budget before the server answers;
		// that is logged, never silent, and is not what this checks.
		s, frames := recorder(t, nil)
		const n = 24
		type result struct {
			r   hookRun
			err error
		}
		done := make(chan result, n)
		log := filepath.Join(t.TempDir(), "hook.log")
		for range n {
			go func() {
				r, err := execHook(paneEnv(s.Path, hook.EnvLog, log), strings.NewReader(`{"tool_name":"Read"}`), "PreToolUse")
				done <- result{r, err}
			}()
		}
		for range n {
			res := <-done
			if res.err != nil {
				t.Fatal(res.err)
			}
			res.r.check(t)
		}
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		sent, late := 0, 0
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			switch {
			case strings.Contains(line, "PreToolUse: sent ai.tool_use"):
				sent++
			case strings.Contains(line, "not delivered") && (strings.Contains(line, "deadline exceeded") || strings.Contains(line, "did not respond")):
				late++
				t.Logf("out of time on this machine: %s", line)
			default:
				t.Errorf("log line %q: want sent, or out of time", line)
			}
		}
		if sent+late != n {
			t.Errorf("%d hooks logged sent and %d out of time, want %d lines in all", sent, late, n)
		}
		// A hook out of time may have written its frame before its
		// deadline and missed only the answer: the server then has it.
		// Every hook that says it sent must have arrived, and nothing else.
		if got := len(frames); got < sent || got > sent+late {
			t.Errorf("%d hook frames reached the server; %d hooks say they sent theirs and %d ran out of time", got, sent, late)
		}
		if a := s.Admission(); a.Hooks.Refused != 0 || a.Evicted != 0 {
			t.Errorf("server admission = %+v, want no hook refused and no connection evicted", a)
		}
	})
}

func writeFile(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunRecovers checks the in-process guard: even a panic becomes exit
// 0, and is logged when it can be.
func TestRunRecovers(t *testing.T) {
	log := filepath.Join(t.TempDir(), "hook.log")
	tests := []struct {
		name    string
		panicOn string // the variable whose lookup panics
		wantLog bool
	}{
		{"in the mapping", hook.EnvSurfaceID, true},
		{"in the logging too", hook.EnvLog, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(log)
			getenv := func(k string) string {
				switch k {
				case tt.panicOn:
					panic("boom")
				case hook.EnvSocketPath:
					return "/tmp/x.sock"
				case hook.EnvLog:
					return log
				}
				return ""
			}
			if code := run(context.Background(), []string{"Stop"}, strings.NewReader("{}"), getenv); code != exitOK {
				t.Errorf("run after a panic = %d, want %d", code, exitOK)
			}
			b, _ := os.ReadFile(log)
			if got := strings.Contains(string(b), "panic: boom"); got != tt.wantLog {
				t.Errorf("log %q mentions the panic: %v, want %v", b, got, tt.wantLog)
			}
		})
	}
}

func TestLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "hook.log")
	env := paneEnv(filepath.Join(t.TempDir(), "gone.sock"), hook.EnvLog, log)
	runHook(t, env, strings.NewReader(`{"tool_name":"Bash"}`), "PreToolUse").check(t)
	runHook(t, env, strings.NewReader(`{"notification_type":"idle_prompt"}`), "Notification").check(t)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "PreToolUse: ai.tool_use not delivered") ||
		!strings.Contains(lines[1], "Notification: nothing to send") {
		t.Errorf("log = %q, want one line per run saying what happened", lines)
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&ipc.UnreachableError{Path: "/s", Err: os.ErrNotExist}, false},
		{&ipc.TimeoutError{After: time.Second}, false},
		{context.DeadlineExceeded, false},
		{&ipc.Error{Code: ipc.CodeInvalidRequest, Message: "too long"}, false},
		{&ipc.Error{Code: ipc.CodeInvalidParams, Message: "surface_id 9 not found"}, false},
		{&ipc.Error{Code: ipc.CodeBusy, Message: "server busy: more than 512 connections waiting without a request; this one waited longest and was closed"}, true},
		{&ipc.UnreachableError{Path: "/s", Err: errors.New("resource temporarily unavailable")}, true},
	}
	for _, tt := range tests {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("retryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// BenchmarkHook measures the wall time of one hook run, process start to
// exit, delivering a Claude Stop frame to a live server.
func BenchmarkHook(b *testing.B) {
	s, frames := recorder(b, nil)
	payload := sample(b, "claude/Stop")
	env := paneEnv(s.Path)
	b.ResetTimer()
	for b.Loop() {
		r := runHook(b, env, bytes.NewReader(payload), "Stop")
		if r.code != exitOK {
			b.Fatalf("exit %d", r.code)
		}
		select {
		case <-frames:
		default:
		}
	}
}

// BenchmarkHookNoServer measures a run whose socket does not exist.
func BenchmarkHookNoServer(b *testing.B) {
	env := paneEnv(filepath.Join(b.TempDir(), "gone.sock"))
	for b.Loop() {
		runHook(b, env, strings.NewReader(`{"tool_name":"Bash"}`), "PreToolUse")
	}
}
