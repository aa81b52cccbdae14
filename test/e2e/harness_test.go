package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bin is the paneflow binary built once for the whole package (with -race
// when the tests themselves run with it).
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "paneflow-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "paneflow")
	args := []string{"build", "-tags", "nogui", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/paneflow-go/paneflow/cmd/paneflow")
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building paneflow:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a running `paneflow serve`.
type server struct {
	t      testing.TB
	sock   string
	dir    string
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	env    []string
}

// baseEnv is the environment every process of a test gets: an isolated
// XDG tree, a UTF-8 locale and a plain shell.
func baseEnv(dir string) []string {
	env := []string{
		"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "SHELL=/bin/sh",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"GORACE=atexit_sleep_ms=0",
	}
	return env
}

// startServer runs `paneflow serve` on a socket in a fresh temp dir. extra
// adds environment variables (e.g. PANEFLOW_IPC_SCRIPTING=1).
func startServer(t testing.TB, extra ...string) *server {
	t.Helper()
	dir, err := os.MkdirTemp("", "pf-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &server{t: t, dir: dir, sock: filepath.Join(dir, "pf.sock"), stderr: new(bytes.Buffer)}
	s.env = append(baseEnv(dir), extra...)
	s.cmd = exec.Command(bin, "serve", "--socket", s.sock, "--size", "80x24")
	s.cmd.Env = s.env
	s.cmd.Dir = dir
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("unix", s.sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up; stderr:\n%s", s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Errorf("server exited with %v after SIGTERM; stderr:\n%s", err, s.stderr)
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
		s.t.Errorf("server did not exit within 30s of SIGTERM; stderr:\n%s", s.stderr)
	}
}

// result is one CLI run.
type result struct {
	stdout, stderr string
	code           int
}

// cli runs the paneflow CLI against s.
func (s *server) cli(args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append([]string{}, s.env...), "PANEFLOW_SOCKET_PATH="+s.sock)
	cmd.Dir = s.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("paneflow %s: %v", strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

// mustCLI runs the CLI and fails the test unless it exits 0; it decodes
// stdout as JSON into v when v is not nil.
func (s *server) mustCLI(v any, args ...string) result {
	s.t.Helper()
	r := s.cli(args...)
	if r.code != 0 {
		s.t.Fatalf("paneflow %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
			s.t.Fatalf("paneflow %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, r.stdout)
		}
	}
	return r
}

// rpc sends one raw JSON-RPC line on a fresh connection and returns the
// reply line.
func (s *server) rpc(line string) string {
	s.t.Helper()
	c, err := net.Dial("unix", s.sock)
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		s.t.Fatal(err)
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		s.t.Fatalf("reading reply to %s: %v", line, err)
	}
	return strings.TrimSpace(reply)
}
