package remote

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// EnvHost names the environment variable that sends every CLI verb to a
// host, as --host does: ssh://[user@]host[:port].
const EnvHost = "PANEFLOW_HOST"

// EnvSSH names the environment variable holding the ssh command to run
// (default "ssh"), split on spaces, e.g. "ssh -F /path/config": like
// GIT_SSH_COMMAND, for a config or options of its own.
const EnvSSH = "PANEFLOW_SSH"

// Host is a remote host as the user named it. Its zero value is not a
// host; build it with [ParseHost].
type Host struct {
	User string // "" for ssh's default (the config's, else the local user)
	Name string // a host name, an address, or a Host alias of the ssh config
	Port int    // 0 for ssh's default
}

// ParseHost parses ssh://[user@]host[:port], or the same without the
// scheme. A name may be an alias of the user's ssh config. Anything that
// could be read as an ssh option, or another scheme, is an error.
func ParseHost(s string) (Host, error) {
	raw := s
	if !strings.Contains(s, "://") {
		s = "ssh://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "ssh" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return Host{}, fmt.Errorf("host %q: want ssh://[user@]host[:port]", raw)
	}
	if _, set := u.User.Password(); set {
		return Host{}, fmt.Errorf("host %q: no password in the address; ssh asks for it, or use a key", raw)
	}
	h := Host{User: u.User.Username(), Name: u.Hostname()}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Host{}, fmt.Errorf("host %q: port must be 1-65535", raw)
		}
		h.Port = n
	}
	if h.Name == "" || strings.HasPrefix(h.Name, "-") || strings.HasPrefix(h.User, "-") ||
		strings.ContainsAny(h.Name+h.User, " \t\r\n'\"\\;&|$`") {
		return Host{}, fmt.Errorf("host %q: not a host name", raw)
	}
	return h, nil
}

// String returns the host as ssh://[user@]host[:port].
func (h Host) String() string {
	s := "ssh://"
	if h.User != "" {
		s += h.User + "@"
	}
	name := h.Name
	if strings.Contains(name, ":") {
		name = "[" + name + "]"
	}
	s += name
	if h.Port != 0 {
		s += ":" + strconv.Itoa(h.Port)
	}
	return s
}

// Env is how this process finds its ssh: getenv for [EnvSSH] (nil means
// no environment: plain "ssh").
type Env struct {
	Getenv func(string) string

	batch bool // ssh may not ask anything (-o BatchMode=yes): a link's
}

// sshArgv returns the ssh program and its options: $PANEFLOW_SSH split on
// spaces, or "ssh".
func (e Env) sshArgv() []string {
	if e.Getenv != nil {
		if f := strings.Fields(e.Getenv(EnvSSH)); len(f) > 0 {
			return f
		}
	}
	return []string{"ssh"}
}

// remoteScript finds paneflow on the remote host and runs it with the
// arguments: the login shell's PATH first, then ~/.local/bin (where
// `paneflow host install` puts it, and which a non-interactive shell's
// PATH often lacks). PANEFLOW_HOST is cleared there, so a remote verb
// never goes on to a further host. It is POSIX sh, run with sh -c
// whatever the user's login shell is, and holds no single quote.
const remoteScript = `unset PANEFLOW_HOST; p=$(command -v paneflow 2>/dev/null) || p="$HOME/.local/bin/paneflow"; exec "$p" "$@"`

// command returns ssh running paneflow with args on h. tty asks for a
// terminal (-t: a question to answer, Ctrl-C to pass on), else none (-T).
func (h Host) command(e Env, tty bool, args ...string) *exec.Cmd {
	return h.shell(e, tty, remoteScript, append([]string{"paneflow"}, args...)...)
}

