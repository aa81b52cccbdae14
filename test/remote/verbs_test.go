//go:build linux

package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pane is what the tests read of surface.list's panes (their own decoding
// of the wire, as the e2e tests do).
type pane struct {
	ID   uint64 `json:"surface_id"`
	Name string `json:"name"`
	Cwd  string `json:"cwd"`
	Cmd  string `json:"cmd"`
}

// lsPanes is `paneflow --host … ls`'s panes.
func (w *world) lsPanes(port int) []pane {
	w.t.Helper()
	var out struct {
		Surfaces []pane `json:"surfaces"`
	}
	r := w.host(port, "ls")
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		w.t.Fatalf("ls: %v\n%s", err, r)
	}
	return out.Surfaces
}

// paneNamed returns the pane called name, failing the test if none is.
func (w *world) paneNamed(port int, name string) pane {
	w.t.Helper()
	for _, p := range w.lsPanes(port) {
		if p.Name == name {
			return p
		}
	}
	w.t.Fatalf("no pane %q on the host", name)
	return pane{}
}

// TestRemoteVerbs drives the remote server with every verb through
// --host, and checks that each went there: the local side runs no server
// at all.
func TestRemoteVerbs(t *testing.T) {
	w := newWorld(t)
	local := w.cli(nil, "ls")
	if local.code == 0 {
		t.Fatalf("a local server answered: the test would not tell local from remote\n%s", local)
	}

	// ls, new (an absolute cwd of the host's), and PANEFLOW_HOST.
	if len(w.lsPanes(portMain)) == 0 {
		t.Fatal("the host lists no pane")
	}
	w.host(portMain, "new", "--name", "remote-ws", "--cwd", w.remote, "--command", "cat")
	w.host(portMain, "rename", "cat", "r1")
	r := w.cli([]string{"PANEFLOW_HOST=" + w.url(portMain)}, "ls", "--human")
	if r.code != 0 || !strings.Contains(r.stdout, "r1") {
		t.Fatalf("PANEFLOW_HOST ls:\n%s", r)
	}
	if p := w.paneNamed(portMain, "r1"); p.Cwd != w.remote || p.Cmd != "cat" {
		t.Fatalf("r1 = %+v, want cwd %s and cat", p, w.remote)
	}

	// A path of this machine's cannot name one of the host's.
	r = w.cli(nil, "--host", w.url(portMain), "new", "--cwd", "relative/dir")
	if r.code == 0 || !strings.Contains(r.stderr, "must be an absolute path on "+w.url(portMain)) {
		t.Fatalf("a relative --cwd with --host:\n%s", r)
	}

	// Layout verbs.
	w.host(portMain, "split", "h", "--target", "r1", "--name", "r2", "--command", "sh")
	w.host(portMain, "rename", "r2", "r2x")
	w.host(portMain, "focus", "r2x")
	w.host(portMain, "resize", "r1", "100x30")
	w.host(portMain, "select", "1")

	// send, with and without --submit, key, wait for a pattern (push:
	// a stream through the bridge), read, search.
	w.host(portMain, "send", "r1", "hello-")
	w.host(portMain, "send", "r1", "remote", "--submit")
	w.host(portMain, "wait", "--match", "r1", "--pattern", "^hello-remote$", "--from-start", "--timeout", "60s")
	w.host(portMain, "key", "r1", "tab")
	r = w.host(portMain, "read", "r1", "--raw")
	if strings.Count(r.stdout, "hello-remote") < 2 { // the tty's echo and cat's copy
		t.Fatalf("read r1:\n%s", r)
	}
	if r = w.host(portMain, "search", "r1", "hello-remote"); !strings.Contains(r.stdout, "hello-remote") {
		t.Fatalf("search r1:\n%s", r)
	}
	w.host(portMain, "wait", "--match", "r1", "--idle", "--for", "300ms", "--timeout", "60s")

	// watch holds a stream through the bridge: it sees output typed in
	// meanwhile, and Ctrl-C ends it with 0.
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	watch := exec.CommandContext(ctx, filepath.Join(binDir, "paneflow"), "--host", w.url(portMain), "watch", "--surface", "r1", "--type", "surface_changed")
	watch.Env = w.localEnv
	out, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || !strings.Contains(lines.Text(), "subscribed") {
		t.Fatalf("watch's first line: %q", lines.Text())
	}
	w.host(portMain, "send", "r1", "watched", "--submit")
	if !lines.Scan() || !strings.Contains(lines.Text(), "surface_changed") {
		t.Fatalf("watch's event: %q", lines.Text())
	}
	watch.Process.Signal(syscall.SIGINT)
	if err := watch.Wait(); err != nil {
		t.Fatalf("watch after Ctrl-C: %v", err)
	}

	// The fleet and the agents' side.
	for _, args := range [][]string{{"ps"}, {"ps", "--json"}, {"status", "r1", "--json"}, {"usage", "--json"}, {"history", "r1", "--json"}} {
		w.host(portMain, args...)
	}

	w.host(portMain, "close", "r2x")
	for _, p := range w.lsPanes(portMain) {
		if p.Name == "r2x" {
			t.Fatal("r2x is still listed after close")
		}
	}

	// The calls above shared one link (one ssh); closing it says so.
	r = w.host(portMain, "host", "close")
	if !strings.Contains(r.stdout, "closed the link to "+w.url(portMain)) {
		t.Fatalf("host close:\n%s", r)
	}
	// The next call starts a link again; one started with a short
	// PANEFLOW_HOST_PERSIST ends by itself once unused.
	r = w.cli([]string{"PANEFLOW_HOST_PERSIST=0.2"}, "--host", w.url(portMain), "ls")
	if r.code != 0 || !strings.Contains(r.stdout, `"r1"`) {
		t.Fatalf("ls with a short-lived link:\n%s", r)
	}
	deadline := time.Now().Add(pollTimeout)
	for {
		r = w.host(portMain, "host", "close")
		if strings.Contains(r.stdout, "no link to "+w.url(portMain)+" was open") {
			break
		}
		// host close stopped it itself: the link had not ended yet.
		if time.Now().After(deadline) {
			t.Fatalf("the link with PANEFLOW_HOST_PERSIST=0.2 did not end by itself:\n%s", r)
		}
		w.cli([]string{"PANEFLOW_HOST_PERSIST=0.2"}, "--host", w.url(portMain), "ls")
		time.Sleep(time.Second)
	}
}

