//go:build !client

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/paneflow-go/paneflow/internal/userdir"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// Bounds of finding or starting the user's server.
const (
	// serverStartTimeout bounds how long a started server has to answer
	// (it restores its session, resuming agents, before it serves).
	serverStartTimeout = 30 * time.Second
	// serverPingTimeout bounds one system.ping while looking for a server.
	serverPingTimeout = 2 * time.Second
	// serverLogMax is the size past which the server log is rotated
	// (renamed to server.log.1) before a new server appends to it.
	serverLogMax = 4 << 20
)

// serverLogName is the detached server's log, in the state directory's
// paneflow/ (beside the session file).
const serverLogName = "server.log"

// serverLockName is the lock file (beside the log) that serialises
// starting servers.
const serverLockName = "server.lock"

// findServer describes how to find or start the user's server: the
// window's default (attach to it, starting it when none answers) and
// `paneflow serve --detach`. The zero value is not usable: Socket and
// Exe are required.
type findServer struct {
	Socket string              // the socket to find a server on, and start one on
	Exe    string              // the program to start (`<Exe> serve --socket Socket ...`)
	Args   []string            // more arguments for serve (--session, --size)
	Getenv func(string) string // the environment the log path is resolved in
	GOOS   string
}

// serverFound is what findServer.run found or started.
type serverFound struct {
	Started bool   // a server was started (else one already answered)
	PID     int    // the started server's process id; 0 when found
	Log     string // the started server's log file
}

// run returns once a Paneflow server answers system.ping on f.Socket: one
// that already did, or one it starts, detached (its own session and
// process group, stdin from the null device, stdout and stderr appended
// to $XDG_STATE_HOME/paneflow/server.log), so that it outlives this
// process and its terminal. When two callers start a server at once the
// socket goes to one of them (the other server exits: the socket is
// taken) and both find it. A server that exits before it answers is an
// error quoting the end of its log.
func (f findServer) run(ctx context.Context) (serverFound, error) {
	if err := ping(ctx, f.Socket); err == nil {
		return serverFound{}, nil
	} else if !isUnreachable(err) {
		return serverFound{}, fmt.Errorf("the server on %s: %w", f.Socket, err)
	}
	logPath, logFile, err := openServerLog(f.Getenv, f.GOOS)
	if err != nil {
		return serverFound{}, err
	}
	defer logFile.Close() // the child has its own descriptor
	// One start at a time (this user's windows and serve --detach): two
	// servers started at once could both bind the socket, the later one
	// taking it from the earlier while it was not yet answering.
	unlock, err := lockStart(ctx, filepath.Join(filepath.Dir(logPath), serverLockName))
	if err != nil {
		return serverFound{}, err
	}
	defer unlock()
	if err := ping(ctx, f.Socket); err == nil {
		return serverFound{}, nil // started by the caller that held the lock
	}
	args := append([]string{"serve", "--socket", f.Socket}, f.Args...)
	fmt.Fprintf(logFile, "paneflow: %s: starting `%s %s`\n", time.Now().Format(time.RFC3339), f.Exe, strings.Join(args, " "))
	cmd := exec.Command(f.Exe, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile // stdin: the null device
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return serverFound{}, fmt.Errorf("starting the server %s: %w", f.Exe, err)
	}
	pid := cmd.Process.Pid
	exited := make(chan error, 1)
	// Reaps the server should it end while this process lives; otherwise
	// it is reparented when this process ends.
	go func() { exited <- cmd.Wait() }()
	found := serverFound{Started: true, PID: pid, Log: logPath}
	deadline := time.NewTimer(serverStartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return serverFound{}, ctx.Err()
		case werr := <-exited:
			// Another caller's server may have taken the socket.
			if ping(ctx, f.Socket) == nil {
				return serverFound{}, nil
			}
			return serverFound{}, fmt.Errorf("the server it started (pid %d) exited (%v) before answering on %s; the end of %s:\n%s",
				pid, werr, f.Socket, logPath, logTail(logPath, 15))
		case <-deadline.C:
			return serverFound{}, fmt.Errorf("the server it started (pid %d) did not answer on %s within %v; see %s", pid, f.Socket, serverStartTimeout, logPath)
		case <-tick.C:
			id, err := identify(ctx, f.Socket)
			if err != nil {
				continue
			}
			if id.PID != pid { // another caller's server won the socket
				return serverFound{}, nil
			}
			return found, nil
		}
	}
}

// identify calls system.identify on the socket at path.
func identify(ctx context.Context, path string) (proto.SystemIdentifyResult, error) {
	return proto.Client{Caller: &ipc.Client{Path: path, Timeout: serverPingTimeout}}.Identify(ctx)
}

// ping calls system.ping on the socket at path.
func ping(ctx context.Context, path string) error {
	_, err := proto.Client{Caller: &ipc.Client{Path: path, Timeout: serverPingTimeout}}.Ping(ctx)
	return err
}

// isUnreachable reports whether err says nothing serves the socket (no
// file, nothing listening, or a connection closed without an answer):
// the case in which a server is started.
func isUnreachable(err error) bool {
	var u *ipc.UnreachableError
	return errors.As(err, &u)
}

// openServerLog opens (creating, 0600) the detached server's log for
// appending, in the state directory's paneflow/ (0700); see openLog.
func openServerLog(getenv func(string) string, goos string) (string, *os.File, error) {
	path, err := serverLogPath(getenv, goos)
	if err != nil {
		return "", nil, err
	}
	f, err := openLog(path)
	return path, f, err
}

// serverLogPath is the server's log: server.log in the state directory's
// paneflow/.
func serverLogPath(getenv func(string) string, goos string) (string, error) {
	base, err := userdir.Base(userdir.State, getenv, goos)
	if err != nil {
		return "", fmt.Errorf("the server's log: %w", err)
	}
	return filepath.Join(base, "paneflow", serverLogName), nil
}

// openLog opens the log at path for appending (creating it 0600 and its
// directory 0700); a log past serverLogMax is first renamed to path.1,
// replacing the previous one.
func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("the server's log: %w", err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > serverLogMax {
		_ = os.Rename(path, path+".1") // best effort: appending goes on otherwise
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the server's log: %w", err)
	}
	return f, nil
}

// logTail is the last n lines of the file at path, indented, for an
// error message.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "    (" + err.Error() + ")"
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + string(bytes.Join(lines, []byte("\n    ")))
}