// shell returns ssh running `sh -c script args...` on h (args[0] is $0).
// ssh hands the remote command to the user's login shell as one string,
// so each word is quoted for it (single quotes, which sh, bash, zsh and
// fish read alike).
func (h Host) shell(e Env, tty bool, script string, args ...string) *exec.Cmd {
	argv := e.sshArgv()
	if tty {
		argv = append(argv, "-t")
	} else {
		argv = append(argv, "-T")
	}
	// No agent or X11 forwarding: the bridge needs neither.
	argv = append(argv, "-a", "-x")
	if e.batch {
		argv = append(argv, "-o", "BatchMode=yes")
	}
	if h.Port != 0 {
		argv = append(argv, "-p", strconv.Itoa(h.Port))
	}
	if h.User != "" {
		argv = append(argv, "-l", h.User)
	}
	words := []string{"sh", "-c", shellQuote(script)}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	argv = append(argv, "--", h.Name, strings.Join(words, " "))
	cmd := exec.Command(argv[0], argv[1:]...)
	// An ssh that starts a ControlPersist master leaves it holding the
	// stderr we read: Wait must not wait for that master's end.
	cmd.WaitDelay = time.Second
	return cmd
}

// shellQuote quotes s as one word for a POSIX shell (and fish).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// NotInstalledError reports a host without a usable paneflow: none found,
// or one older than the bridge.
type NotInstalledError struct {
	Host   Host
	Old    bool   // a paneflow that has no bridge verb
	Detail string // the remote shell's message
}

func (e *NotInstalledError) Error() string {
	what := "paneflow is not installed on " + e.Host.String()
	if e.Old {
		what = "the paneflow on " + e.Host.String() + " is too old to have `paneflow bridge`"
	}
	if e.Detail != "" {
		what += " (" + e.Detail + ")"
	}
	return what + "; run `paneflow host install " + e.Host.String() + "` to copy this build there (into ~/.local/bin), or install the same version there yourself"
}

// IncompatibleError reports a bridge of another protocol version.
type IncompatibleError struct {
	Host   Host
	Remote Hello
}

func (e *IncompatibleError) Error() string {
	return fmt.Sprintf("the paneflow on %s (%s, bridge protocol %d) cannot talk to this one (bridge protocol %d); run `paneflow host install %s` to put this build there",
		e.Host, e.Remote.Version, e.Remote.Protocol, ProtocolVersion, e.Host)
}

// SSHError reports that ssh could not connect or ended.
type SSHError struct {
	Host   Host
	Err    error
	Stderr string // ssh's last words, if any
}

func (e *SSHError) Error() string {
	s := fmt.Sprintf("ssh to %s: %v", e.Host, e.Err)
	if t := strings.TrimSpace(e.Stderr); t != "" {
		s += ": " + t
	}
	return s
}

func (e *SSHError) Unwrap() error { return e.Err }

// ChannelError is the bridge's reason for closing a connection, e.g. that
// no Paneflow server runs on the host, or nothing answers on a forwarded
// port.
type ChannelError struct {
	Host Host
	Port int // the TCP port of a [Conn.OpenTCP] channel; 0 for the socket's
	Msg  string
}

func (e *ChannelError) Error() string {
	if e.Port != 0 {
		return fmt.Sprintf("on %s, port %d: %s", e.Host, e.Port, e.Msg)
	}
	return fmt.Sprintf("on %s: %s (is `paneflow serve` running there?)", e.Host, e.Msg)
}

// LinkError is a link's failure to start, as it reported it. SSH is set
// when ssh itself failed, which an ssh with a terminal might not (it can
// ask for a passphrase or a host key's confirmation).
type LinkError struct {
	Host Host
	SSH  bool
	Msg  string
}

func (e *LinkError) Error() string { return e.Msg }

// AsError returns the error of this package inside err (a host without
// paneflow, another bridge version, ssh's failure, a link's, a refused
// channel), so that a caller can show it instead of the transport's
// wrapping of it; nil when there is none.
func AsError(err error) error {
	var (
		ni *NotInstalledError
		ie *IncompatibleError
		se *SSHError
		le *LinkError
		ce *ChannelError
	)
	switch {
	case errors.As(err, &ni):
		return ni
	case errors.As(err, &ie):
		return ie
	case errors.As(err, &le):
		return le
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &se):
		return se
	}
	return nil
}
