//go:build !windows

package app

import (
	"context"
	"encoding/json"
	"errors"
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

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// envHTTPFile makes this test binary (TestMain) a pane's program: an HTTP
// server on an ephemeral port of 127.0.0.1 that answers "served PATH",
// writes its port to the file the variable names and prints it.
const envHTTPFile = "PANEFLOW_APP_TEST_HTTP"

func TestMain(m *testing.M) {
	if f := os.Getenv(envHTTPFile); f != "" {
		os.Exit(serveHTTPHelper(f))
	}
	os.Exit(m.Run())
}

func serveHTTPHelper(file string) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if os.WriteFile(file+".tmp", []byte(port), 0o600) != nil || os.Rename(file+".tmp", file) != nil {
		return 1
	}
	fmt.Println("listening on", port) // output: the window describes its panes again
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served %s", r.URL.Path)
	}))
	return 1
}

// httpPane splits a pane running serveHTTPHelper beside first on c and
// returns its id and port.
func httpPane(t *testing.T, c *core.Core, first uint64) (uint64, int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "port")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, _, err := c.Workspaces.Split(first, workspace.Vertical, workspace.PaneSpec{Argv: []string{self}, Env: map[string]string{envHTTPFile: file}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testDeadline)
	for {
		if b, err := os.ReadFile(file); err == nil {
			port, _ := strconv.Atoi(string(b))
			return in.ID, port
		}
		if time.Now().After(deadline) {
			t.Fatal("the pane's HTTP server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// get fetches url and returns its body.
func get(t *testing.T, url string) (string, error) {
	t.Helper()
	cl := &http.Client{Timeout: testDeadline, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := cl.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestHostsPortForward: a remote pane's listening port shows as a chip
// (its host's surface.ports); a tap opens a forward on this machine's
// 127.0.0.1 through the host's link, which reaches the pane's HTTP
// server; a port the pane does not listen on is refused; closing the
// pane closes its forward.
func TestHostsPortForward(t *testing.T) {
	h, rc, _ := hostsHarness(t)
	h.s.hosts().portsEvery.Store(1) // read the host's ports at every describe
	rid := remotePane(t, rc)
	h.waitFor("the host connected", func() bool { return len(h.cards()) == 2 })
	sid, port := httpPane(t, rc, rid)
	gid := globalID(1, sid)
	want := strconv.Itoa(port)
	var row paneRow
	h.waitFor("the remote pane's port chip", func() bool {
		c := h.cards()
		for _, p := range c[len(c)-1].Panes {
			if p.ID == gid {
				row = p
			}
		}
		return row.Ports == want
	})

	// A tap on the chip makes the forward.
	var chip *widget.Button
	h.s.guard(func() {
		var walk func(o fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			switch o := o.(type) {
			case *widget.Button:
				if o.Text == ":"+want {
					chip = o
				}
			case *fyne.Container:
				for _, c := range o.Objects {
					walk(c)
				}
			case *tapBox:
				walk(o.content)
			}
		}
		walk(h.s.chrome.side.paneRow(row))
	})
	if chip == nil {
		t.Fatal("no chip :" + want + " in the pane's row")
	}
	h.tap(chip)
	r := h.s.hosts().hostAt(1)
	key := fwdKey{sid, port}
	var addr string
	h.waitFor("the forward", func() bool { addr = r.forwardAddrs()[key]; return addr != "" })
	if !strings.HasPrefix(addr, "127.0.0.1:") || addr == "127.0.0.1:"+want {
		t.Fatalf("forward listens on %s, want 127.0.0.1 at a port of its own", addr)
	}
	for _, path := range []string{"/", "/index.html"} {
		if body, err := get(t, "http://"+addr+path); err != nil || body != "served "+path {
			t.Fatalf("GET %s through the forward = %q, %v", path, body, err)
		}
	}
	// Asking again reuses it.
	if again, err := h.s.hosts().forwardPort(gid, port); err != nil || again != addr {
		t.Fatalf("second forward = %q, %v; want %s", again, err, addr)
	}
	// Only the ports the pane listens on.
	if _, err := h.s.hosts().forwardPort(gid, port+1); err == nil || !strings.Contains(err.Error(), "no longer listens") {
		t.Fatalf("forward of a port the pane does not listen on: %v", err)
	}
	if _, err := h.s.hosts().forwardPort(globalID(1, rid), port); err == nil {
		t.Fatal("forward of another pane's port was made")
	}

	// The pane closes: its forward closes.
	if err := rc.Workspaces.CloseSurface(sid); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the forward closed with its pane", func() bool { return len(r.forwardAddrs()) == 0 })
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatalf("%s still accepts connections after its pane closed", addr)
	}
}

// OpenTCP makes fakeLink a tcpOpener: its "host" is this machine, so the
// port is dialed on 127.0.0.1, as the bridge dials its host's loopback;
// the connection is cut with the link, as a channel of a killed ssh is.
func (l *fakeLink) OpenTCP(ctx context.Context, port int) (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("link closed")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil {
		l.conns = append(l.conns, c)
	}
	return c, err
}

// TestAttachedRemotePIDs: a window attached to another host's server
// (over Dial) reads no pane pids, which this machine's /proc would match
// to its own processes; one attached to this machine's server does.
func TestAttachedRemotePIDs(t *testing.T) {
	reg := ipc.NewRegistry()
	reg.Register(proto.MethodWorkspaceView, func(context.Context, json.RawMessage) (any, error) {
		return proto.WorkspaceViewResult{Panes: []proto.ViewPane{{ID: 7, WorkspaceID: 1, Pid: os.Getpid()}}}, nil
	})
	srv := ipctest.Start(t, reg)
	for _, remote := range []bool{false, true} {
		o := AttachOptions{Path: srv.Path}
		if remote {
			o.Dial = func(ctx context.Context) (net.Conn, error) {
				var d net.Dialer
				return d.DialContext(ctx, "unix", srv.Path)
			}
		}
		cl := &ipc.Client{Path: o.Path, Dial: o.Dial}
		a := &attached{o: o, cl: cl, pc: proto.Client{Caller: cl}, ctx: context.Background()}
		got := a.PanePIDs()
		if remote && len(got) != 0 || !remote && got[7] != os.Getpid() {
			t.Errorf("remote=%v: PanePIDs = %v", remote, got)
		}
	}
}
