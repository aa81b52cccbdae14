//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyRun is a CLI run on a pseudo-terminal: what it writes is collected,
// and a test waits for text to appear before it answers.
type ptyRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	more chan struct{} // signalled after each read
	done chan struct{} // closed when the terminal reads EOF
}

// startPTY runs the paneflow binary with args on a new terminal, in dir.
func startPTY(t *testing.T, env []string, dir string, args ...string) *ptyRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	r := &ptyRun{t: t, cmd: cmd, tty: tty, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
			if err != nil { // EIO once the program's side is closed
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
		<-r.done
	})
	return r
}

func (r *ptyRun) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitFor returns once the terminal showed want, failing the test if the
// program ends or pollTimeout passes first.
func (r *ptyRun) waitFor(want string) {
	r.t.Helper()
	deadline := time.After(pollTimeout)
	for !strings.Contains(r.text(), want) {
		select {
		case <-r.more:
		case <-r.done:
			if !strings.Contains(r.text(), want) {
				r.t.Fatalf("the program ended without showing %q:\n%s", want, r.text())
			}
		case <-deadline:
			r.t.Fatalf("gave up waiting for %q:\n%s", want, r.text())
		}
	}
}

// answer types a line, as a person would.
func (r *ptyRun) answer(line string) {
	if _, err := r.tty.Write([]byte(line + "\r")); err != nil {
		r.t.Fatal(err)
	}
}

// wait returns the program's exit code once it ended.
func (r *ptyRun) wait() int {
	r.t.Helper()
	err := r.cmd.Wait()
	<-r.done
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return 0
}

// TestSpecTrust: a repository's spec does not run until its content is
// trusted. Without a terminal `up` refuses (exit 2, naming the fix); on a
// terminal it shows the plan with control characters escaped and asks;
// "n" runs nothing, "y" runs it and trusts it; a changed spec is asked
// about again; `trust`, `untrust` and `trust --list` manage the store;
// --dry-run needs no trust; `flow run` is gated the same way.
func TestSpecTrust(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	repo := filepath.Join(s.dir, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(repo, "paneflow.workspace.toml")
	const v1 = "[[panes]]\nname = \"trusted\"\ncommand = \"echo TRUST-RAN; exec sleep 1000\"\nenv = { NOTE = \"x\\r\\u001b[2K  looks harmless\" }\n"
	if err := os.WriteFile(spec, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	panes := func() int { return len(s.ls().Surfaces) }
	before := panes()

	s.wantCode(2, []string{"is not trusted", "paneflow trust " + spec, "--yes"}, "up", spec)
	if n := panes(); n != before {
		t.Fatalf("an untrusted spec opened panes: %d, was %d", n, before)
	}
	r := s.mustCLI(nil, "up", "--dry-run", spec)
	if !strings.Contains(r.stdout, `NOTE=x\x0d\x1b[2K  looks harmless`) || strings.ContainsAny(r.stdout, "\r\x1b") {
		t.Errorf("--dry-run does not escape the spec's controls:\n%s", r)
	}

	// On a terminal: asked, "n" runs nothing.
	p := startPTY(t, s.clientEnv(), s.dir, "up", spec)
	p.waitFor("[y/N] ")
	if out := p.text(); !strings.Contains(out, `NOTE=x\x0d\x1b[2K  looks harmless`) || !strings.Contains(out, "echo TRUST-RAN; exec sleep 1000") {
		t.Errorf("the question does not show the plan escaped:\n%s", out)
	}
	p.answer("n")
	if code := p.wait(); code != 1 || panes() != before {
		t.Fatalf("answer n: exit %d, %d panes (was %d):\n%s", code, panes(), before, p.text())
	}

	// "y" runs it and trusts this content.
	p = startPTY(t, s.clientEnv(), s.dir, "up", spec)
	p.waitFor("[y/N] ")
	p.answer("y")
	if code := p.wait(); code != 0 {
		t.Fatalf("answer y: exit %d:\n%s", code, p.text())
	}
	s.waitOutput("trusted", `(?m)^TRUST-RAN`)
	list := s.mustCLI(nil, "trust", "--list").stdout
	if !strings.Contains(list, spec) || !strings.Contains(list, "sha256:") {
		t.Errorf("trust --list lacks the spec:\n%s", list)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "state", "paneflow", "trusted-specs.json")); err != nil {
		t.Errorf("the store is not in the state directory: %v", err)
	}
	s.mustCLI(nil, "up", spec) // trusted: no question, no terminal needed

	// Changed content is untrusted again.
	if err := os.WriteFile(spec, []byte(v1+"\n[[panes]]\ncommand = \"echo CHANGED-RAN\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.wantCode(2, []string{"changed since you trusted it"}, "up", spec)
	s.mustCLI(nil, "trust", spec)
	s.mustCLI(nil, "up", spec)
	s.mustCLI(nil, "untrust", spec)
	s.wantCode(2, []string{"is not trusted"}, "up", spec)

	// flow run is gated the same way; --yes trusts without asking.
	flowSpec := filepath.Join(repo, "flow.toml")
	if err := os.WriteFile(flowSpec, []byte("[[step]]\nid = \"f\"\npane = { command = \"echo FLOW-RAN; exec sleep 1000\" }\nready = { pattern = \"^FLOW-RAN\", timeout_secs = 30 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := panes()
	s.wantCode(2, []string{"is not trusted", "paneflow flow run --dry-run"}, "flow", "run", flowSpec)
	if panes() != n {
		t.Fatal("an untrusted flow opened panes")
	}
	s.mustCLI(nil, "flow", "run", flowSpec, "--yes")
	s.mustCLI(nil, "flow", "run", flowSpec)
}
