//go:build unix

package remote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
)

// LinksSupported reports whether this system keeps links ([RunLink]).
const LinksSupported = true

// RunLink is `paneflow host link HOST`, started by [EnsureLink]: it dials
// h ([Dial]), listens on [LinkPath] (private: 0600 in a 0700 directory,
// peers of another user refused) and relays each connection made there
// to a channel of the bridge, so a CLI call costs a local connection and
// the round trip, not an ssh start. It writes "ok\n" or "error
// <message>\n" to ready once it serves (or failed), then exits when ctx
// ends, ssh ends, or no connection was open for persist. Another link
// already serving the path is success: that one is used.
func RunLink(ctx context.Context, h Host, e Env, persist time.Duration, ready io.WriteCloser) error {
	tell := func(err error) {
		if ready == nil {
			return
		}
		if err != nil {
			kind := "other"
			var se *SSHError
			if errors.As(err, &se) {
				kind = "ssh"
			}
			fmt.Fprintf(ready, "error %s %s\n", kind, strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			io.WriteString(ready, "ok\n")
		}
		ready.Close()
		ready = nil
	}
	path, err := LinkPath(h, e)
	if err != nil {
		tell(err)
		return err
	}
	// The link has no terminal: ssh must not wait for a question nobody
	// sees (the CLI then connects with an ssh of its own, which can ask).
	e.batch = true
	c, err := Dial(ctx, h, e)
	if err != nil {
		tell(err)
		return err
	}
	defer c.Close()
	ln, remove, err := ipc.ListenSocket(path, nil)
	var running *ipc.InstanceRunningError
	if errors.As(err, &running) {
		tell(nil)
		return nil
	}
	if err != nil {
		tell(err)
		return err
	}
	defer remove()
	pidFile := strings.TrimSuffix(path, ".sock") + ".pid"
	os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	defer os.Remove(pidFile)
	tell(nil)

	var open atomic.Int64
	idle := time.NewTimer(persist)
	defer idle.Stop()
	conns := make(chan net.Conn)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- nc
		}
	}()
	defer ln.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	ended := make(chan struct{}, 1) // a connection ended: look at open again
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.Done():
			return c.Err()
		case <-idle.C:
			if open.Load() == 0 {
				return nil
			}
			idle.Reset(persist)
		case <-ended:
			if open.Load() == 0 {
				idle.Reset(persist)
			}
		case nc, ok := <-conns:
			if !ok {
				return nil
			}
			if !ipc.PeerIsUser(nc) {
				nc.Close()
				continue
			}
			open.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				relay(ctx, c, nc)
				open.Add(-1)
				select {
				case ended <- struct{}{}:
				default:
				}
			}()
		}
	}
}

// relay joins a local connection to a new channel until either ends.
func relay(ctx context.Context, c *Conn, nc net.Conn) {
	defer nc.Close()
	ch, err := c.Open(ctx)
	if err != nil {
		return
	}
	defer ch.Close()
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(ch, nc)
		done <- struct{}{}
	}()
	go func() {
		_, err := io.Copy(nc, ch)
		var refused *ChannelError
		if errors.As(err, &refused) {
			nc.Write(ipc.RefusalFrame(refused.Error()))
		}
		done <- struct{}{}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// EnsureLink returns the socket of h's link, starting one (self, this
// program, as `self host link HOST`, in a session of its own) when none
// answers. Connections to the socket are connections to h's Paneflow
// socket. Errors are [Dial]'s, reported by the link that failed.
func EnsureLink(ctx context.Context, h Host, e Env, self string) (string, error) {
	path, err := LinkPath(h, e)
	if err != nil {
		return "", err
	}
	if linkAlive(path) {
		return path, nil
	}
	return path, StartLink(ctx, h, e, self)
}

// StartLink starts h's link (self host link HOST) and waits until it
// serves [LinkPath] or failed, whose error it returns. When another link
// already serves there, the new one exits and that one is used.
func StartLink(ctx context.Context, h Host, e Env, self string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(self, "host", "link", h.String())
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("starting the link to %s: %w", h, err)
	}
	w.Close()
	go cmd.Wait()
	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		got <- answer{strings.TrimSpace(line), err}
	}()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case a := <-got:
		switch {
		case a.line == "ok":
			return nil
		case strings.HasPrefix(a.line, "error "):
			kind, msg, _ := strings.Cut(strings.TrimPrefix(a.line, "error "), " ")
			return &LinkError{Host: h, SSH: kind == "ssh", Msg: msg}
		}
		return fmt.Errorf("the link to %s ended without a word (%v)", h, a.err)
	}
}

// linkAlive reports whether a link serves path: its pid file names a
// live process and the socket exists. (Connecting would open a channel.)
func linkAlive(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	pid, err := linkPid(path)
	if err != nil {
		return false
	}
	return syscall.Kill(pid, 0) == nil
}

// linkPid reads the pid file of the link at path.
func linkPid(path string) (int, error) {
	b, err := os.ReadFile(strings.TrimSuffix(path, ".sock") + ".pid")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// CloseLink stops h's link, if one runs; false when there was none.
func CloseLink(h Host, e Env) (bool, error) {
	path, err := LinkPath(h, e)
	if err != nil {
		return false, err
	}
	pid, err := linkPid(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return false, nil
	}
	// The link ends its relays and then its ssh, which it gives
	// closeGrace to end the session before killing it: wait for that and
	// a margin for a loaded machine (two seconds, the wait before, were
	// not enough at load 80).
	for deadline := time.Now().Add(closeGrace + 5*time.Second); time.Now().Before(deadline); {
		if syscall.Kill(pid, 0) != nil {
			return true, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true, fmt.Errorf("the link to %s (pid %d) did not exit", h, pid)
}
