//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/servetest"
)

// detachedRe is what `serve --detach` says when it started the server.
var detachedRe = regexp.MustCompile(`paneflow: started the server \(pid (\d+)\) on (\S+); its log: (\S+)`)

// sessionOf is the session id of pid (from /proc/<pid>/stat), 0 when it
// is gone or a zombie.
func sessionOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 || f[0] == "Z" {
		return 0
	}
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// TestServeDetach is the find-or-start the desktop app does before it
// attaches, through the CLI: two `paneflow serve --detach` at once start
// exactly one server (detached: a session of its own, stdin the null
// device, output in $XDG_STATE_HOME/paneflow/server.log), both return once
// it answers, a third finds it; kill-server ends it. A server that cannot
// start is an error quoting its log.
func TestServeDetach(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	sock := filepath.Join(dir, "pf.sock")
	env := append(baseEnv(dir), "PANEFLOW_SOCKET_PATH="+sock)
	var wg sync.WaitGroup
	runs := make([]result, 2)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runCLI(t, env, dir, "serve", "--detach")
		}()
	}
	wg.Wait()
	pid, started := 0, 0
	for _, r := range runs {
		if r.code != 0 {
			t.Fatalf("serve --detach: want exit 0:\n%s", r)
		}
		if m := detachedRe.FindStringSubmatch(r.stderr); m != nil {
			started++
			pid, _ = strconv.Atoi(m[1])
			if m[2] != sock || m[3] != filepath.Join(dir, "state", "paneflow", "server.log") {
				t.Errorf("started on %s with log %s, want %s and the state directory's server.log", m[2], m[3], sock)
			}
		} else if !strings.Contains(r.stderr, "a server already answers on "+sock) {
			t.Errorf("serve --detach neither started nor found the server:\n%s", r)
		}
	}
	if started != 1 {
		t.Fatalf("two serve --detach at once started %d servers, want 1:\n%s\n%s", started, runs[0], runs[1])
	}
	t.Cleanup(func() { runCLI(t, env, dir, "kill-server") })
	if sid := sessionOf(pid); sid != pid {
		t.Errorf("the server %d runs in session %d, want its own", pid, sid)
	}
	for fd, want := range map[int]string{0: "/dev/null", 2: filepath.Join(dir, "state", "paneflow", "server.log")} {
		if got, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); err != nil || got != want {
			t.Errorf("the server's fd %d is %q (%v), want %s", fd, got, err, want)
		}
	}
	// The server is alone: the other start (if it ran) gave up the socket.
	(&server{t: t, dir: dir, sock: sock, env: env}).eventually("one paneflow server", func() (bool, string) {
		n := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			p, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			if strings.Contains(string(cmd), "serve\x00--socket\x00"+sock+"\x00") && sessionOf(p) != 0 {
				n++
			}
		}
		return n == 1, fmt.Sprintf("%d servers on %s", n, sock)
	})
	if r := runCLI(t, env, dir, "serve", "--detach"); r.code != 0 || !strings.Contains(r.stderr, "a server already answers on "+sock) {
		t.Errorf("serve --detach with a server running: want it found:\n%s", r)
	}
	s := &server{t: t, dir: dir, sock: sock, env: env}
	s.mustCLI(nil, "ls")
	var res struct {
		PID int `json:"pid"`
	}
	s.mustCLI(&res, "kill-server")
	if res.PID != pid {
		t.Errorf("kill-server stopped %d, want %d", res.PID, pid)
	}
	s.eventually("the server to exit", func() (bool, string) { return sessionOf(pid) == 0, "" })
	log, _ := os.ReadFile(filepath.Join(dir, "state", "paneflow", "server.log"))
	if !strings.Contains(string(log), "paneflow: serving on "+sock) || !strings.Contains(string(log), "system.shutdown: stopping") {
		t.Errorf("server.log:\n%s", log)
	}

	// A server that cannot start: its socket's directory is writable by
	// others, where a server refuses to bind.
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := runCLI(t, env, dir, "serve", "--detach", "--socket", filepath.Join(open, "pf.sock"))
	if r.code != 1 || !strings.Contains(r.stderr, "exited (exit status 1) before answering") || !strings.Contains(r.stderr, "open") {
		t.Errorf("serve --detach of a server that cannot start: want exit 1 quoting its log:\n%s", r)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the failed start took %v: it must end when the server exits", d)
	}
}

// TestServeLog: `serve --log FILE` (what the Windows logon task runs, its
// program having no standard error) writes its messages to FILE, not to
// stderr, and makes FILE its descriptor 2 (the runtime's crash reports),
// creating the file 0600 in a 0700 directory, and first renames a
// log past 4 MiB to FILE.1; with --detach it is a usage error.
func TestServeLog(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	logPath := filepath.Join(dir, "logs", "server.log")
	sock := filepath.Join(dir, "pf.sock")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	old := strings.Repeat("an old line\n", 4<<20/12+1)
	if err := os.WriteFile(logPath, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := servetest.Start(t, servetest.Config{Bin: bin, Sock: sock, Dir: dir, Env: baseEnv(dir), Args: []string{"--log", logPath, "--session", "none"}})
	if b, _ := os.ReadFile(logPath + ".1"); string(b) != old {
		t.Errorf("the old log was not kept as %s.1 (%d bytes)", logPath, len(b))
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	started := fmt.Sprintf(": serve (pid %d) started\n", srv.Proc.Pid())
	if !strings.Contains(string(b), started) || !strings.Contains(string(b), "paneflow: serving on "+sock+"\n") {
		t.Errorf("the log:\n%s\nwant %q and the socket", b, started)
	}
	if out := srv.Output.String(); out != "" {
		t.Errorf("serve --log wrote to its stderr:\n%s", out)
	}
	// Descriptor 2 is the log, so that a panic's report lands there too.
	if got, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", srv.Proc.Pid())); err != nil || got != logPath {
		t.Errorf("the server's descriptor 2 is %q (%v), want the log %s", got, err, logPath)
	}
	if fi, err := os.Stat(logPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the log's mode: %v, %v", fi.Mode(), err)
	}
	if r := runCLI(t, baseEnv(dir), dir, "serve", "--detach", "--log", logPath); r.code != 2 || !strings.Contains(r.stderr, "--log goes without --detach") {
		t.Errorf("serve --detach --log: want a usage error:\n%s", r)
	}
}
