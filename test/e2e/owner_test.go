//go:build linux

package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// withoutEnv returns env without the variables named.
func withoutEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// TestUnsafeSocketDir: `paneflow serve` refuses a socket directory others
// can write, naming the directory and the fix, and leaves no socket
// there (issue 25 item 2).
func TestUnsafeSocketDir(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(shared, "pf.sock")
	r := runCLI(t, baseEnv(dir), dir, "serve", "--socket", sock)
	want := "refusing to serve at " + sock + ": " + shared + " is writable by others (mode 0777)"
	if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "chmod go-w "+shared) {
		t.Errorf("serve in a directory others can write: want a failure saying %q and the fix:\n%s", want, r)
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Errorf("a socket was left at %s", sock)
	}
}

// TestForeignRuntimeDir is issue 25 item 2's attack, end to end: with
// XDG_RUNTIME_DIR unset and TMPDIR shared, another user (nobody) made
// "paneflow" there first, mode 0777, and listens where the victim's
// socket would be. The victim's server refuses the directory, naming the
// fix; the victim's CLI refuses to send to the squatter's socket, first
// by the file's owner, then (the file handed to the victim) by the
// serving process's credentials; the squatter receives nothing.
func TestForeignRuntimeDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv to run a process as another user")
	}
	dir := tempDir(t)
	if err := os.Chmod(dir, 0o755); err != nil { // nobody runs the squatter from here
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp") // a shared TMPDIR, as /tmp
	foreign := filepath.Join(tmp, "paneflow")
	for _, d := range []string{tmp, foreign} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(foreign, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(foreign, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(foreign, "paneflow.sock")
	env := append(withoutEnv(baseEnv(dir), "XDG_RUNTIME_DIR"), "TMPDIR="+tmp)

	r := runCLI(t, env, dir, "serve")
	want := "refusing to serve at " + sock + ": " + foreign + " belongs to uid 65534"
	if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "remove "+foreign) ||
		!strings.Contains(r.stderr, "XDG_RUNTIME_DIR") {
		t.Fatalf("serve with another user's runtime directory: want a failure saying %q and the fix:\n%s", want, r)
	}

	// The squatter: this test binary, as nobody (see rawListenerMain).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	squatter := filepath.Join(dir, "squatter")
	copyFile(t, self, squatter, 0o755)
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", squatter)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", rawListenerEnv + "=" + sock, "GORACE=atexit_sleep_ms=0"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr proctest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	heard := make(chan []string, 1)
	ready := make(chan bool, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "listening" {
				ready <- true
				continue
			}
			lines = append(lines, sc.Text())
		}
		close(ready)
		heard <- lines
	}()
	stop := func() []string {
		stdin.Close()
		lines := <-heard
		cmd.Wait()
		return lines
	}
	if !<-ready {
		stop()
		t.Fatalf("the squatter did not listen:\n%s", stderr.String())
	}

	t.Run("socket owned by another user", func(t *testing.T) {
		for _, args := range [][]string{{"send", "1", "secret text", "--submit"}, {"ls"}} {
			r := runCLI(t, env, dir, args...)
			want := "refusing to talk to " + sock + ": the socket file belongs to uid 65534"
			if r.code == 0 || !strings.Contains(r.stderr, want) {
				t.Errorf("want a failure saying %q:\n%s", want, r)
			}
		}
	})
	t.Run("server runs as another user", func(t *testing.T) {
		// The file is the victim's now; the process behind it is not.
		if err := os.Chown(sock, 0, 0); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, env, dir, "send", "1", "secret text", "--submit")
		want := "refusing to talk to " + sock + ": the process serving it runs as uid 65534"
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("want a failure saying %q:\n%s", want, r)
		}
	})
	lines := stop()
	for _, l := range lines {
		if l != "accepted" {
			t.Errorf("the squatter heard %s", l)
		}
	}
	if stderr.String() != "" {
		t.Logf("squatter's stderr:\n%s", proctest.Indent(stderr.String()))
	}
}
