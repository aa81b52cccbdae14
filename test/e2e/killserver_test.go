//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillServer: `paneflow kill-server` (system.shutdown) ends the
// server cleanly (exit 0, its session saved, its panes' programs ended,
// its socket removed); the next server restores the session. Without a
// server it says so and exits 1.
func TestKillServer(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	sock := filepath.Join(dir, "pf.sock")
	env := append(baseEnv(dir), "PANEFLOW_SOCKET_PATH="+sock)
	r := runCLI(t, env, dir, "kill-server")
	if r.code != 1 || r.stderr != "paneflow: no Paneflow server is running on "+sock+"\n" || r.stdout != "" {
		t.Fatalf("kill-server without a server: want exit 1 naming the socket:\n%s", r)
	}

	s := startServerAt(t, dir, sock)
	_, pid := s.panePID("--name", "kept")
	// The rename is saved only by the last save at shutdown when it
	// lands within the keeper's 250 ms debounce; either way it must be in
	// the file once kill-server returns.
	s.mustCLI(nil, "rename", "kept", "renamed-last")
	var res struct {
		Stopped bool `json:"stopped"`
		PID     int  `json:"pid"`
	}
	s.mustCLI(&res, "kill-server")
	if !res.Stopped || res.PID != s.pid() {
		t.Fatalf("kill-server printed %+v, want stopped and pid %d", res, s.pid())
	}
	// It returned once the socket stopped answering: the session was
	// saved before that.
	files, _ := filepath.Glob(filepath.Join(dir, "state", "paneflow", "session*.json"))
	if len(files) != 1 {
		t.Fatalf("session files %q after kill-server, want one", files)
	}
	if b, err := os.ReadFile(files[0]); err != nil || !strings.Contains(string(b), `"custom_name": "renamed-last"`) {
		t.Errorf("session file after kill-server (%v):\n%s", err, b)
	}
	select {
	case <-s.proc.Exited():
	case <-time.After(stopTimeout):
		t.Fatalf("the server did not exit after kill-server")
	}
	if err := s.proc.Err(); err != nil {
		t.Fatalf("the server exited with %v after kill-server, want 0\n%s", err, s.stderr.String())
	}
	if gone, st := processGone(pid); !gone {
		t.Errorf("the pane's program %d still runs after kill-server: %s", pid, st)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("socket after kill-server: %v, want it removed", err)
	}
	if r := runCLI(t, env, dir, "kill-server"); r.code != 1 || !strings.Contains(r.stderr, "no Paneflow server is running") {
		t.Errorf("second kill-server: want exit 1:\n%s", r)
	}

	s = startServerAt(t, dir, sock)
	s.eventually("the restored pane", func() (bool, string) {
		out := s.cli("ls").stdout
		var l listing
		json.Unmarshal([]byte(out), &l)
		for _, row := range l.Surfaces {
			if row.Name == "renamed-last" {
				return true, ""
			}
		}
		return false, out
	})
}
