package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// killServerWait bounds how long kill-server waits for the server to be
// gone once it said it stops: its shutdown grace (15 s: the session's
// last save, every pane's process group ended) and a margin.
const killServerWait = 20 * time.Second

// killServerVerb is `paneflow kill-server`: system.shutdown, then a wait
// until the socket no longer answers.
func killServerVerb() verb {
	return verb{
		name:    "kill-server",
		summary: "stop the server: its session is saved, then every pane and program ends",
		details: "Calls system.shutdown on the server of this socket ($PANEFLOW_SOCKET_PATH, else the\n" +
			"default), then waits until the socket no longer answers: the session has been saved\n" +
			"and the server is closing its panes (their programs end). Prints {\"stopped\":true,\"pid\":N}.\n" +
			"The next `paneflow serve` (or the desktop app, which starts one) restores the session,\n" +
			"resuming the agents that can be. Exits 1 with \"no Paneflow server is running on PATH\"\n" +
			"when nothing answers there.\n",
		run: runKillServer,
	}
}

func runKillServer(ctx context.Context, s *session, _ *input) error {
	path, err := ipc.ClientSocketPath(s.getenv)
	if err != nil || path == "" {
		return errNoSocket
	}
	c, err := s.connect()
	if err != nil {
		return err
	}
	var res proto.SystemShutdownResult
	if err := c.Call(ctx, proto.MethodSystemShutdown, emptyParams, &res); err != nil {
		if isUnreachable(err) {
			return fmt.Errorf("no Paneflow server is running on %s", path)
		}
		var e *ipc.Error
		if errors.As(err, &e) {
			return &rpcError{e}
		}
		return err
	}
	// The reply comes before the server ends: wait until it no longer
	// answers (it saves its session, then closes the socket, then the
	// panes).
	ctx, cancel := context.WithTimeout(ctx, killServerWait)
	defer cancel()
	for {
		if err := c.Call(ctx, proto.MethodSystemPing, emptyParams, nil); isUnreachable(err) {
			break
		} else if ctx.Err() != nil {
			return fmt.Errorf("the server (pid %d) said it stops but still answers on %s after %v", res.PID, path, killServerWait)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
	_, err = fmt.Fprintf(s.stdout, "{\"stopped\":true,\"pid\":%d}\n", res.PID)
	return err
}
