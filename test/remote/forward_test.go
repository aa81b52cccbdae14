//go:build linux

package remote

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	pfremote "github.com/paneflow-go/paneflow/remote"
)

// envHTTPFile makes this test binary (TestMain) a remote pane's program:
// an HTTP server on an ephemeral port of 127.0.0.1 answering "served
// PATH", which writes its port to the file the variable names.
const envHTTPFile = "PANEFLOW_REMOTE_TEST_HTTP"

func serveHTTP(file string) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if os.WriteFile(file+".tmp", []byte(port), 0o600) != nil || os.Rename(file+".tmp", file) != nil {
		return 1
	}
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served %s", r.URL.Path)
	}))
	return 1
}

// TestRemoteForward: through a real ssh to a real sshd, the host's
// server lists the port an HTTP server in one of its panes listens on
// (surface.ports), and a TCP channel of the same ssh (the bridge's T
// record, what the window's port chip uses) reaches it; a port nothing
// listens on fails with the bridge's reason.
func TestRemoteForward(t *testing.T) {
	w := newWorld(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(w.remote, "http.port")
	w.host(portMain, "new", "--cwd", w.remote, "--command", envHTTPFile+"="+file+" exec "+self)
	var port int
	deadline := time.Now().Add(pollTimeout)
	for port == 0 {
		if b, err := os.ReadFile(file); err == nil {
			port, _ = strconv.Atoi(string(b))
		} else if time.Now().After(deadline) {
			t.Fatal("the remote pane's HTTP server did not start")
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	var web pane // the newest pane
	for _, p := range w.lsPanes(portMain) {
		if p.ID > web.ID {
			web = p
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	c := w.dialHost(ctx, portMain)

	pc := proto.Client{Caller: &ipc.Client{Path: w.url(portMain), Dial: c.Open}}
	got, err := pc.SurfacePorts(ctx, web.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Panes) != 1 || got.Panes[0].SurfaceID != web.ID || len(got.Panes[0].Ports) != 1 || got.Panes[0].Ports[0] != port {
		t.Fatalf("surface.ports of the web pane = %+v, want its port %d", got.Panes, port)
	}

	cl := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return c.OpenTCP(ctx, port)
	}}}
	for _, path := range []string{"/", "/app.js"} {
		resp, err := cl.Get("http://remote-pane" + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != "served "+path {
			t.Fatalf("GET %s over the ssh = %q, %v", path, body, err)
		}
	}

	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := free.Addr().(*net.TCPAddr).Port
	free.Close()
	nc, err := c.OpenTCP(ctx, freePort)
	if err != nil {
		t.Fatal(err)
	}
	_, err = nc.Read(make([]byte, 1))
	nc.Close()
	if err == nil || !strings.Contains(err.Error(), "nothing answers on port "+strconv.Itoa(freePort)) {
		t.Fatalf("a forward to a port nothing listens on: %v", err)
	}
}

// dialHost is one ssh to port's host running its bridge (package remote,
// as a window's link), closed when the test ends.
func (w *world) dialHost(ctx context.Context, port int) *pfremote.Conn {
	w.t.Helper()
	h, err := pfremote.ParseHost(w.url(port))
	if err != nil {
		w.t.Fatal(err)
	}
	c, err := pfremote.Dial(ctx, h, pfremote.Env{Getenv: func(k string) string {
		if k == pfremote.EnvSSH {
			return w.sshd.SSHCommand()
		}
		return ""
	}})
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { c.Close() })
	return c
}