// TestRemoteUpAndFlow runs up and flow run through --host: the specs are
// the host's files, their relative cwds resolve there, and the flow's
// barriers are waits on the host's panes.
func TestRemoteUpAndFlow(t *testing.T) {
	w := newWorld(t)
	w.writeRemote("ws/sub/marker", "")
	up := w.writeRemote("ws/ws.toml", `name = "remote-up"

[[panes]]
name = "up1"
cwd = "~/ws/sub"
command = "echo UP-IN-$(pwd); exec sleep 1000"
`)
	// The spec is the host's file and its cwd resolves there: ~ is the
	// host's HOME (this machine's has no ws/sub). Without a terminal an
	// untrusted spec is refused, by the host's paneflow, whose trust
	// store it is.
	r := w.cli(nil, "--host", w.url(portMain), "up", up)
	if r.code != 2 {
		t.Fatalf("up of an untrusted spec without a terminal:\n%s", r)
	}
	w.host(portMain, "up", up, "--yes")
	w.host(portMain, "wait", "--match", "up1", "--pattern", "^UP-IN-"+filepath.Join(w.remote, "ws", "sub")+"$", "--from-start", "--timeout", "60s")
	if r := w.host(portMain, "trust", "--list"); !strings.Contains(r.stdout, up) {
		t.Fatalf("the host's trust store does not list %s:\n%s", up, r)
	}

	flow := w.writeRemote("ws/flow.toml", `name = "remote-flow"
[defaults]
timeout_secs = 60

[[step]]
id = "first"
pane = { command = "echo 'FIRST-DONE'; exec cat" }
ready = { pattern = "^FIRST-DONE$" }
capture = { var = "what", lines = 1 }

[[step]]
id = "second"
needs = ["first"]
foreach = ["a", "b"]
pane = { command = "echo \"SECOND $ITEM\"; exec sleep 1000", env = { ITEM = "${item}" } }
ready = { pattern = "^SECOND ${item}$" }

[[step]]
id = "tell"
needs = ["second"]
send = { target = "first", text = "told ${what}", submit = true }
ready = { pattern = "^told" }
`)
	r = w.host(portMain, "flow", "run", flow, "--yes", "--json")
	var rep struct {
		Status string `json:"status"`
		Steps  []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("flow report: %v\n%s", err, r)
	}
	if rep.Status != "ready" || len(rep.Steps) != 4 {
		t.Fatalf("flow report %+v\n%s", rep, r)
	}
	for _, st := range rep.Steps {
		if st.Status != "READY" {
			t.Fatalf("step %s: %s\n%s", st.ID, st.Status, r)
		}
	}
}

