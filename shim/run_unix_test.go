//go:build !windows

package shim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
)

// frameLog records the ai.* frames a test server receives.
type frameLog struct {
	mu     sync.Mutex
	frames []recorded
}

type recorded struct {
	method string
	params map[string]any
}

func (l *frameLog) list() []recorded {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]recorded(nil), l.frames...)
}

// recorder serves the ai.* methods on a fresh socket; onFrame runs for
// each frame after it is recorded.
func recorder(t *testing.T, onFrame func(method string)) (string, *frameLog) {
	log := &frameLog{}
	reg := ipc.NewRegistry()
	for _, m := range []string{hook.MethodSessionStart, hook.MethodPromptSubmit, hook.MethodToolUse,
		hook.MethodNotification, hook.MethodStop, hook.MethodExit, hook.MethodSessionEnd} {
		reg.Register(m, func(_ context.Context, raw json.RawMessage) (any, error) {
			var p map[string]any
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, err
			}
			log.mu.Lock()
			log.frames = append(log.frames, recorded{m, p})
			log.mu.Unlock()
			if onFrame != nil {
				onFrame(m)
			}
			return map[string]bool{"ok": true}, nil
		})
	}
	s := ipctest.Start(t, reg)
	return s.Path, log
}

// paneProgram returns a shim run as `codex` inside a pane served at
// sock, with agentBody as the real codex (a shell script), and the
// directory the script may write its observations to.
func paneProgram(t *testing.T, sock, agentBody string) (Program, string) {
	t.Helper()
	root := t.TempDir()
	binDir := filepath.Join(root, "bin")
	self := writeExec(t, binDir, ShimBinary, "exit 99")
	os.Symlink(ShimBinary, filepath.Join(binDir, "codex"))
	writeExec(t, binDir, HookBinary, "exit 0")
	realDir := filepath.Join(root, "real")
	writeExec(t, realDir, "codex", agentBody)
	out := filepath.Join(root, "out")
	project := filepath.Join(root, "project")
	os.MkdirAll(out, 0o755)
	os.MkdirAll(project, 0o755)
	p := Program{
		Args: []string{filepath.Join(binDir, "codex"), "exec", "hi"},
		Environ: []string{
			"PATH=" + binDir + ":" + realDir + ":/usr/bin:/bin",
			"HOME=" + filepath.Join(root, "home"),
			hook.EnvSocketPath + "=" + sock, hook.EnvSurfaceID + "=7", hook.EnvWorkspaceID + "=3",
			EnvBinDir + "=" + binDir, EnvStateDir + "=" + filepath.Join(root, "state"),
			"OUT=" + out,
		},
		Executable: self,
		Dir:        project,
	}
	return p, out
}

func TestRunInPane(t *testing.T) {
	sock, log := recorder(t, nil)
	p, out := paneProgram(t, sock, `echo "$PANEFLOW_AI_TOOL $PANEFLOW_AI_PID" > "$OUT/env"
printf '%s\n' "$@" > "$OUT/args"
exit 3`)
	code, stderr := runProgram(t, p)
	if code != 3 {
		t.Fatalf("Run = %d (stderr %q); want the agent's 3", code, stderr)
	}
	pid := strconv.Itoa(os.Getpid())
	if got := strings.TrimSpace(readFile(t, filepath.Join(out, "env"))); got != "codex "+pid {
		t.Errorf("the agent saw %q; want its tool and the shim's pid", got)
	}
	// Codex's hooks come as -c overrides in front of its own arguments.
	args := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(out, "args"))), "\n")
	if want := append(CodexOverrides(filepath.Join(filepath.Dir(p.Executable), HookBinary), "linux"), "exec", "hi"); !slices.Equal(args, want) {
		t.Errorf("the agent's arguments = %q; want %q", args, want)
	}
	if exists(filepath.Join(p.Dir, ".codex")) {
		t.Error(".codex left after the run")
	}
	frames := log.list()
	var methods []string
	for _, f := range frames {
		methods = append(methods, f.method)
		if f.params["pid"] != float64(os.Getpid()) || f.params["tool"] != "codex" || f.params["surface_id"] != float64(7) {
			t.Errorf("%s params = %v; want pid %d, tool codex, surface_id 7", f.method, f.params, os.Getpid())
		}
	}
	want := []string{hook.MethodSessionStart, hook.MethodExit, hook.MethodSessionEnd}
	if strings.Join(methods, " ") != strings.Join(want, " ") {
		t.Fatalf("frames %v; want %v", methods, want)
	}
	if frames[1].params["exit_code"] != float64(3) {
		t.Errorf("ai.exit params = %v; want exit_code 3", frames[1].params)
	}
}

