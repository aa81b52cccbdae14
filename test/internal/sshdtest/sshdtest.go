// Package sshdtest runs a real OpenSSH server (Debian's openssh-server,
// which scripts/deps.sh installs) on loopback for tests of `paneflow
// --host`: its own host key, a generated user key and authorized_keys,
// its own sshd_config (no system configuration, no PAM, StrictModes off so
// the temp directory's modes do not matter), as the current user (root in
// CI), and an ssh_config for the real ssh client that trusts exactly that
// host key (UserKnownHostsFile in the temp directory).
//
// The test holds each listening socket and runs `sshd -i` (inetd mode)
// for every connection it accepts, so no port is chosen free and bound
// later by another process.
//
// Each [Port] is a listening port whose sessions get their own
// environment (sshd's SetEnv under Match LocalPort): the "remote" host's
// PATH, HOME, XDG directories and socket, so a paneflow run by ssh there
// reaches a separate paneflow server. HOME is a directory of the test's,
// so the user's own shell start-up files are not read.
//
// Every bound in it is a hang guard, not a speed check.
package sshdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// Port is one listening port and the environment of its sessions.
type Port struct {
	Env []string // KEY=VALUE, without spaces or quotes in the values
}

// Config says how to run sshd.
type Config struct {
	Dir   string // a private directory for keys, configs and logs (required)
	Ports []Port // at least one
	// ControlMaster makes the client config share one connection per
	// host (ControlMaster auto, ControlPersist) as a user might.
	ControlMaster bool
}

// Server is a running sshd. Its fields are read-only.
type Server struct {
	Ports     []int  // the listening ports, in Config.Ports' order
	User      string // the login user (the current one)
	SSHConfig string // the ssh client config to use (ssh -F)
	sessions  *sessions
	Output    *proctest.Buffer

	clientOpts string // the client config's options for the test's hosts
}

// SSHCommand returns the ssh command line that uses the test's config
// (for PANEFLOW_SSH).
func (s *Server) SSHCommand() string { return "ssh -F " + s.SSHConfig }

// URL returns ssh://user@127.0.0.1:port for the i-th port.
func (s *Server) URL(i int) string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d", s.User, s.Ports[i])
}

// sshdPath finds sshd, which is not on a normal user's PATH.
func sshdPath() (string, error) {
	if _, err := os.Stat("/usr/sbin/sshd"); err == nil {
		return "/usr/sbin/sshd", nil
	}
	p, err := exec.LookPath("sshd")
	if err != nil {
		return "", fmt.Errorf("sshd is not installed (scripts/deps.sh installs openssh-server): %v", err)
	}
	return p, nil
}

