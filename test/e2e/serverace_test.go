//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
)

// TestTwoServesOneSocket starts two plain `paneflow serve --socket P` at
// the same moment, many times, with and without a stale socket file (what
// a SIGKILLed server leaves) at P: each time exactly one keeps serving P
// (system.identify there reports its pid) and the other exits non-zero
// saying another Paneflow server is running on P. Before the socket's
// lock file, two starts that both found the stale socket both removed it
// and bound their own, the first then serving an unlinked socket.
func TestTwoServesOneSocket(t *testing.T) {
	t.Parallel()
	const rounds = 12
	for round := range rounds {
		dir := tempDir(t)
		sock := filepath.Join(dir, "pf.sock")
		if round%2 == 0 { // a stale socket: bound, then closed without unlinking
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			ln.Close()
		}
		type proc struct {
			cmd    *exec.Cmd
			stderr bytes.Buffer
			done   chan error
		}
		procs := make([]*proc, 2)
		for i := range procs {
			p := &proc{done: make(chan error, 1)}
			p.cmd = exec.Command(bin, "serve", "--socket", sock, "--session", "none")
			p.cmd.Env, p.cmd.Dir, p.cmd.Stderr = baseEnv(dir), dir, &p.stderr
			procs[i] = p
		}
		for _, p := range procs {
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { p.done <- p.cmd.Wait() }()
		}
		stopAll := func() {
			for _, p := range procs {
				if p.cmd.ProcessState == nil {
					p.cmd.Process.Signal(syscall.SIGTERM)
				}
			}
		}
		// The loser exits once it sees the winner; give it ample time on a
		// loaded machine.
		var loser, winner *proc
		select {
		case err := <-procs[0].done:
			loser, winner = procs[0], procs[1]
			loser.done <- err
		case err := <-procs[1].done:
			loser, winner = procs[1], procs[0]
			loser.done <- err
		case <-time.After(20 * time.Second):
			stopAll()
			for _, p := range procs {
				<-p.done
			}
			t.Fatalf("round %d: both servers on %s still run after 20 s:\n--- 1:\n%s\n--- 2:\n%s", round, sock, &procs[0].stderr, &procs[1].stderr)
		}
		err := <-loser.done
		if err == nil {
			t.Errorf("round %d: the second serve exited 0, want an error:\n%s", round, &loser.stderr)
		}
		if want := "another Paneflow server is running on " + sock; !strings.Contains(loser.stderr.String(), want) {
			t.Errorf("round %d: the second serve's stderr lacks %q:\n%s", round, want, &loser.stderr)
		}
		// The loser may exit before the winner has bound (it was still
		// probing the stale socket under the lock): wait for the answer.
		var line string
		var alive bool
		for deadline := time.Now().Add(15 * time.Second); !alive && time.Now().Before(deadline); {
			if line, alive = ipc.ProbeInstance(sock, 5*time.Second); !alive {
				time.Sleep(50 * time.Millisecond)
			}
		}
		var id struct {
			Result proto.SystemIdentifyResult `json:"result"`
		}
		json.Unmarshal([]byte(line), &id)
		if !alive || id.Result.PID != winner.cmd.Process.Pid {
			t.Errorf("round %d: %s answers %q (alive %v), want the running server, pid %d:\n%s", round, sock, line, alive, winner.cmd.Process.Pid, &winner.stderr)
		}
		select {
		case err := <-winner.done:
			t.Errorf("round %d: the first server exited too (%v):\n%s", round, err, &winner.stderr)
			winner.done <- err
		default:
		}
		winner.cmd.Process.Signal(syscall.SIGTERM)
		if err := <-winner.done; err != nil {
			t.Errorf("round %d: the server after SIGTERM: %v\n%s", round, err, &winner.stderr)
		}
	}
}