// TestRemoteErrors: each way a host can be unfit gets its own message,
// naming the fix.
func TestRemoteErrors(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		name string
		port int
		env  []string
		want string
	}{
		{"not installed", portBare, nil, filepath.Join(w.bareHome, ".local/bin/paneflow") + ": not found); run `paneflow host install " + w.url(portBare) + "`"},
		{"not installed, no link", portBare, []string{"PANEFLOW_HOST_PERSIST=0"}, "paneflow is not installed on " + w.url(portBare)},
		{"other protocol", portFake, nil, "(v9.9.9, bridge protocol 99) cannot talk to this one (bridge protocol 1); run `paneflow host install " + w.url(portFake) + "`"},
		{"too old", portOld, nil, "the paneflow on " + w.url(portOld) + " is too old to have `paneflow bridge`"},
		{"no server", portNoServer, nil, "(is `paneflow serve` running there?)"},
		{"no server, no link", portNoServer, []string{"PANEFLOW_HOST_PERSIST=0"}, "(is `paneflow serve` running there?)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := w.cli(c.env, "--host", w.url(c.port), "ls")
			if r.code != 1 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("want exit 1 and %q:\n%s", c.want, r)
			}
		})
	}
	r := w.cli(nil, "--host", "ssh://-oProxyCommand=touch", "ls")
	if r.code != 2 || !strings.Contains(r.stderr, "not a host name") {
		t.Fatalf("an option as the host:\n%s", r)
	}
}

// TestHostInstall copies this build to a host without paneflow, over the
// same ssh, after which --host works there; a host of another machine
// type is refused before anything is copied.
func TestHostInstall(t *testing.T) {
	w := newWorld(t)
	static := filepath.Join(staticDir, "paneflow")
	r := w.run(static, nil, "host", "install", w.url(portFake))
	if r.code != 1 || !strings.Contains(r.stderr, "and this paneflow is a linux/") || !strings.Contains(r.stderr, "host install copies only this build") {
		t.Fatalf("install to another machine type:\n%s", r)
	}
	if raceEnabled {
		// The race-built (dynamically linked) binaries are refused.
		r = w.cli(nil, "host", "install", w.url(portBare))
		if r.code != 1 || !strings.Contains(r.stderr, "is dynamically linked") {
			t.Fatalf("install of a dynamic build:\n%s", r)
		}
	}
	r = w.run(static, nil, "host", "install", w.url(portBare))
	if r.code != 0 || !strings.Contains(r.stdout, "installed paneflow, paneflow-server") || !strings.Contains(r.stdout, filepath.Join(w.bareHome, ".local/bin")) {
		t.Fatalf("install:\n%s", r)
	}
	// The bare host's sessions find it in ~/.local/bin (not on their
	// PATH) and reach the server its socket names.
	r = w.run(static, nil, "--host", w.url(portBare), "ls")
	if r.code != 0 || !strings.Contains(r.stdout, `"surfaces"`) {
		t.Fatalf("ls after install:\n%s", r)
	}
}