// Start generates the keys and configs in c.Dir, starts sshd on free
// loopback ports and waits until it listens. sshd is stopped when the
// test ends.
func Start(t testing.TB, c Config) *Server {
	t.Helper()
	sshd, err := sshdPath()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Fatalf("ssh is not installed (scripts/deps.sh installs openssh-client): %v", err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// sshd running as root wants its privilege separation directory,
		// which the package's service would have made.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := func(name string) string {
		p := filepath.Join(c.Dir, name)
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "paneflow-test", "-f", p).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		return p
	}
	hostKey, userKey := key("host_key"), key("user_key")
	pub, err := os.ReadFile(userKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(c.Dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{User: u.Username, Output: new(proctest.Buffer), SSHConfig: filepath.Join(c.Dir, "ssh_config")}
	// The test holds the listening sockets and runs `sshd -i` (inetd
	// mode) on each connection: no port is picked free and then bound by
	// sshd, which another process could take in between (CI once lost
	// one: "Bind to port … failed: Address already in use").
	var lns []net.Listener
	for range c.Ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		s.Ports = append(s.Ports, ln.Addr().(*net.TCPAddr).Port)
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `HostKey %s
AuthorizedKeysFile %s
PidFile %s
AllowUsers %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
PermitUserEnvironment no
X11Forwarding no
PrintMotd no
MaxStartups 200
MaxSessions 200
LogLevel VERBOSE
`, hostKey, authorized, filepath.Join(c.Dir, "sshd.pid"), u.Username)
	for i, p := range c.Ports {
		fmt.Fprintf(&cfg, "Match LocalPort %d\n  SetEnv %s\n", s.Ports[i], strings.Join(p.Env, " "))
	}
	sshdConfig := filepath.Join(c.Dir, "sshd_config")
	if err := os.WriteFile(sshdConfig, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var known strings.Builder
	var opts strings.Builder
	fmt.Fprintf(&opts, "  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  BatchMode yes\n  LogLevel ERROR\n",
		u.Username, userKey, filepath.Join(c.Dir, "known_hosts"))
	if c.ControlMaster {
		fmt.Fprintf(&opts, "  ControlMaster auto\n  ControlPath %s\n  ControlPersist 60\n", filepath.Join(c.Dir, "cm-%C"))
	}
	s.clientOpts = opts.String()
	client := strings.Builder{}
	client.WriteString("Host 127.0.0.1\n" + s.clientOpts)
	for _, p := range s.Ports {
		fmt.Fprintf(&known, "[127.0.0.1]:%d %s", p, hostPub)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "known_hosts"), []byte(known.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.SSHConfig, []byte(client.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sshd, "-t", "-f", sshdConfig).CombinedOutput(); err != nil {
		t.Fatalf("sshd -t: %v\n%s", err, out)
	}
	s.sessions = new(sessions)
	for _, ln := range lns {
		go s.sessions.serve(ln, sshd, sshdConfig, s.Output)
	}
	t.Cleanup(func() {
		if c.ControlMaster {
			for i := range s.Ports {
				exec.Command("ssh", "-F", s.SSHConfig, "-O", "exit", "-p", fmt.Sprint(s.Ports[i]), "127.0.0.1").Run()
			}
		}
		for _, ln := range lns {
			ln.Close()
		}
		s.sessions.stop()
		if t.Failed() {
			t.Logf("sshd output:\n%s", proctest.Indent(s.Output.String()))
		}
	})
	return s
}

// sessions are the `sshd -i` processes serving accepted connections. Its
// methods are safe for concurrent use.
type sessions struct {
	mu      sync.Mutex
	stopped bool
	procs   []*exec.Cmd
	wg      sync.WaitGroup
}

// serve runs `sshd -i` on each connection ln accepts, until ln closes.
func (ss *sessions) serve(ln net.Listener, sshd, config string, out *proctest.Buffer) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		f, err := nc.(*net.TCPConn).File()
		nc.Close()
		if err != nil {
			fmt.Fprintf(out, "sshdtest: %v\n", err)
			continue
		}
		cmd := exec.Command(sshd, "-i", "-e", "-f", config)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = f, f, out
		ss.mu.Lock()
		if ss.stopped {
			ss.mu.Unlock()
			f.Close()
			return
		}
		err = cmd.Start()
		if err == nil {
			ss.procs = append(ss.procs, cmd)
			ss.wg.Add(1)
			go func() { defer ss.wg.Done(); cmd.Wait() }()
		}
		ss.mu.Unlock()
		f.Close()
		if err != nil {
			fmt.Fprintf(out, "sshdtest: starting sshd -i: %v\n", err)
		}
	}
}

// stop ends every session's sshd and waits for them.
func (ss *sessions) stop() {
	ss.mu.Lock()
	ss.stopped = true
	for _, cmd := range ss.procs {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	ss.mu.Unlock()
	ss.wg.Wait()
}

// Delayed returns the address of the i-th port through a proxy that holds
// every chunk of the TCP stream for oneWay in each direction (a round trip
// of 2×oneWay, where tc netem is not at hand: it needs the kernel's
// sch_netem), under a host alias of the client config (HostKeyAlias keeps
// the same host key). The proxy stops when the test ends.
func (s *Server) Delayed(t testing.TB, i int, oneWay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	target := fmt.Sprintf("127.0.0.1:%d", s.Ports[i])
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				done := make(chan struct{}, 2)
				go func() { delayCopy(up, c, oneWay); done <- struct{}{} }()
				go func() { delayCopy(c, up, oneWay); done <- struct{}{} }()
				<-done
			}()
		}
	}()
	alias := fmt.Sprintf("delayed-%d", i)
	t.Cleanup(func() { exec.Command("ssh", "-F", s.SSHConfig, "-O", "exit", alias).Run() })
	cfg, err := os.ReadFile(s.SSHConfig)
	if err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf("Host %s\n  HostName 127.0.0.1\n  Port %d\n  HostKeyAlias [127.0.0.1]:%d\n%s", alias, ln.Addr().(*net.TCPAddr).Port, s.Ports[i], s.clientOpts)
	if err := os.WriteFile(s.SSHConfig, append(cfg, extra...), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("ssh://%s@%s", s.User, alias)
}

// delayCopy copies src to dst, each chunk written oneWay after it was
// read, in order.
func delayCopy(dst, src net.Conn, oneWay time.Duration) {
	type chunk struct {
		due  time.Time
		data []byte
	}
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		buf := make([]byte, 64<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{time.Now().Add(oneWay), append([]byte(nil), buf[:n]...)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}
