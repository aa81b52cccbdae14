//go:build linux

package agents

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/servetest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// TestRemoteClaude (issue 30): the real Claude Code, against the scripted
// model, runs a turn in a pane of a server reached only through `paneflow
// --host` over a real sshd on loopback: from another HOME (the laptop),
// `ps --host` shows the agent thinking while the model holds the turn, and
// `watch --host` (a stream through the bridge) sees it reach finished with
// its last result, which `history --host` then holds. The hooks stay on the agent's host: they talk to its
// server, and the laptop learns of them through the stream.
func TestRemoteClaude(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	model := fakemodel.Start(t, bashTurns(hold, "echo from-bash", "All done here.")...)
	e := newEnv(t, model, options{profile: claudeProfile(model)})
	host, lenv, laptop, pf := e.remote()

	ctx, cancel := context.WithTimeout(context.Background(), pollTimeout*4)
	defer cancel()
	watch := exec.CommandContext(ctx, filepath.Join(binDir, "paneflow"), "--host", host, "watch", "--surface", "1", "--type", "agent_state")
	watch.Env, watch.Dir = lenv, laptop
	out, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || !strings.Contains(lines.Text(), "subscribed") {
		t.Fatalf("watch --host's first line: %q", lines.Text())
	}

	e.typeLine(claudeTurn.command)
	var row struct {
		Agents []struct {
			Tool   string `json:"tool"`
			State  string `json:"state"`
			Hooked bool   `json:"hooked"`
		} `json:"agents"`
	}
	e.waitFor("ps --host to show Claude thinking", func() bool {
		o, err := pf("ps", "--json")
		if err != nil {
			t.Fatalf("ps --host: %v\n%s", err, o)
		}
		row.Agents = nil
		json.Unmarshal([]byte(o), &row)
		return len(row.Agents) == 1 && row.Agents[0].Tool == "claude" && row.Agents[0].State == "thinking" && row.Agents[0].Hooked
	})
	close(hold)
	for {
		if !lines.Scan() {
			t.Fatalf("watch --host ended before Claude finished: %v", lines.Err())
		}
		var ev event
		if json.Unmarshal(lines.Bytes(), &ev) == nil && isState("finished")(ev) {
			if str(ev.LastResult) != claudeTurn.lastResult || ev.Tool != "claude" {
				t.Fatalf("finished event %s, want claude with %q", ev, claudeTurn.lastResult)
			}
			break
		}
	}
	watch.Process.Signal(syscall.SIGINT)
	if err := watch.Wait(); err != nil {
		t.Fatalf("watch --host after Ctrl-C: %v", err)
	}
	// The host's record of the turn, read from here.
	if o, err := pf("history", "1", "--json"); err != nil || !strings.Contains(o, claudeTurn.lastResult) {
		t.Fatalf("history --host: %v\n%s", err, o)
	}
}

// remote puts e's server behind a real sshd on loopback (its sessions
// find this build's paneflow and e's socket) and returns the host's
// address, the environment and directory of "the laptop" (its own HOME, no
// server of its own), and a function running `paneflow --host HOST
// args...` there.
func (e *env) remote() (host string, lenv []string, laptop string, pf func(args ...string) (string, error)) {
	t := e.t
	t.Helper()
	dir := servetest.TempDir(t, "pfra")
	laptop = filepath.Join(dir, "laptop")
	if err := os.MkdirAll(laptop, 0o700); err != nil {
		t.Fatal(err)
	}
	sshd := sshdtest.Start(t, sshdtest.Config{Dir: dir, Ports: []sshdtest.Port{{Env: []string{
		"PATH=" + binDir + ":/usr/bin:/bin", "HOME=" + e.home, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + e.sock,
	}}}})
	host = sshd.URL(0)
	lenv = append(servetest.Env(laptop), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_SOCKET_PATH="+filepath.Join(laptop, "none.sock"))
	pf = func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(binDir, "paneflow"), append([]string{"--host", host}, args...)...)
		cmd.Env, cmd.Dir = lenv, laptop
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return string(out), err
	}
	t.Cleanup(func() { pf("host", "close") })
	return host, lenv, laptop, pf
}

// TestRemoteClaudeSubmit: `paneflow --host … send --submit` types a prompt
// into the real Claude Code TUI on the host and confirms that a turn
// started by Claude's own hook, as it does locally; `status --host` then
// shows the turn finished with its result.
func TestRemoteClaudeSubmit(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t, fakemodel.Turn{Text: "Remote turn done."})
	e := newEnv(t, model, options{profile: claudeProfile(model), setup: func(e *env) {
		e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
			`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
	}})
	if out := e.hooksSetup(); !strings.Contains(out, "hooks installed") {
		t.Fatalf("paneflow hooks setup said:\n%s", out)
	}
	_, _, _, pf := e.remote()
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitFor("the Claude Code prompt", func() bool {
		out, _ := pf("read", "1")
		return strings.Contains(out, "accept edits on")
	})
	out, err := pf("send", "1", "say hello from afar", "--submit")
	var res struct {
		Started     bool   `json:"started"`
		StartReason string `json:"start_reason"`
	}
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || !res.Started || res.StartReason != "hook_turn_started" {
		t.Fatalf("send --submit --host answered %s (%v), want started by hook_turn_started", out, err)
	}
	var st status
	e.waitFor("status --host to show the turn finished", func() bool {
		o, err := pf("status", "1", "--json")
		if err != nil {
			t.Fatalf("status --host: %v", err)
		}
		st = status{}
		json.Unmarshal([]byte(o), &st)
		return st.State == "finished"
	})
	if str(st.LastResult) != "Remote turn done." || st.Tool != "claude" {
		t.Fatalf("status --host = %s, want claude finished with the model's text", st)
	}
	e.typeCommand("/exit")
}
