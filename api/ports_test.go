//go:build linux || darwin

package api

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// envListenFile makes this test binary (TestMain) a pane's program that
// listens on an ephemeral TCP port of 127.0.0.1, writes the port to the
// file the variable names, and waits to be killed.
const envListenFile = "PANEFLOW_API_TEST_LISTEN"

func runListener(file string) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listener:", err)
		return 1
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(file+".tmp", []byte(port), 0o600); err != nil || os.Rename(file+".tmp", file) != nil {
		return 1
	}
	select {}
}

// TestSurfacePorts: surface.ports names the port a pane's program listens
// on, for that pane only; the shell beside it listens on none.
func TestSurfacePorts(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ports are read from /proc")
	}
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	file := filepath.Join(t.TempDir(), "port")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, _, err := e.m.Split(1, workspace.Vertical, workspace.PaneSpec{Argv: []string{self}, Env: map[string]string{envListenFile: file}})
	if err != nil {
		t.Fatal(err)
	}
	id := in.ID
	var port int
	deadline := time.Now().Add(testDeadline)
	for {
		if b, err := os.ReadFile(file); err == nil {
			port, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the pane's listener did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	want := []proto.PanePorts{{SurfaceID: id, Ports: []int{port}}}
	for _, params := range []string{`{}`, fmt.Sprintf(`{"surface_id":%d}`, id)} {
		var got proto.SurfacePortsResult
		e.ok(proto.MethodSurfacePorts, params, &got)
		if fmt.Sprint(got.Panes) != fmt.Sprint(want) {
			t.Errorf("surface.ports %s = %+v, want %+v", params, got.Panes, want)
		}
	}
	var got proto.SurfacePortsResult
	e.ok(proto.MethodSurfacePorts, `{"surface_id":1}`, &got)
	if len(got.Panes) != 0 {
		t.Errorf("surface.ports of the shell = %+v, want none", got.Panes)
	}
}
