//go:build linux

package agents

import (
	"bufio"
	"context"
	"encoding/json"
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
	dir := servetest.TempDir(t, "pfra")
	laptop := filepath.Join(dir, "laptop")
	if err := os.MkdirAll(laptop, 0o700); err != nil {
		t.Fatal(err)
	}
	sshd := sshdtest.Start(t, sshdtest.Config{Dir: dir, Ports: []sshdtest.Port{{Env: []string{
		"PATH=" + binDir + ":/usr/bin:/bin", "HOME=" + e.home, "LANG=C.UTF-8", "PANEFLOW_SOCKET_PATH=" + e.sock,
	}}}})
	host := sshd.URL(0)
	lenv := append(servetest.Env(laptop), "PANEFLOW_SSH="+sshd.SSHCommand(), "PANEFLOW_SOCKET_PATH="+filepath.Join(laptop, "none.sock"))
	pf := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(binDir, "paneflow"), append([]string{"--host", host}, args...)...)
		cmd.Env, cmd.Dir = lenv, laptop
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { pf("host", "close") })

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
