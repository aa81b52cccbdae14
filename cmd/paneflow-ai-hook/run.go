package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/paneflow-go/paneflow/hook"
	"github.com/paneflow-go/paneflow/ipc"
)

// exitOK is the only exit code. Agents give hook exit codes a meaning
// (Claude Code and Codex block the action on 2 and show the user any other
// non-zero code), and a status hook must never block or nag: whatever goes
// wrong, the hook exits 0.
const exitOK = 0

// Time budgets. With a responsive stdin the hook returns within sendBudget
// of reading it, under 600 ms in every case (no socket, hung or flooded
// server).
const (
	// attemptTimeout bounds one delivery attempt: dial and write.
	attemptTimeout = 500 * time.Millisecond
	// sendBudget bounds all attempts together, retries included.
	sendBudget = 550 * time.Millisecond
	// minAttempt is the least time worth starting another attempt with.
	minAttempt = 50 * time.Millisecond
	// stdinBudget bounds reading stdin: a writer that never closes it
	// gets its payload cut here rather than a hook that hangs.
	stdinBudget = time.Second
)

// retryBackoff are the pauses before the second and third attempts (spec
// limits.md).
var retryBackoff = []time.Duration{100 * time.Millisecond, 300 * time.Millisecond}

// run is the whole program. It reads the payload, maps it to an ai.*
// notification and sends it to $PANEFLOW_SOCKET_PATH. It writes nothing to
// stdout or stderr (agents show or inject what hooks print); diagnostics go
// to $PANEFLOW_HOOK_LOG when set. It returns exitOK whatever happens,
// including a panic.
func run(ctx context.Context, args []string, stdin io.Reader, getenv func(string) string) (code int) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			func() {
				defer func() { recover() }() // getenv itself may be what panicked
				logf(getenv, "panic: %v", r)
			}()
		}
		code = exitOK
	}()
	if len(args) == 0 {
		logf(getenv, "no event argument; nothing sent")
		return exitOK
	}
	socket := getenv(hook.EnvSocketPath)
	if socket == "" || !filepath.IsAbs(socket) {
		return exitOK // not in a Paneflow pane: the common case for a user-scope install
	}
	event, argv := args[0], args[1:]
	var in *stdinReader
	var data []byte
	if stdin != nil && hook.ReadsStdin(event, argv) {
		in = readStdin(stdin, hook.MaxStdin)
		data = in.wait(start.Add(stdinBudget))
	}
	method, params, ok := hook.Map(event, argv, data, getenv)
	if ok && method == hook.MethodStop {
		// The answer is on disk before the server hears the turn ended,
		// so whoever waits for "finished" finds it.
		if err := hook.KeepAnswer(event, argv, data, params, getenv, time.Now()); err != nil {
			logf(getenv, "%s: artifact not written: %v", event, err)
		}
	}
	if !ok {
		logf(getenv, "%s: nothing to send (%d bytes of payload)", event, len(data))
	} else if err := send(ctx, socket, method, params); err != nil {
		logf(getenv, "%s: %s not delivered to %s: %v", event, method, socket, err)
	} else {
		logf(getenv, "%s: sent %s", event, method)
	}
	if in != nil {
		in.drain(start.Add(stdinBudget))
	}
	return exitOK
}

// send delivers one frame: up to three attempts of at most
// attemptTimeout each, all within sendBudget. The frame is a request with
// an id, not a notification, and send waits for the server's small ack:
// that is how a frame refused while the server is at its connection cap
// (-32000) is noticed and retried instead of lost, and why two hook calls
// in a row reach the server in order. Only a transient failure is
// retried: with no socket file or no listener there is no server to wait
// for.
func send(ctx context.Context, socket, method string, params map[string]any) error {
	deadline := time.Now().Add(sendBudget)
	for attempt := 0; ; attempt++ {
		timeout := min(attemptTimeout, time.Until(deadline))
		if timeout < minAttempt {
			return context.DeadlineExceeded
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		err := (&ipc.Client{Path: socket, Timeout: timeout}).Call(actx, method, params, nil)
		cancel()
		if err == nil || !retryable(err) || attempt >= len(retryBackoff) {
			return err
		}
		pause := retryBackoff[attempt]
		if time.Until(deadline) < pause+minAttempt {
			return err
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// retryable reports whether another attempt could succeed: after a busy
// refusal, yes; not when the socket does not exist or nothing listens on
// it, not when the server rejected the frame itself, and not after a
// timeout, which has used the budget already.
func retryable(err error) bool {
	var te *ipc.TimeoutError
	var je *ipc.Error
	if errors.As(err, &je) && je.Code == ipc.CodeBusy {
		return true
	}
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOTDIR),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.As(err, &te), errors.As(err, &je):
		return false
	}
	return true
}

// stdinReader reads stdin in the background, so that a writer that never
// closes it cannot hold the hook: the first max bytes are kept, the rest
// is read and discarded (so the agent's write does not fail). The
// goroutine is owned by the process: it ends with it.
type stdinReader struct {
	mu      sync.Mutex
	buf     []byte
	full    chan struct{} // closed when buf is complete: max bytes, end of input or a read error
	drained chan struct{} // closed at end of input or a read error
}

// readStdin starts reading r. A terminal (or /dev/null) is not read:
// nobody will write a payload there, and the event counts with an empty one.
func readStdin(r io.Reader, max int) *stdinReader {
	s := &stdinReader{full: make(chan struct{}), drained: make(chan struct{})}
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&fs.ModeCharDevice != 0 {
			close(s.full)
			close(s.drained)
			return s
		}
	}
	go s.read(r, max)
	return s
}

func (s *stdinReader) read(r io.Reader, max int) {
	defer close(s.drained)
	chunk := make([]byte, 64<<10)
	fullClosed := false
	defer func() {
		if !fullClosed {
			close(s.full)
		}
	}()
	for {
		n, err := r.Read(chunk)
		if n > 0 && !fullClosed {
			s.mu.Lock()
			keep := min(n, max-len(s.buf))
			s.buf = append(s.buf, chunk[:keep]...)
			if len(s.buf) >= max {
				close(s.full)
				fullClosed = true
			}
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait returns the payload once it is complete or at deadline, whichever
// comes first; in the latter case it is what arrived so far.
func (s *stdinReader) wait(deadline time.Time) []byte {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-s.full:
	case <-t.C:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf[:len(s.buf):len(s.buf)]
}

// drain waits, until deadline at most, for the rest of the input to be
// read, so an agent still writing a huge payload does not get a broken
// pipe.
func (s *stdinReader) drain(deadline time.Time) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-s.drained:
	case <-t.C:
	}
}

// logf appends one line to $PANEFLOW_HOOK_LOG when it is set. Failures are
// ignored: there is nowhere else to report them.
func logf(getenv func(string) string, format string, args ...any) {
	path := getenv(hook.EnvLog)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s paneflow-ai-hook[%d]: %s\n", time.Now().Format(time.RFC3339Nano), os.Getpid(), fmt.Sprintf(format, args...))
}
