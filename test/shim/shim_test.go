//go:build linux

package shim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// pollTimeout bounds how long a state may take to appear on a loaded
// machine; no test asserts speed.
const pollTimeout = 60 * time.Second

// binDir holds paneflow, paneflow-shim and paneflow-ai-hook, built once.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pf-shim-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	if err := servetest.Build(dir, raceEnabled,
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui"},
		servetest.Binary{Pkg: "cmd/paneflow-shim"},
		servetest.Binary{Pkg: "cmd/paneflow-ai-hook"},
	); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fakeCodex behaves like Codex with hooks enabled, as far as Paneflow can
// tell: it runs the UserPromptSubmit hook given to it with -c (as the
// launch shim gives Codex its hooks) with a Codex payload, keeps a copy of
// its arguments, then waits for $OUT/go and exits with the code written
// there.
const fakeCodex = `#!/bin/sh
printf '%s\n' "$@" > "$OUT/args-during"
cmd=$(printf '%s\n' "$@" | sed -n 's/^hooks\.UserPromptSubmit=.*command="\([^"]*\)".*/\1/p')
if [ -n "$cmd" ]; then
	echo '{"session_id":"s1","turn_id":"t1","hook_event_name":"UserPromptSubmit","prompt":"hi"}' | sh -c "$cmd"
fi
echo "$PANEFLOW_AI_TOOL $PANEFLOW_AI_PID" > "$OUT/env"
while [ ! -e "$OUT/go" ]; do sleep 0.05; done
exit $(cat "$OUT/go")
`

type env struct {
	t              *testing.T
	dir, sock, out string
	project, vars  string
	environ        []string
}

func start(t *testing.T) *env {
	dir := servetest.TempDir(t, "pfs-")
	e := &env{t: t, dir: dir, sock: filepath.Join(dir, "pf.sock"), out: filepath.Join(dir, "out"),
		project: filepath.Join(dir, "project")}
	fake := filepath.Join(dir, "fake")
	for _, d := range []string{e.out, e.project, fake} {
		os.MkdirAll(d, 0o755)
	}
	if err := os.WriteFile(filepath.Join(fake, "codex"), []byte(fakeCodex), 0o755); err != nil {
		t.Fatal(err)
	}
	// The second PATH wins: os/exec keeps the last of duplicate keys.
	e.environ = append(servetest.Env(dir), "PATH="+fake+":"+os.Getenv("PATH"), "PANEFLOW_SOCKET_PATH="+e.sock)
	servetest.Start(t, servetest.Config{Bin: filepath.Join(binDir, "paneflow"), Sock: e.sock, Dir: dir, Env: e.environ})
	return e
}

// cli runs a paneflow verb against the server and returns its stdout.
func (e *env) cli(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(binDir, "paneflow"), args...)
	cmd.Env, cmd.Dir = e.environ, e.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("paneflow %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// waitFor polls cond until it holds, failing the test after pollTimeout.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// codexRow returns the fleet row of the codex agent, if any.
func (e *env) codexRow() (map[string]any, bool) {
	out, err := e.cli("ps", "--json")
	if err != nil {
		return nil, false
	}
	var fl struct {
		Agents []map[string]any `json:"agents"`
	}
	if json.Unmarshal([]byte(out), &fl) != nil {
		return nil, false
	}
	for _, a := range fl.Agents {
		if a["tool"] == "codex" {
			return a, true
		}
	}
	return nil, false
}

func TestCodexThroughShim(t *testing.T) {
	e := start(t)
	script := fmt.Sprintf("cd %s && codex; echo $? > %s/exit; sleep 600", e.project, e.out)
	if _, err := e.cli("new", "--command", script, "--env", "OUT="+e.out); err != nil {
		t.Fatal(err)
	}
	// Its whole line (waitFile), not only the file: the shell creates
	// the file before echo writes to it (CI read it empty once).
	data := e.waitFile("env")

	// The shim started it: the agent got its tool and the shim's pid, and
	// the hooks were in the project while it ran.
	fields := strings.Fields(string(data))
	if len(fields) != 2 || fields[0] != "codex" {
		t.Fatalf("the agent saw PANEFLOW_AI_TOOL/PID %q; want codex and a pid", data)
	}
	during, _ := os.ReadFile(filepath.Join(e.out, "args-during"))
	if !strings.Contains(string(during), "paneflow-ai-hook Stop") || !strings.Contains(string(during), "hooks.state=") {
		t.Errorf("codex's arguments during the run (want -c hooks and their trust):\n%s", during)
	}

	// The conductor knows a hooked, thinking codex keyed by the shim's pid.
	var row map[string]any
	e.waitFor("a hooked thinking codex in ps", func() bool {
		r, ok := e.codexRow()
		row = r
		return ok && r["hooked"] == true && r["state"] == "thinking"
	})
	if fmt.Sprint(row["pid"]) != fields[1] {
		t.Errorf("ps pid %v; want the shim's pid %s", row["pid"], fields[1])
	}

	// The agent exits with 5: the shell sees 5, the session ends errored,
	// and the hooks are gone.
	os.WriteFile(filepath.Join(e.out, "go"), []byte("5"), 0o644)
	if got := e.waitFile("exit"); strings.TrimSpace(got) != "5" {
		t.Errorf("the shell saw exit status %q; want 5", got)
	}
	e.waitFor("codex errored in ps", func() bool {
		r, ok := e.codexRow()
		return ok && r["state"] == "errored" && fmt.Sprint(r["exit_code"]) == "5"
	})
	if _, err := os.Stat(filepath.Join(e.project, ".codex")); err == nil {
		t.Error(".codex still in the project after codex exited")
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".codex", "config.toml")); err == nil {
		t.Error("~/.codex/config.toml left after codex exited (it did not exist before)")
	}
}

func TestCodexOutsidePaneflow(t *testing.T) {
	e := start(t)
	shimDir := ""
	e.waitFor("the shim directory", func() bool {
		m, _ := filepath.Glob(filepath.Join(e.dir, "cache", "paneflow", "bin", "*", "codex"))
		if len(m) == 1 {
			shimDir = filepath.Dir(m[0])
		}
		return shimDir != ""
	})
	// Run through the shim with no pane: it execs the real binary untouched.
	os.WriteFile(filepath.Join(e.out, "go"), []byte("7"), 0o644)
	cmd := exec.Command(filepath.Join(shimDir, "codex"))
	cmd.Dir = e.project
	cmd.Env = []string{"PATH=" + shimDir + ":" + filepath.Join(e.dir, "fake") + ":/usr/bin:/bin", "OUT=" + e.out, "HOME=" + e.dir}
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("codex outside a pane: %v; want exit status 7", err)
	}
	if data, _ := os.ReadFile(filepath.Join(e.out, "env")); strings.TrimSpace(string(data)) != "" {
		t.Errorf("outside a pane the agent saw PANEFLOW_AI_TOOL/PID %q; want none", data)
	}
}