func TestRunSignalledAgent(t *testing.T) {
	sock, log := recorder(t, nil)
	p, _ := paneProgram(t, sock, `kill -TERM $$`)
	if code, stderr := runProgram(t, p); code != 128+15 {
		t.Fatalf("Run = %d (stderr %q); want 143", code, stderr)
	}
	frames := log.list()
	if len(frames) != 3 || frames[1].params["exit_code"] != float64(143) {
		t.Fatalf("frames %v; want ai.exit with 143 second", frames)
	}
}

func TestRunInterruptSendsStop(t *testing.T) {
	var once sync.Once
	// Set before the agent runs, read by the server's goroutine; the
	// socket between them is no synchronization the race detector sees.
	var stopped atomic.Pointer[string]
	sock, log := recorder(t, func(m string) {
		if m == hook.MethodStop {
			once.Do(func() { os.WriteFile(*stopped.Load(), nil, 0o644) })
		}
	})
	p, out := paneProgram(t, sock, `kill -INT $PPID
while [ ! -e "$OUT/stopped" ]; do sleep 0.05; done
exit 130`)
	stopped.Store(ptrTo(filepath.Join(out, "stopped")))
	if code, stderr := runProgram(t, p); code != 130 {
		t.Fatalf("Run = %d (stderr %q); want 130", code, stderr)
	}
	var methods []string
	for _, f := range log.list() {
		methods = append(methods, f.method)
	}
	want := []string{hook.MethodSessionStart, hook.MethodStop, hook.MethodExit, hook.MethodSessionEnd}
	if strings.Join(methods, " ") != strings.Join(want, " ") {
		t.Fatalf("frames %v; want %v", methods, want)
	}
}

func TestRunUnhookedTool(t *testing.T) {
	sock, log := recorder(t, nil)
	p, _ := paneProgram(t, sock, "exit 0")
	// Run as amp: no hooks, so no session start, only the exit.
	bin := filepath.Dir(p.Args[0])
	os.Symlink(ShimBinary, filepath.Join(bin, "amp"))
	os.Rename(filepath.Join(strings.Split(p.Environ[0], ":")[1], "codex"), filepath.Join(strings.Split(p.Environ[0], ":")[1], "amp"))
	p.Args = []string{filepath.Join(bin, "amp")}
	if code, stderr := runProgram(t, p); code != 0 {
		t.Fatalf("Run = %d (stderr %q)", code, stderr)
	}
	var methods []string
	for _, f := range log.list() {
		methods = append(methods, f.method)
	}
	if strings.Join(methods, " ") != hook.MethodExit+" "+hook.MethodSessionEnd {
		t.Fatalf("frames %v; want ai.exit, ai.session_end", methods)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestHookEndpoint: the shim takes the server's http-hook endpoint only
// when the server offers one on loopback; a server without the method (an
// older one), an error, or any other address gives command hooks.
func TestHookEndpoint(t *testing.T) {
	serve := func(res any, err error) string {
		reg := ipc.NewRegistry()
		if res != nil || err != nil {
			reg.Register(proto.MethodHooksEndpoint, func(context.Context, json.RawMessage) (any, error) { return res, err })
		}
		return ipctest.Start(t, reg).Path
	}
	good := proto.HooksEndpointResult{URL: "http://127.0.0.1:4567/hook", Token: "abc"}
	if url, token := hookEndpoint(serve(good, nil)); url != good.URL || token != good.Token {
		t.Errorf("offered: %q, %q", url, token)
	}
	for name, sock := range map[string]string{
		"older server":  serve(nil, nil),
		"error":         serve(nil, ipc.Errorf(ipc.CodeInternal, "no")),
		"not loopback":  serve(proto.HooksEndpointResult{URL: "http://10.0.0.1:4567/hook", Token: "abc"}, nil),
		"no secret":     serve(proto.HooksEndpointResult{URL: good.URL}, nil),
		"no server":     filepath.Join(t.TempDir(), "none.sock"),
		"not in a pane": "",
	} {
		if url, token := hookEndpoint(sock); url != "" || token != "" {
			t.Errorf("%s: %q, %q; want none", name, url, token)
		}
	}
}
