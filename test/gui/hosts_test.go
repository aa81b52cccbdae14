//go:build linux

package gui

import (
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// TestHostsWindow (issue 30): the default window adds another host
// through its "Add host…" dialog (Ctrl+Shift+K) and shows that host's
// workspace under its header in the sidebar, reached only over a real
// sshd on loopback; the host is saved in the config; a key typed into the
// remote pane reaches its program; a hook frame on the remote (an agent
// waiting for input) reaches the window's sidebar and title; when the
// window's ssh is killed while a second remote pane floods (and cannot
// connect for a while) the header says
// "reconnecting", then the window reconnects, and the remote program,
// a counter that was never restarted, goes on counting.
func TestHostsWindow(t *testing.T) {
	x := display(t)
	srv, sshd, dir := remoteHost(t)
	url := sshd.URL(0)
	// The window's ssh: the real one, refused while the flag file exists
	// (as a host that is down would be).
	down := filepath.Join(dir, "down")
	ssh := filepath.Join(dir, "ssh")
	script := fmt.Sprintf("#!/bin/sh\nif [ -e %s ]; then echo 'ssh: connect to host 127.0.0.1: Connection refused' >&2; exit 255; fi\nexec %s \"$@\"\n",
		down, sshd.SSHCommand())
	if err := os.WriteFile(ssh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w := startApp(t, x, "PANEFLOW_SSH="+ssh, "PANEFLOW_UI_PROBE=1")
	// probe waits for the sidebar's probe line matching re, written after
	// the log's line from (see mark).
	probe := func(what string, from int, re string) {
		t.Helper()
		if _, err := w.waitLine(regexp.MustCompile(`^ui-probe sidebar `+re), from, appStartTimeout); err != nil {
			t.Fatalf("the sidebar never showed %s (%s): %v\nstderr:\n%s", what, re, err, proctest.Indent(w.log.String()))
		}
	}
	mark := w.log.count
	host := regexp.QuoteMeta(url)
	side := image.Rect(0, 0, sidebarPx, 800) // the sidebar: nothing in it blinks

	// Add the host through the dialog.
	from := mark()
	w.xdo("windowfocus", "--sync", w.win)
	w.xdo("key", "ctrl+shift+k")
	w.xdo("type", "--delay", "20", url)
	w.stable("add-host-dialog", side) // the dialog's backdrop covers the sidebar
	w.xdo("key", "Return")
	probe("the host connected with its workspace", from, `hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/1\] `)
	w.stable("host-added", side)
	cfg, err := os.ReadFile(filepath.Join(w.dir, "config", "paneflow", "paneflow.toml"))
	if err != nil || !strings.Contains(string(cfg), "[[hosts]]\naddress = \""+url+"\"") {
		t.Fatalf("the config file does not list the host (%v):\n%s", err, cfg)
	}

	// Show the remote workspace and type into its pane (once the window
	// shows it: the switch is a call to the host).
	from = mark()
	w.xdo("key", "ctrl+2")
	probe("the remote workspace shown", from, `hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/1\] shown=@1 focus=@1$`)
	w.xdo("type", "--delay", "30", "remote")
	srv.eventually("the remote pane to echo what the window typed", func() (bool, string) {
		raw := srv.readRaw("1")
		return strings.Contains(raw, "remote"), raw
	})
	w.xdo("key", "Return")
	srv.waitOutput("1", "got 1:remote")

	// A hook frame on the remote: its agent waits for input.
	from = mark()
	hook := exec.Command(filepath.Join(filepath.Dir(cliBin), "paneflow-ai-hook"), "Notification")
	payload, _ := json.Marshal(map[string]any{"session_id": "5f3c2a9e-remote", "hook_event_name": "Notification",
		"message": "Claude needs your permission to use Bash", "notification_type": "permission_prompt", "cwd": dir})
	hook.Stdin = strings.NewReader(string(payload))
	hook.Env = append(os.Environ(), "PANEFLOW_SOCKET_PATH="+srv.sock, "PANEFLOW_SURFACE_ID=1",
		"PANEFLOW_AI_PID="+strconv.Itoa(os.Getpid()), "PANEFLOW_AI_TOOL=claude")
	if out, err := hook.CombinedOutput(); err != nil {
		t.Fatalf("paneflow-ai-hook: %v\n%s", err, out)
	}
	probe("the remote agent waiting", from, `hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/1:●\] `)
	w.eventually("the window title to count the remote agent", func() (bool, string) {
		title := strings.TrimSpace(w.xdo("getwindowname", w.win))
		return title == "Paneflow — 1 waiting", title
	})
	w.stable("remote-waiting", side)

	// A second remote pane floods (the window shows it: its frames cross
	// the ssh); the read loop's pane keeps the host's focus.
	var split struct {
		ID uint64 `json:"surface_id"`
	}
	from = mark()
	srv.mustCLI(&split, "split", "h", "--target", "1", "--name", "flood", "--command", "while :; do seq 1 5000; done")
	srv.mustCLI(nil, "focus", "1")
	probe("the flood pane shown beside the loop", from, `hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/2:●\] shown=@1 focus=@1$`)

	// Kill the window's ssh mid-flood while the host cannot be reached.
	if err := os.WriteFile(down, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pid := childNamed(t, w.pid(), "ssh")
	from = mark()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	probe("the host reconnecting", from, `hosts=\[`+host+`=reconnecting\] cards=\[[^@]+@0/1\] `)
	w.stable("reconnecting", side)
	from = mark()
	if err := os.Remove(down); err != nil {
		t.Fatal(err)
	}
	// The window shows the host again, and the workspace it showed.
	probe("the host connected again", from, `hosts=\[`+host+`=connected\] cards=\[[^@]+@0/1 [^@]+@1/2:●\] shown=@1 focus=@1$`)
	w.stable("reconnected", side)
	w.xdo("windowfocus", "--sync", w.win)
	w.xdo("type", "--delay", "30", "again")
	srv.eventually("the remote pane to echo what the window typed after reconnecting", func() (bool, string) {
		raw := srv.readRaw("1")
		return strings.Contains(raw, "again"), raw + "\n(this machine's pane shows:)\n" + w.server.readRaw("1")
	})
	w.xdo("key", "Return")
	srv.waitOutput("1", "got 2:again") // the same loop: never interrupted
	w.stable("typed-again", side)
	srv.mustCLI(nil, "close", fmt.Sprint(split.ID)) // the flood ends before the test's other clean-ups
}

// childNamed returns the pid of the one child of parent whose command is
// name (from /proc).
func childNamed(t *testing.T, parent int, name string) int {
	t.Helper()
	pt := readProcTree(t)
	var found []int
	for _, pid := range pt.children[parent] {
		if pt.comm[pid] == name {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s child of %d, found %v", name, parent, found)
	}
	return found[0]
}
