//go:build !windows

package api

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenRequests are the deterministic exchanges recorded in
// testdata/rpc.golden, sent in order on one connection to a server with
// one workspace holding one shell (surface 1). The last request closes
// the connection.
var goldenRequests = []string{
	`{"jsonrpc":"2.0","id":1,"method":"system.ping"}`,
	`{"jsonrpc":"2.0","id":2,"method":"system.identify"}`,
	`{"jsonrpc":"2.0","id":3,"method":"system.capabilities"}`,
	`{"jsonrpc":"2.0","id":4,"method":"fleet.list"}`,
	`{"jsonrpc":"2.0","id":5,"method":"workspace.list"}`,
	`{"jsonrpc":"2.0","id":6,"method":"workspace.select","params":{"index":7}}`,
	`{"jsonrpc":"2.0","id":7,"method":"workspace.select","params":{"index":"first"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"workspace.close"}`,
	`{"jsonrpc":"2.0","id":9,"method":"workspace.create","params":{"layout":{"type":"grid"}}}`,
	`{"jsonrpc":"2.0","id":10,"method":"workspace.restore_layout","params":{}}`,
	`{"jsonrpc":"2.0","id":11,"method":"workspace.up","params":{"panes":[]}}`,
	`{"jsonrpc":"2.0","id":12,"method":"workspace.up","params":{"panes":[{"managed_worktree":{"path":"a","repo_root":"b"}}]}}`,
	`{"jsonrpc":"2.0","id":13,"method":"surface.read","params":{"surface_id":99}}`,
	`{"jsonrpc":"2.0","id":14,"method":"surface.read","params":{"name":"nope"}}`,
	`{"jsonrpc":"2.0","id":15,"method":"surface.search","params":{"pattern":""}}`,
	`{"jsonrpc":"2.0","id":16,"method":"surface.status","params":{"surface_id":99}}`,
	`{"jsonrpc":"2.0","id":17,"method":"surface.rename","params":{"surface_id":1}}`,
	`{"jsonrpc":"2.0","id":18,"method":"surface.rename","params":{"surface_id":1,"new_name":"  api\u0007 "}}`,
	`{"jsonrpc":"2.0","id":19,"method":"surface.focus","params":{}}`,
	`{"jsonrpc":"2.0","id":20,"method":"surface.focus","params":{"surface_id":1}}`,
	`{"jsonrpc":"2.0","id":21,"method":"surface.split","params":{"direction":"diagonal"}}`,
	`{"jsonrpc":"2.0","id":22,"method":"surface.resize","params":{"surface_id":1,"cols":0,"rows":10}}`,
	`{"jsonrpc":"2.0","id":23,"method":"surface.resize","params":{"surface_id":1,"cols":100,"rows":40}}`,
	`{"jsonrpc":"2.0","id":24,"method":"surface.close","params":{"surface_id":99}}`,
	`{"jsonrpc":"2.0","id":25,"method":"surface.send_text","params":{"text":"ls"}}`,
	`{"jsonrpc":"2.0","id":26,"method":"surface.send_keystroke","params":{"keystroke":"enter"}}`,
	`{"jsonrpc":"2.0","id":27,"method":"surface.wait","params":{"surface_ids":[]}}`,
	`{"jsonrpc":"2.0","id":28,"method":"surface.wait","params":{"surface_ids":[1],"pattern":"(x"}}`,
	`{"jsonrpc":"2.0","id":29,"method":"surface.wait","params":{"surface_ids":[1],"pattern":"never","timeout_ms":0}}`,
	`{"jsonrpc":"2.0","id":30,"method":"no.such.method"}`,
	`{"jsonrpc":"2.0","id":32,"method":"surface.ports"}`,
	`{"jsonrpc":"2.0","id":33,"method":"surface.ports","params":{"surface_id":99}}`,
	`{"jsonrpc":"2.0","id":34,"method":"surface.ports","params":{"surface_id":"1"}}`,
	`{"jsonrpc":"2.0","id":35,"method":"workspace.reopen"}`,
	`{"jsonrpc":"2.0","id":36,"method":"workspace.rename","params":{"title":"main work"}}`,
	`{"jsonrpc":"2.0","id":37,"method":"workspace.rename","params":{"index":0,"title":" \u0007 "}}`,
	`{"jsonrpc":"2.0","id":38,"method":"workspace.move","params":{"index":0,"to":0}}`,
	`{"jsonrpc":"2.0","id":39,"method":"workspace.move","params":{"index":0,"to":1}}`,
	`{"jsonrpc":"2.0","id":31,"method":"events.subscribe","params":{"types":["surface_changed","bogus"]}}`,
}

func TestGolden(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, workspace.Options{}, Options{Version: "0.0.0-test", pid: 4242}).withWorkspace(dir)
	exec := ipc.NewQueueExecutor(ipc.DefaultExecutorQueue)
	exec.Start()
	t.Cleanup(exec.Close)
	srv := ipctest.StartServer(t, &ipc.Server{Registry: e.reg, Executor: exec})
	nc, err := net.Dial("unix", srv.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(testDeadline))
	r := bufio.NewReader(nc)
	var got bytes.Buffer
	for _, req := range goldenRequests {
		if _, err := fmt.Fprintf(nc, "%s\n", req); err != nil {
			t.Fatal(err)
		}
		resp, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: reading the reply: %v", req, err)
		}
		resp = strings.ReplaceAll(strings.TrimSuffix(resp, "\n"), real, "<CWD>")
		fmt.Fprintf(&got, "--> %s\n<-- %s\n\n", req, resp)
	}
	compareGolden(t, "rpc.golden", got.Bytes())
}

// compareGolden checks got against testdata/<name>; -update rewrites it,
// a mismatch is written to testdata/failed/<name>.
func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	failed := filepath.Join("testdata", "failed", name)
	if err := os.MkdirAll(filepath.Dir(failed), 0o755); err == nil {
		_ = os.WriteFile(failed, got, 0o644)
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs at line %d (full output in %s):\n got %s\nwant %s", path, i+1, failed, g, w)
		}
	}
}
