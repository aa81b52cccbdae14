package tmuxtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// ErrControlClosed is returned by [Control.Command] once the control client
// has exited or been closed.
var ErrControlClosed = errors.New("tmuxtest: control client closed")

// ControlOptions configures a control-mode client started with
// [Server.Control].
type ControlOptions struct {
	// Session is the session to attach to; it must exist. Empty means the
	// most recently used one.
	Session string

	// Output, if not nil, is called for every %output notification: the pane
	// id (such as "%3") and the bytes the program wrote, decoded from tmux's
	// escaping, with the time the line was read. It runs on the client's
	// reader goroutine, in order, and must return quickly; data is only
	// valid during the call. tmux sends output only for panes in windows of
	// the attached session.
	Output func(pane string, data []byte, at time.Time)
}

// Control is a tmux control-mode client (tmux -C attach-session): one
// long-lived connection over which commands are sent without starting a
// process each, and on which tmux pushes the output of the attached
// session's panes as %output notifications. Create it with
// [Server.Control]; its zero value is not usable. Command may be called
// from several goroutines at once; Close is idempotent.
type Control struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   func(pane string, data []byte, at time.Time)

	stderr *proctest.Buffer

	mu      sync.Mutex // serializes writes with the order of pending
	pending []chan controlReply
	closed  bool
	exit    string // the %exit line, if tmux sent one

	done      chan struct{} // closed when the reader goroutine ends
	closeOnce sync.Once

	// attached is closed when tmux reports the client in its session
	// (%session-changed); attachOnce guards that.
	attached   chan struct{}
	attachOnce sync.Once
}

// controlReply is the output block tmux sent for one command.
type controlReply struct {
	lines []string
	err   error
}

// Control starts a control-mode client attached to o.Session. The client
// exits when [Control.Close] is called or the server dies.
func (s *Server) Control(o ControlOptions) (*Control, error) {
	args := []string{"-L", s.socket, "-f", "/dev/null", "-C", "attach-session"}
	if o.Session != "" {
		args = append(args, "-t", o.Session)
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := new(proctest.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tmuxtest: starting the control client: %v", err)
	}
	c := &Control{cmd: cmd, stdin: stdin, out: o.Output, stderr: stderr, done: make(chan struct{}), attached: make(chan struct{})}
	go c.read(stdout)
	// An answer to a command does not prove the client attached: tmux can
	// run the client's first commands before its own attach-session ends
	// (seen: split-window answered, then the attach's block and
	// %session-changed), and until then it sends no %output for the
	// session's panes. So wait for %session-changed, then for an answer.
	select {
	case <-c.attached:
	case <-c.done:
	case <-time.After(CommandTimeout):
	}
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	select {
	case <-c.attached:
	default:
		c.Close()
		return nil, fmt.Errorf("tmuxtest: control client: not attached to a session within %v (%s)", CommandTimeout, strings.TrimSpace(stderr.String()))
	}
	if _, err := c.Command(ctx, "display-message -p attached"); err != nil {
		c.Close()
		return nil, fmt.Errorf("tmuxtest: control client: %v", err)
	}
	return c, nil
}

// Command sends one tmux command line (tmux's own syntax, e.g.
// `split-window -d -t s: 'echo hi; sleep 9'`) and returns the lines of its
// output. A command tmux rejects returns an error holding tmux's message.
// When ctx ends first the command may still run; its reply is discarded.
func (c *Control) Command(ctx context.Context, line string) ([]string, error) {
	if strings.ContainsAny(line, "\r\n") {
		return nil, fmt.Errorf("tmuxtest: control command %q: contains a line break", line)
	}
	ch := make(chan controlReply, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrControlClosed
	}
	// The reply order is the write order, so both happen under mu.
	c.pending = append(c.pending, ch)
	_, err := io.WriteString(c.stdin, line+"\n")
	c.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("tmuxtest: control command %q: %v", line, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return r.lines, fmt.Errorf("tmuxtest: control command %q: %w", line, r.err)
		}
		return r.lines, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close detaches the client and waits for it to exit.
func (c *Control) Close() {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		_ = c.stdin.Close() // EOF on stdin makes tmux -C exit
		c.mu.Unlock()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
		_ = c.cmd.Wait()
	})
}

// read parses the client's output until it ends: %begin/%end/%error
// blocks answer commands in order; %output lines go to the Output
// callback; other notifications are ignored.
func (c *Control) read(r io.Reader) {
	defer close(c.done)
	defer c.failPending()
	br := bufio.NewReaderSize(r, 256<<10)
	var (
		inBlock bool
		ours    bool // the block answers a command this client sent
		block   []string
		buf     []byte
	)
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: only command output can be
			// that long; keep it whole.
			rest, err2 := br.ReadBytes('\n')
			raw, err = append(bytes.Clone(raw), rest...), err2
		}
		if len(raw) == 0 && err != nil {
			return
		}
		at := time.Now()
		line := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		switch {
		case inBlock && (bytes.HasPrefix(line, []byte("%end ")) || bytes.HasPrefix(line, []byte("%error "))):
			inBlock = false
			if ours {
				rep := controlReply{lines: block}
				if bytes.HasPrefix(line, []byte("%error ")) {
					rep.err = errors.New(strings.Join(block, "\n"))
				}
				c.deliver(rep)
			}
			block = nil
		case inBlock:
			block = append(block, string(line))
		case bytes.HasPrefix(line, []byte("%begin ")):
			// %begin <time> <command number> <flags>: flags 1 marks a
			// command from this client, 0 one tmux ran itself (the
			// attach).
			f := bytes.Fields(line)
			inBlock, ours, block = true, len(f) >= 4 && string(f[3]) == "1", nil
		case bytes.HasPrefix(line, []byte("%session-changed ")):
			c.attachOnce.Do(func() { close(c.attached) })
		case bytes.HasPrefix(line, []byte("%exit")):
			c.mu.Lock()
			c.exit = string(line)
			c.mu.Unlock()
		case bytes.HasPrefix(line, []byte("%output ")):
			if c.out == nil {
				break
			}
			rest := line[len("%output "):]
			pane, data, ok := bytes.Cut(rest, []byte(" "))
			if !ok {
				break
			}
			buf = unescapeOutput(buf[:0], data)
			c.out(string(pane), buf, at)
		}
		if err != nil {
			return
		}
	}
}

// deliver hands a reply to the oldest waiting command.
func (c *Control) deliver(r controlReply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return
	}
	ch := c.pending[0]
	c.pending = c.pending[1:]
	ch <- r
}

// failPending answers every waiting command once the client is gone.
func (c *Control) failPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	err := ErrControlClosed
	if why := strings.TrimSpace(c.exit + " " + c.stderr.String()); why != "" {
		err = fmt.Errorf("%w (%s)", ErrControlClosed, why)
	}
	for _, ch := range c.pending {
		ch <- controlReply{err: err}
	}
	c.pending = nil
}

// unescapeOutput appends data to dst with tmux's escaping undone: control
// mode writes bytes below 32 and the backslash as a backslash and three
// octal digits.
func unescapeOutput(dst, data []byte) []byte {
	for i := 0; i < len(data); i++ {
		b := data[i]
		if b == '\\' && i+3 < len(data) && isOctal(data[i+1]) && isOctal(data[i+2]) && isOctal(data[i+3]) {
			dst = append(dst, (data[i+1]-'0')<<6|(data[i+2]-'0')<<3|(data[i+3]-'0'))
			i += 3
			continue
		}
		dst = append(dst, b)
	}
	return dst
}

func isOctal(b byte) bool { return b >= '0' && b <= '7' }
