//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/paneflow-go/paneflow/proto"
)

// TestSessionSurvivesKill: `paneflow serve` keeps its session saved as
// it changes, so a server killed with SIGKILL and started again on the
// same socket comes back with its workspaces, their names and layout,
// each pane's name, directory, command and environment (an `up` pane's
// env = { PORT = "${port_offset}" } included); a clean SIGTERM keeps it
// too.
func TestSessionSurvivesKill(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	sock := filepath.Join(dir, "pf.sock")
	sub := filepath.Join(dir, "sub dir")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	s := startServerAt(t, dir, sock, "PANEFLOW_IPC_SCRIPTING=1")
	spec := `name = "svc"
layout = "main_vertical"
port_base = 47100

[[panes]]
name = "web"
command = "echo WEB port=$PORT; exec sleep 1000"
env = { PORT = "${port_offset}" }

[[panes]]
name = "worker"
command = "echo WORKER port=$PORT; exec sleep 1000"
env = { PORT = "${port_offset}" }

[[panes]]
name = "shell"
`
	if err := os.WriteFile(filepath.Join(dir, "svc.toml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	var res proto.WorkspaceUpResult
	s.mustCLI(&res, "up", "svc.toml", "--json", "--yes")
	if len(res.SurfaceIDs) != 3 {
		t.Fatalf("up made %v", res.SurfaceIDs)
	}
	web := s.waitOutput("web", `WEB port=(\d+)`)
	worker := s.waitOutput("worker", `WORKER port=(\d+)`)
	if web == worker || web == "" {
		t.Fatalf("ports %q and %q: want two different ports", web, worker)
	}
	// The shell pane moves to another directory: its live cwd is saved.
	s.mustCLI(nil, "send", "shell", "cd '"+sub+"'", "--submit")
	s.eventually("the shell's cwd", func() (bool, string) {
		row, _ := s.surface(res.SurfaceIDs[2])
		return realPath(t, deref(row.Cwd)) == realPath(t, sub), deref(row.Cwd)
	})
	before := layoutShape(t, s, res.Index)
	// The server saves within 250 ms of a change: the first file may
	// not be there yet when the cd is seen (CI once globbed none).
	s.eventually("the session file to hold the panes", func() (bool, string) {
		files, _ := filepath.Glob(filepath.Join(dir, "state", "paneflow", "session*.json"))
		if len(files) != 1 {
			return false, fmt.Sprintf("session files %q, want one", files)
		}
		b, _ := os.ReadFile(files[0])
		ok := strings.Contains(string(b), `"PORT": "`+worker+`"`) && strings.Contains(string(b), `"custom_name": "shell"`) &&
			strings.Contains(string(b), "sub dir")
		return ok, string(b)
	})

	check := func(s *server, what string) {
		t.Helper()
		ws := s.workspaces()
		if len(ws) != 2 || ws[1].Title != "svc" || ws[1].Panes != 3 || !ws[1].Active {
			t.Fatalf("%s: workspaces %+v, want Terminal and svc (active, 3 panes)", what, ws)
		}
		if got := s.waitOutput("web", `WEB port=(\d+)`); got != web {
			t.Errorf("%s: web's PORT = %q, want %q", what, got, web)
		}
		if got := s.waitOutput("worker", `WORKER port=(\d+)`); got != worker {
			t.Errorf("%s: worker's PORT = %q, want %q", what, got, worker)
		}
		s.eventually(what+": the shell in its directory", func() (bool, string) {
			for _, row := range s.ls().Surfaces {
				if row.Name == "shell" {
					return realPath(t, deref(row.Cwd)) == realPath(t, sub), deref(row.Cwd)
				}
			}
			return false, "no pane named shell"
		})
		if after := layoutShape(t, s, 1); after != before {
			t.Errorf("%s: layout\n%s\nwant\n%s", what, after, before)
		}
	}

	if err := syscall.Kill(s.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.proc.Exited()
	s = startServerAt(t, dir, sock, "PANEFLOW_IPC_SCRIPTING=1")
	check(s, "after SIGKILL")
	if err := s.terminate(); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	s = startServerAt(t, dir, sock, "PANEFLOW_IPC_SCRIPTING=1")
	check(s, "after SIGTERM")
}

// layoutShape is workspace index's layout tree as JSON without what a
// restart changes (surface ids, titles, scrollback; directories are
// checked on their own).
func layoutShape(t *testing.T, s *server, index int) string {
	t.Helper()
	if f := parseFrame(t, s.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"workspace.select","params":{"index":%d}}`, index))); f.Error != nil {
		t.Fatalf("workspace.select: %s", f.raw)
	}
	f := parseFrame(t, s.rpc(`{"jsonrpc":"2.0","id":1,"method":"workspace.current"}`))
	var r proto.WorkspaceCurrentResult
	if f.Error != nil || json.Unmarshal(f.Result, &r) != nil || r.Layout == nil {
		t.Fatalf("workspace.current: %s", f.raw)
	}
	r.Layout.EachSurface(func(d *proto.SurfaceDefinition) { d.SurfaceID, d.Name, d.Cwd, d.Scrollback = 0, "", "", "" })
	b, _ := json.MarshalIndent(r.Layout, "", " ")
	return string(b)
}
