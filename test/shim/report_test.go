//go:build linux

package shim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeGemini stands for Gemini CLI behind the shim: it records the pid
// the shim gave it, waits for $OUT/go-agent and exits 0.
const fakeGemini = `#!/bin/sh
echo "$PANEFLOW_AI_PID" > "$OUT/agent-env"
while [ ! -e "$OUT/go-agent" ]; do sleep 0.05; done
exit 0
`

// TestShimBeforeItsFrame holds the real launch shim between its start and
// its ai.session_start, the window in which the conductor's scan used to
// take the shim (a process named gemini) for an agent without hooks
// (issue 13: the sidebar flickered "no hooks" for every shim-launched
// agent; once seen with the real Claude Code under load). The shim is
// held by the lock it takes to inject Gemini's hooks (the test holds it
// first, and waits until the kernel shows the shim waiting for it). Then
// an unhooked agent (a sleep named opencode) starts in the same pane:
// once ps shows it, a scan has read the tree with the held shim in it,
// and ps must show no gemini. Released, the shim reports the agent,
// hooked, under its own pid, and after the agent exits nothing is left.
func TestShimBeforeItsFrame(t *testing.T) {
	e := start(t)
	fake := filepath.Join(e.dir, "fake")
	if err := os.WriteFile(filepath.Join(fake, "gemini"), []byte(fakeGemini), 0o755); err != nil {
		t.Fatal(err)
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(e.dir, "other")
	state := filepath.Join(e.dir, "shimstate")
	for _, d := range []string{other, state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(sleep, filepath.Join(other, "opencode")); err != nil {
		t.Fatal(err)
	}

	// The shim's lock for <project>/.gemini/settings.json (shim/users.go:
	// <state dir>/<first 12 bytes of the path's SHA-256, hex>.lock).
	sum := sha256.Sum256([]byte(filepath.Join(e.project, ".gemini", "settings.json")))
	lock, err := os.OpenFile(filepath.Join(state, hex.EncodeToString(sum[:12])+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(lock.Fd()), &st); err != nil {
		t.Fatal(err)
	}

	script := fmt.Sprintf(`cd %s && gemini & echo $! > %s/shim; until [ -e %s/go ]; do sleep 0.05; done; %s/opencode 600`,
		e.project, e.out, e.out, other)
	if _, err := e.cli("new", "--command", script, "--env", "OUT="+e.out,
		"--env", "GEMINI_CLI_TRUST_WORKSPACE=true", "--env", "PANEFLOW_SHIM_STATE_DIR="+state); err != nil {
		t.Fatal(err)
	}
	var shim int
	e.waitFor("the shim's pid", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.out, "shim"))
		shim, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return shim > 0
	})
	e.waitFor("the shim waiting for the lock", func() bool { return flockWaiter(st.Ino) == shim })

	os.WriteFile(filepath.Join(e.out, "go"), nil, 0o644)
	var rows map[string]map[string]any
	e.waitFor("the unhooked opencode in ps", func() bool {
		rows = e.agentRows()
		return rows["opencode"] != nil
	})
	if r := rows["opencode"]; r["state"] != "unknown_running" || r["hooked"] != false {
		t.Errorf("opencode row = %v, want unknown_running, not hooked", r)
	}
	if r, ok := rows["gemini"]; ok {
		t.Errorf("ps shows gemini while its shim has not reported: %v (the shim, pid %d, taken for an agent without hooks)", r, shim)
	}

	lock.Close() // the shim goes on: hooks, ai.session_start, the agent
	e.waitFor("the hooked gemini in ps", func() bool {
		rows = e.agentRows()
		return rows["gemini"] != nil
	})
	if r := rows["gemini"]; r["hooked"] != true || fmt.Sprint(r["pid"]) != strconv.Itoa(shim) {
		t.Errorf("gemini row = %v, want hooked with the shim's pid %d", r, shim)
	}
	e.waitFor("the agent to start", func() bool { _, err := os.Stat(filepath.Join(e.out, "agent-env")); return err == nil })
	os.WriteFile(filepath.Join(e.out, "go-agent"), nil, 0o644)
	e.waitFor("gemini gone from ps", func() bool {
		rows = e.agentRows()
		return rows["gemini"] == nil
	})
	if rows["opencode"] == nil {
		t.Errorf("opencode left ps too: %v", rows)
	}
}

// agentRows returns the fleet rows by tool.
func (e *env) agentRows() map[string]map[string]any {
	out, err := e.cli("ps", "--json")
	if err != nil {
		return nil
	}
	var fl struct {
		Agents []map[string]any `json:"agents"`
	}
	if json.Unmarshal([]byte(out), &fl) != nil {
		return nil
	}
	rows := map[string]map[string]any{}
	for _, a := range fl.Agents {
		if tool, ok := a["tool"].(string); ok {
			rows[tool] = a
		}
	}
	return rows
}

// flockWaiter returns the pid of a process waiting for an flock on the
// file with inode ino (/proc/locks: "N: -> FLOCK ADVISORY WRITE <pid>
// <maj>:<min>:<inode> 0 EOF"), or 0.
func flockWaiter(ino uint64) int {
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 7 || f[1] != "->" || f[2] != "FLOCK" {
			continue
		}
		if dev := strings.Split(f[6], ":"); len(dev) == 3 && dev[2] == strconv.FormatUint(ino, 10) {
			pid, _ := strconv.Atoi(f[5])
			return pid
		}
	}
	return 0
}

// fakeAgentPID stands for an agent behind the shim: it records its own
// pid, waits for $OUT/go-agent and exits 0.
const fakeAgentPID = `#!/bin/sh
echo $$ > "$OUT/agent-pid"
while [ ! -e "$OUT/go-agent" ]; do sleep 0.05; done
exit 0
`

// TestShimUnreported: the launch shim cannot reach Paneflow (its socket
// path names a file nobody listens on), so its ai.session_start is lost.
// The agent it starts is shown as it is, running without hooks, under the
// agent's own pid (not the shim's, which is no agent), and once the agent
// exits, with the shim's ai.exit lost too, ps shows nothing of it.
func TestShimUnreported(t *testing.T) {
	e := start(t)
	fake := filepath.Join(e.dir, "fake")
	if err := os.WriteFile(filepath.Join(fake, "gemini"), []byte(fakeAgentPID), 0o755); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(e.dir, "dead.sock")
	if err := os.WriteFile(dead, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`cd %s && PANEFLOW_SOCKET_PATH=%s gemini; sleep 600`, e.project, dead)
	if _, err := e.cli("new", "--command", script, "--env", "OUT="+e.out, "--env", "GEMINI_CLI_TRUST_WORKSPACE=true"); err != nil {
		t.Fatal(err)
	}
	var agent string
	e.waitFor("the agent's pid", func() bool {
		b, _ := os.ReadFile(filepath.Join(e.out, "agent-pid"))
		agent = strings.TrimSpace(string(b))
		return agent != ""
	})
	var rows map[string]map[string]any
	e.waitFor("gemini in ps", func() bool {
		rows = e.agentRows()
		return rows["gemini"] != nil
	})
	if r := rows["gemini"]; r["state"] != "unknown_running" || r["hooked"] != false || r["reason"] != "no_hook" || fmt.Sprint(r["pid"]) != agent {
		t.Errorf("gemini row = %v, want unknown_running, not hooked, reason no_hook, the agent's pid %s", r, agent)
	}
	os.WriteFile(filepath.Join(e.out, "go-agent"), nil, 0o644)
	e.waitFor("gemini gone from ps", func() bool {
		rows = e.agentRows()
		return rows != nil && rows["gemini"] == nil
	})
}
