// Package servetest is what end-to-end test packages share to run Paneflow
// as a user would: it builds the repository's binaries once per package,
// gives each run an isolated HOME and XDG tree, and starts `paneflow
// serve` on a socket in a temporary directory, waiting until it answers.
// test/e2e, test/mcp, test/agents and test/shim use it.
//
// Every bound in it is a hang guard, generous for a loaded 2-core machine
// running race-built binaries: none asserts that anything is fast.
package servetest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// module is the import path the binaries are built from.
const module = "github.com/paneflow-go/paneflow/"

// Binary is one program for [Build].
type Binary struct {
	Pkg  string // the package below the module root, e.g. "cmd/paneflow"
	Tags string // build tags, comma separated; "" for none
	Out  string // the file name in the directory; "" for the package's base name
}

// Build compiles bins into dir with `go build`, with -race (and cgo, which
// the race detector needs) when race is true. Build's output goes to the
// test binary's stderr.
func Build(dir string, race bool, bins ...Binary) error {
	for _, b := range bins {
		out := b.Out
		if out == "" {
			out = filepath.Base(b.Pkg)
		}
		args := []string{"build", "-o", filepath.Join(dir, out)}
		if b.Tags != "" {
			args = append(args, "-tags", b.Tags)
		}
		if race {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, module+b.Pkg)...)
		if race {
			cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		}
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", b.Pkg, err)
		}
	}
	return nil
}

// Env is the environment of an isolated run whose HOME is home: the XDG
// base directories below it, the caller's PATH, a UTF-8 locale, a plain
// shell, and no 1 s sleep at the exit of race-built programs.
func Env(home string) []string {
	return []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "SHELL=/bin/sh",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "GORACE=atexit_sleep_ms=0",
	}
}

// TempDir returns a fresh directory named prefix* under the system temp
// dir, removed when the test ends. Unlike t.TempDir its path is short,
// which keeps socket paths far below the 104-byte limit.
func TempDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Ping sends system.ping to the server at sock on a fresh connection and
// returns nil when it answers pong.
func Ping(sock string) error {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(StopTimeout))
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"system.ping"}` + "\n")); err != nil {
		return err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.Contains(reply, `"pong":true`) {
		return fmt.Errorf("system.ping answered %s", strings.TrimSpace(reply))
	}
	return nil
}

// Bounds of [Start]; see the package doc.
const (
	StartTimeout = 2 * time.Minute  // serve until its socket answers
	StopTimeout  = 30 * time.Second // SIGTERM until exit
)

// Config says how to run `paneflow serve`.
type Config struct {
	Bin  string   // the paneflow binary (required)
	Sock string   // the socket path (required)
	Dir  string   // the working directory (required)
	Env  []string // the whole environment, usually Env(home) and more
	Size string   // --size; "" for 80x24
	Args []string // more serve flags (e.g. --web ADDR)
}

// Server is a running `paneflow serve`. Its fields are read-only.
type Server struct {
	Sock   string
	Proc   *proctest.Process
	Output *proctest.Buffer // its stdout and stderr, readable while it runs
}

// Start runs `paneflow serve --socket c.Sock --size c.Size` and waits until
// the socket answers system.ping. It fails the test if serve exits first
// or never answers. When the test ends, serve is sent SIGTERM and must
// exit 0 within StopTimeout (unless the test already ended it), and its
// output is logged if the test failed.
func Start(t testing.TB, c Config) *Server {
	t.Helper()
	if c.Size == "" {
		c.Size = "80x24"
	}
	s := &Server{Sock: c.Sock, Output: new(proctest.Buffer)}
	cmd := exec.Command(c.Bin, append([]string{"serve", "--socket", c.Sock, "--size", c.Size}, c.Args...)...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = c.Env, c.Dir, s.Output, s.Output
	var err error
	if s.Proc, err = proctest.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Proc.StopOrFail(t, "paneflow serve", StopTimeout)
		if t.Failed() {
			t.Logf("paneflow serve (pid %d, socket %s) output:\n%s", s.Proc.Pid(), s.Sock, proctest.Indent(s.Output.String()))
		}
	})
	deadline := time.Now().Add(StartTimeout)
	for {
		err := Ping(c.Sock)
		if err == nil {
			return s
		}
		select {
		case <-s.Proc.Exited():
			t.Fatalf("paneflow serve exited during start-up (%v); output:\n%s", s.Proc.Err(), proctest.Indent(s.Output.String()))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("paneflow serve did not answer on %s within %v (%v); output:\n%s", c.Sock, StartTimeout, err, proctest.Indent(s.Output.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
