//go:build linux

package remote

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/servetest"
	"github.com/paneflow-go/paneflow/test/internal/sshdtest"
)

// Hang guards for a loaded 2-core machine running race-built binaries;
// nothing here asserts speed.
const (
	cliTimeout  = 120 * time.Second
	pollTimeout = 30 * time.Second
)

// binDir holds the binaries as installed (race-built when the tests are):
// paneflow (the client build), paneflow-server, paneflow-mcp. staticDir
// holds static, non-race builds of the same, which `host install` copies.
var binDir, staticDir string

func TestMain(m *testing.M) {
	if f := os.Getenv(envHTTPFile); f != "" {
		os.Exit(serveHTTP(f))
	}
	dir, err := os.MkdirTemp("", "paneflow-remote-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir, staticDir = filepath.Join(dir, "bin"), filepath.Join(dir, "static")
	err = servetest.Build(binDir, raceEnabled,
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui,client"},
		servetest.Binary{Pkg: "cmd/paneflow", Tags: "nogui", Out: "paneflow-server"},
		servetest.Binary{Pkg: "cmd/paneflow-mcp"},
	)
	if err == nil {
		err = buildStatic(staticDir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "remote:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildStatic builds the client and server as `make build` does
// (CGO_ENABLED=0), the builds `host install` accepts.
func buildStatic(dir string) error {
	for _, b := range []struct{ tags, out string }{{"nogui,client", "paneflow"}, {"nogui", "paneflow-server"}} {
		cmd := exec.Command("go", "build", "-tags", b.tags, "-o", filepath.Join(dir, b.out), "github.com/paneflow-go/paneflow/cmd/paneflow")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", b.out, err)
		}
	}
	return nil
}

// The sshd ports of a world, each a kind of remote host.
const (
	portMain     = iota // paneflow on PATH, its server running
	portBare            // no paneflow at all (host install's target)
	portFake            // a paneflow of another bridge protocol, and uname says another machine
	portOld             // a paneflow older than the bridge
	portNoServer        // paneflow, but no server on the socket it finds
	nPorts
)

// world is one test's machines: the local side (its own HOME, no local
// server: PANEFLOW_SOCKET_PATH names a socket nothing serves) and the
// remote host behind sshd.
type world struct {
	t        *testing.T
	dir      string
	remote   string // the remote host's HOME (its panes' cwd)
	bareHome string // the bare host's HOME
	sshd     *sshdtest.Server
	server   *servetest.Server
	localEnv []string
}

// newWorld starts the remote server and sshd.
func newWorld(t *testing.T) *world {
	t.Helper()
	dir := servetest.TempDir(t, "pfr")
	w := &world{t: t, dir: dir, remote: filepath.Join(dir, "r"), bareHome: filepath.Join(dir, "bare")}
	for _, d := range []string{w.remote, w.bareHome, filepath.Join(dir, "l"), filepath.Join(dir, "fake"), filepath.Join(dir, "old"), filepath.Join(dir, "ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	rsock := filepath.Join(w.remote, "s.sock")
	renv := servetest.Env(w.remote)
	w.server = servetest.Start(t, servetest.Config{Bin: filepath.Join(binDir, "paneflow"), Sock: rsock, Dir: w.remote,
		Env: append(renv, "PANEFLOW_IPC_SCRIPTING=1", "PANEFLOW_SOCKET_PATH="+rsock)})

	// The fake host's paneflow speaks bridge protocol 99 and its uname
	// is another machine's; the old host's paneflow has no bridge verb.
	otherArch := "aarch64"
	if runtime.GOARCH == "arm64" {
		otherArch = "x86_64"
	}
	script := func(path, body string) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script(filepath.Join(dir, "fake", "paneflow"), `echo "PANEFLOW-BRIDGE 99 linux amd64 v9.9.9"; cat >/dev/null`)
	script(filepath.Join(dir, "fake", "uname"), `case "$1" in -s) echo Linux;; -m) echo `+otherArch+`;; esac`)
	script(filepath.Join(dir, "old", "paneflow"), `echo "paneflow: unknown verb 'bridge'; see paneflow --help for the verb list" >&2; exit 2`)

	xdg := func(home string) []string {
		var env []string
		for _, kv := range servetest.Env(home) {
			if strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "LANG=") || strings.HasPrefix(kv, "GORACE=") {
				env = append(env, kv)
			}
		}
		return env
	}
	ports := make([]sshdtest.Port, nPorts)
	ports[portMain].Env = append(xdg(w.remote), "PATH="+binDir+":/usr/bin:/bin", "PANEFLOW_SOCKET_PATH="+rsock)
	ports[portBare].Env = append(xdg(w.bareHome), "PATH=/usr/bin:/bin", "PANEFLOW_SOCKET_PATH="+rsock)
	ports[portFake].Env = append(xdg(w.bareHome), "PATH="+filepath.Join(dir, "fake")+":/usr/bin:/bin")
	ports[portOld].Env = append(xdg(w.bareHome), "PATH="+filepath.Join(dir, "old")+":/usr/bin:/bin")
	ports[portNoServer].Env = append(xdg(w.remote), "PATH="+binDir+":/usr/bin:/bin", "PANEFLOW_SOCKET_PATH="+filepath.Join(dir, "none.sock"))
	w.sshd = sshdtest.Start(t, sshdtest.Config{Dir: filepath.Join(dir, "ssh"), Ports: ports})

	lhome := filepath.Join(dir, "l")
	w.localEnv = append(servetest.Env(lhome), "PANEFLOW_SSH="+w.sshd.SSHCommand(), "PANEFLOW_SOCKET_PATH="+filepath.Join(lhome, "nothing.sock"))
	// Runs before sshd and the server stop: each host's link ends (its
	// ssh, so sshd's session too).
	t.Cleanup(func() {
		for i := range nPorts {
			w.cli(nil, "host", "close", w.url(i))
		}
	})
	return w
}

// url is the ssh:// address of port i.
func (w *world) url(i int) string { return w.sshd.URL(i) }

// result is one CLI run.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// cli runs the local paneflow with args (and env added to the local
// environment) and returns what it did.
func (w *world) cli(env []string, args ...string) result {
	return w.run(filepath.Join(binDir, "paneflow"), env, args...)
}

// run runs a program of the local side.
func (w *world) run(bin string, env []string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append([]string(nil), w.localEnv...), env...)
	cmd.Dir = filepath.Join(w.dir, "l")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), code: cmd.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		w.t.Fatalf("%s %v: %v\n%s", bin, args, err, r)
	}
	return r
}

// host runs the local paneflow with --host url and the args, failing the
// test unless it exits 0.
func (w *world) host(port int, args ...string) result {
	w.t.Helper()
	r := w.cli(nil, append([]string{"--host", w.url(port)}, args...)...)
	if r.code != 0 {
		w.t.Fatalf("paneflow --host %s %v:\n%s", w.url(port), args, r)
	}
	return r
}

// writeRemote writes a file on the remote host (its HOME) and returns its
// absolute path.
func (w *world) writeRemote(rel, text string) string {
	w.t.Helper()
	p := filepath.Join(w.remote, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}
