package vtrelay

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"time"
)

// EnvControl names the environment variable that carries the harness's
// socket path to a relay started as a terminal's program ([Main]).
const EnvControl = "PANEFLOW_VTRELAY"

// Kinds of [Event].
const (
	// KindPage: vttest shows a test's result and waits for Return
	// ("Push <RETURN>").
	KindPage = "page"
	// KindMenu: vttest shows a menu and waits for a choice.
	KindMenu = "menu"
	// KindOther: vttest waits for input of another kind, usually a reply
	// the terminal did not send (any key ends the wait).
	KindOther = "other"
	// KindExit: vttest ended; Exit says how. No Command follows.
	KindExit = "exit"
)

// Event is one settled state of vttest, sent by the relay to the harness.
type Event struct {
	// Seq counts events from 1.
	Seq int `json:"seq"`
	// Kind is KindPage, KindMenu, KindOther or KindExit.
	Kind string `json:"kind"`
	// Menu is the path of the menu vttest last named in Text ("11.3"),
	// "" for the main menu, [MenuUnnamed] when Text names none (vttest's
	// menu of known bugs has no title line).
	Menu string `json:"menu"`
	// Text is what vttest printed since the last keys, control
	// sequences removed.
	Text string `json:"text"`
	// Row and Col are the cursor position the terminal reported (CPR,
	// from 1; relative to the margins in origin mode, as CPR is).
	Row int `json:"row"`
	Col int `json:"col"`
	// Exit is vttest's end ("exit status 0", "signal: terminated") for
	// KindExit.
	Exit string `json:"exit,omitempty"`
	// Notes are anomalies the relay worked around, e.g. output that
	// stopped inside a control sequence.
	Notes []string `json:"notes,omitempty"`
}

// Command is the harness's answer to an Event: the keys vttest reads
// next, or bytes for the terminal under test.
type Command struct {
	Keys string `json:"keys,omitempty"`
	// Out, when set, is written to the terminal under test instead of
	// giving vttest keys (Keys must be empty): e.g. a print-screen
	// request (MC, CSI i) that makes xterm write its screen to its
	// printer command. The relay follows it with a status request and,
	// once that is answered (the terminal has acted on Out), reports
	// the same settled state again as a new Event.
	Out string `json:"out,omitempty"`
}

var (
	menuTitle  = regexp.MustCompile(`Menu ([0-9]+(?:\.[0-9]+)*): `)
	menuPrompt = regexp.MustCompile(`(Enter choice number \(0 - [0-9]+\)|Bad choice, try again): *$`)
)

// MenuUnnamed is [Event.Menu] when vttest's output names no menu.
const MenuUnnamed = "?"

// mainTitle starts the main menu's first line, which names no menu path.
const mainTitle = "VT100 test program, version"

// classify returns the kind of wait text ends in and the menu it names.
func classify(text string) (kind, menu string) {
	t := strings.TrimRight(text, " ")
	switch {
	case strings.HasSuffix(t, "Push <RETURN>"):
		kind = KindPage
	case menuPrompt.MatchString(text):
		kind = KindMenu
	default:
		kind = KindOther
	}
	menu = MenuUnnamed
	main := strings.LastIndex(text, mainTitle)
	if main >= 0 {
		menu = ""
	}
	if m := menuTitle.FindAllStringSubmatchIndex(text, -1); len(m) > 0 {
		if last := m[len(m)-1]; main < last[0] {
			menu = text[last[2]:last[3]]
		}
	}
	return kind, menu
}

// Listener is the harness's end: a Unix socket the relay connects to.
type Listener struct {
	ln   *net.UnixListener
	path string
}

// Listen listens on a new Unix socket at path.
func Listen(path string) (*Listener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("vtrelay: %w", err)
	}
	return &Listener{ln: ln, path: path}, nil
}

// Path is the socket's path, the value of [EnvControl] for the relay.
func (l *Listener) Path() string { return l.path }

// Accept waits until deadline for the relay to connect.
func (l *Listener) Accept(deadline time.Time) (*Conn, error) {
	if err := l.ln.SetDeadline(deadline); err != nil {
		return nil, err
	}
	c, err := l.ln.AcceptUnix()
	if err != nil {
		return nil, fmt.Errorf("vtrelay: the relay did not connect: %w", err)
	}
	return &Conn{c: c, r: bufio.NewReader(c)}, nil
}

// Close stops listening and removes the socket file.
func (l *Listener) Close() error {
	err := l.ln.Close()
	_ = os.Remove(l.path)
	return err
}

// Conn is the harness's connection to one relay.
type Conn struct {
	c *net.UnixConn
	r *bufio.Reader
}

// ErrClosed is returned by [Conn.Next] when the relay went away without
// reporting vttest's exit.
var ErrClosed = errors.New("vtrelay: the relay closed the connection")

// Next waits until deadline for the next event.
func (c *Conn) Next(deadline time.Time) (Event, error) {
	if err := c.c.SetReadDeadline(deadline); err != nil {
		return Event{}, err
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return Event{}, fmt.Errorf("vtrelay: no settled state before the deadline: %w", err)
		}
		return Event{}, ErrClosed
	}
	var e Event
	if err := json.Unmarshal(line, &e); err != nil {
		return Event{}, fmt.Errorf("vtrelay: bad event %q: %w", line, err)
	}
	return e, nil
}

// Send gives vttest its next keys.
func (c *Conn) Send(keys string) error { return c.send(Command{Keys: keys}) }

// SendTerminal writes out to the terminal under test ([Command.Out]);
// [Conn.Next] then returns the same settled state once the terminal
// has acted on it.
func (c *Conn) SendTerminal(out string) error { return c.send(Command{Out: out}) }

func (c *Conn) send(cmd Command) error {
	b, _ := json.Marshal(cmd) // a struct of strings always encodes
	_, err := c.c.Write(append(b, '\n'))
	return err
}

// Close closes the connection; the relay then ends vttest.
func (c *Conn) Close() error { return c.c.Close() }
