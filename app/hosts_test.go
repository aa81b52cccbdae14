//go:build !windows

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// fakeHosts is a HostConnector whose "hosts" are cores of this process
// reached over their sockets: a link is a set of socket connections that
// drop() cuts at once, as a killed ssh does. While refusing is set a
// connection attempt fails with that error.
type fakeHosts struct {
	mu       sync.Mutex
	servers  map[string]string // address → socket path
	links    []*fakeLink
	refusing error
	attempts int
	// sent, when set before the first connection, gets every byte the
	// window writes to any host.
	sent *lockedBuffer
}

func (f *fakeHosts) connect(_ context.Context, address string) (HostLink, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attempts++
	if f.refusing != nil {
		return nil, f.refusing
	}
	path, ok := f.servers[address]
	if !ok {
		return nil, fmt.Errorf("ssh: Could not resolve hostname %s", address)
	}
	l := &fakeLink{path: path, sent: f.sent}
	f.links = append(f.links, l)
	return l, nil
}

func (f *fakeHosts) setRefusing(err error) {
	f.mu.Lock()
	f.refusing = err
	f.mu.Unlock()
}

// drop cuts every link made so far.
func (f *fakeHosts) drop() {
	f.mu.Lock()
	links := slices.Clone(f.links)
	f.mu.Unlock()
	for _, l := range links {
		l.Close()
	}
}

type fakeLink struct {
	path   string
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
	// sent, when set, gets a copy of every byte written to the host.
	sent *lockedBuffer
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// teeConn copies what is written to it to w.
type teeConn struct {
	net.Conn
	w io.Writer
}

func (c teeConn) Write(p []byte) (int, error) {
	c.w.Write(p)
	return c.Conn.Write(p)
}

func (l *fakeLink) Open(ctx context.Context) (net.Conn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("link closed")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", l.path)
	if err != nil {
		return nil, err
	}
	l.conns = append(l.conns, c)
	if l.sent != nil {
		return teeConn{c, l.sent}, nil
	}
	return c, nil
}

func (l *fakeLink) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for _, c := range l.conns {
		c.Close()
	}
	return nil
}

// remoteCore starts a second core (the "remote host"), serving its socket
// until the test ends, with one workspace titled title.
func remoteCore(t *testing.T, title string) *core.Core {
	t.Helper()
	return hostCore(t, title, "", nil)
}

// hostCore starts a second core serving its socket until the test ends,
// with one workspace titled title in dir ("": the default); edit, when not
// nil, changes the core's options first.
func hostCore(t *testing.T, title, dir string, edit func(*core.Options)) *core.Core {
	t.Helper()
	cfg := config.Default()
	cfg.DefaultShell = "/bin/sh"
	o := core.Options{
		SocketPath: ipctest.NewPath(t), Cols: 80, Rows: 24, Config: &cfg,
		Getenv: func(string) string { return "" }, NoInitialWorkspace: true, Logf: t.Logf,
		WorktreeRegistry: filepath.Join(t.TempDir(), "worktrees.json"),
	}
	if edit != nil {
		edit(&o)
	}
	c, err := core.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Workspaces.CreateWorkspace(title, dir, nil, true); err != nil {
		t.Fatal(err)
	}
	serveCore(t, c)
	return c
}

// serveCore serves c's socket until the test ends.
func serveCore(t *testing.T, c *core.Core) {
	t.Helper()
	served := make(chan error, 1)
	go func() { served <- c.Serve(context.Background()) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		defer cancel()
		c.Shutdown(ctx)
		<-served
	})
}

// hostsHarness is an attached window whose config lists one other host,
// "ssh://build", served by a second core.
func hostsHarness(t *testing.T) (*harness, *core.Core, *fakeHosts) {
	t.Helper()
	rc := remoteCore(t, "Remote")
	fh := &fakeHosts{servers: map[string]string{"ssh://build": rc.SocketPath}}
	h := newAttachedHarness(t, func(o *Options) {
		o.Hosts = fh.connect
		o.Config.Hosts = []string{"ssh://build"}
	})
	return h, rc, fh
}

// remotePane is the one pane of rc.
func remotePane(t *testing.T, rc *core.Core) uint64 {
	t.Helper()
	ps := rc.Workspaces.Panes()
	if len(ps) != 1 {
		t.Fatalf("the remote has %d panes, want 1", len(ps))
	}
	return ps[0].ID
}

// TestHostsSidebar: a window with another host in its config shows that
// host's workspace under the host's header, in the same sidebar as its
// own; a click shows the remote pane, whose view types into the remote
// server's program; an agent state on the remote reaches the window's
// sidebar, its attention count and its title.
func TestHostsSidebar(t *testing.T) {
	h, rc, _ := hostsHarness(t)
	rid := remotePane(t, rc)
	gid := globalID(1, rid)
	h.waitFor("the host connected, its workspace under its header", func() bool {
		c := h.cards()
		hs := h.s.chrome.side.hosts
		return len(c) == 2 && c[0].Title == "Terminal" && c[0].Host == 0 &&
			c[1].Title == "Remote" && c[1].Host == 1 && len(c[1].Panes) == 1 && c[1].Panes[0].ID == gid &&
			len(hs) == 1 && hs[0].Address == "ssh://build" && hs[0].State == hostConnected
	})
	// The list: this machine's header and card, the host's header and
	// card, the "Add host…" button.
	h.s.guard(func() {
		if n := len(h.s.chrome.side.list.Objects); n != 5 {
			t.Errorf("the sidebar list holds %d objects, want 5 (2 headers, 2 cards, Add host)", n)
		}
	})

	// A click on the remote card shows its pane; a key typed in its view
	// reaches the remote program.
	h.s.chrome.side.onWS(1)
	h.waitFor("the remote pane shown and focused", func() bool {
		return h.s.pos.wsID == globalID(1, rc.Workspaces.Workspaces()[0].ID) && h.s.pos.focus == gid && h.s.panes.views[gid] != nil
	})
	v := h.s.panes.views[gid]
	for _, r := range "echo remote-$((6*7))" {
		v.TypedRune(r)
	}
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitPane(t, rc.SocketPath, rid, "remote-42")
	h.waitFor("the echo in the window's view of the remote pane", func() bool {
		return strings.Contains(mirrorText(h.s.b, gid), "remote-42")
	})

	// An agent on the remote waits: the window's sidebar row, its count
	// and its title say so.
	rc.Bus.Publish(bus.AgentState{SurfaceID: rid, Tool: "claude", PID: 4242, State: stateWaiting, Hooked: true, Message: "Allow Bash?"})
	h.waitFor("the remote agent waiting in the sidebar and the title", func() bool {
		c := h.cards()
		return len(c) == 2 && len(c[1].Panes) == 1 && c[1].Panes[0].Waiting &&
			h.s.w.Title() == windowTitle(1) && slices.Contains(h.s.agents.waiting(), gid)
	})

	// The split shortcut splits the remote pane on its host, in its
	// directory; the new pane is shown and focused.
	h.splitKey()
	var split uint64
	h.waitFor("two remote panes, the new one focused", func() bool {
		split = h.s.pos.focus
		return len(rc.Workspaces.Panes()) == 2 && split != gid && hostSlot(split) == 1 && h.s.panes.views[split] != nil &&
			len(h.s.pos.snap.Order) == 3
	})
	in, _ := rc.Workspaces.Surface(localID(split))
	old, _ := rc.Workspaces.Surface(rid)
	ni, _ := in.Info()
	oi, _ := old.Info()
	if ni.Cwd == nil || oi.Cwd == nil || *ni.Cwd != *oi.Cwd {
		t.Errorf("the new remote pane's directory is %v, want its neighbour's %v", ni.Cwd, oi.Cwd)
	}
}

// TestHostsReconnect: when a host's link drops, its header says
// "reconnecting" with the reason and its workspaces leave the sidebar;
// once it connects again they are back, the remote pane's program is the
// same process (nothing on the remote was stopped), and typing into its
// new view works.
func TestHostsReconnect(t *testing.T) {
	h, rc, fh := hostsHarness(t)
	rid := remotePane(t, rc)
	gid := globalID(1, rid)
	sf, _ := rc.Workspaces.Surface(rid)
	pid := sf.Terminal().Pid()
	h.waitFor("the host connected", func() bool { c := h.cards(); return len(c) == 2 })
	h.s.chrome.side.onWS(1)
	h.waitFor("the remote pane's view", func() bool { return h.s.panes.views[gid] != nil })
	old := h.s.panes.views[gid]

	fh.setRefusing(errors.New("ssh: connect to host build port 22: Connection refused"))
	fh.drop()
	h.waitFor("the host reconnecting, with the reason", func() bool {
		hs := h.s.chrome.side.hosts
		return len(hs) == 1 && hs[0].State == hostReconnecting && strings.Contains(hs[0].Err, "Connection refused") &&
			len(h.cards()) == 1 && h.s.panes.views[gid] == nil
	})
	fh.setRefusing(nil)
	h.waitFor("the host connected again, its pane back in a new view", func() bool {
		hs := h.s.chrome.side.hosts
		c := h.cards()
		return len(hs) == 1 && hs[0].State == hostConnected && len(c) == 2 && len(c[1].Panes) == 1
	})
	h.s.chrome.side.onWS(1)
	h.waitFor("a new view of the remote pane", func() bool { v := h.s.panes.views[gid]; return v != nil && v != old })
	if sf, ok := rc.Workspaces.Surface(rid); !ok || sf.Terminal().Pid() != pid {
		t.Fatalf("the remote pane's program changed across the reconnection (want pid %d)", pid)
	}
	v := h.s.panes.views[gid]
	for _, r := range "echo again-$((6*7))" {
		v.TypedRune(r)
	}
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	waitPane(t, rc.SocketPath, rid, "again-42")
}

// TestHostsFailed: a host that never connects is listed with "failed" and
// the reason, and the window's own workspaces are unaffected.
func TestHostsFailed(t *testing.T) {
	fh := &fakeHosts{}
	h := newAttachedHarness(t, func(o *Options) {
		o.Hosts = fh.connect
		o.Config.Hosts = []string{"ssh://nowhere"}
	})
	h.waitFor("the host failed with ssh's reason", func() bool {
		hs := h.s.chrome.side.hosts
		return len(hs) == 1 && hs[0].State == hostFailed && strings.Contains(hs[0].Err, "Could not resolve hostname") &&
			len(h.cards()) == 1 && h.cards()[0].Title == "Terminal"
	})
}

// TestAddHost: the palette's "Add host…" asks for an address; a valid
// one connects at once and is appended to the config file.
func TestAddHost(t *testing.T) {
	rc := remoteCore(t, "Build box")
	fh := &fakeHosts{servers: map[string]string{"me@build": rc.SocketPath}}
	cfgPath := filepath.Join(t.TempDir(), "paneflow.toml")
	if err := os.WriteFile(cfgPath, []byte("# mine\nfont_size = 14\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newAttachedHarness(t, func(o *Options) { o.Hosts = fh.connect; o.ConfigPath = cfgPath })
	h.waitFor("the window's own workspace", func() bool { return len(h.cards()) == 1 })
	h.s.guard(func() {
		h.s.runActionLocked(keymap.AddHost)
		if len(h.s.w.Canvas().Overlays().List()) == 0 {
			t.Fatal("Add host showed no dialog")
		}
	})
	h.s.addHostNow(" me@build ")
	h.waitFor("the added host's workspace", func() bool {
		c := h.cards()
		return len(c) == 2 && c[1].Title == "Build box"
	})
	h.waitFor("the host in the config file", func() bool {
		c, warns := config.Load(cfgPath)
		return len(warns) == 0 && slices.Equal(c.Hosts, []string{"me@build"}) && c.FontSize == 14
	})
	data, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(data), "# mine\nfont_size = 14\n") {
		t.Errorf("the config file's own lines changed:\n%s", data)
	}
}

func TestAddHostToConfig(t *testing.T) {
	cases := []struct {
		name, in, want, err string
	}{
		{name: "missing file", in: "\x00", want: "[[hosts]]\naddress = \"ssh://a\"\n"},
		{name: "kept as it is", in: "# c\ntheme = \"light\"\n[terminal]\nscrollback_lines = 500", want: "# c\ntheme = \"light\"\n[terminal]\nscrollback_lines = 500\n\n[[hosts]]\naddress = \"ssh://a\"\n"},
		{name: "after other hosts", in: "[[hosts]]\naddress = \"b\"\n", want: "[[hosts]]\naddress = \"b\"\n\n[[hosts]]\naddress = \"ssh://a\"\n"},
		{name: "already there", in: "[[hosts]]\naddress = \"ssh://a\"\n", want: "[[hosts]]\naddress = \"ssh://a\"\n"},
		{name: "inline hosts", in: "hosts = [\"b\"]\n", want: "hosts = [\"b\"]\n", err: "not changed: add"},
		{name: "unparsable", in: "theme = \n", want: "theme = \n", err: "cannot be parsed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "paneflow.toml")
			if tc.in != "\x00" {
				os.MkdirAll(filepath.Dir(path), 0o700)
				if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := addHostToConfig(path, "ssh://a")
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("got error %v, want one containing %q", err, tc.err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Errorf("got file\n%q\nwant\n%q", got, tc.want)
			}
			// A file changed is backed up first (config.Append); a new
			// one, or one left as it was, is not.
			bak, berr := os.ReadFile(path + config.BackupSuffix)
			if tc.in != "\x00" && tc.want != tc.in && string(bak) != tc.in {
				t.Errorf("backup %q (%v), want the old file", bak, berr)
			}
			if (tc.in == "\x00" || tc.want == tc.in) && berr == nil {
				t.Errorf("a backup was written for a new file or one left as it was")
			}
		})
	}
}

func TestRehome(t *testing.T) {
	cases := []struct {
		in, want bus.Event
	}{
		{bus.AgentState{SurfaceID: 3, WorkspaceID: 2, State: stateWaiting}, bus.AgentState{SurfaceID: globalID(2, 3), WorkspaceID: globalID(2, 2), State: stateWaiting}},
		{bus.SurfaceClosed{SurfaceID: 3, WorkspaceID: 2}, bus.SurfaceClosed{SurfaceID: globalID(2, 3), WorkspaceID: globalID(2, 2)}},
		{bus.FocusChanged{SurfaceID: 3, WorkspaceID: 2}, bus.FocusChanged{SurfaceID: globalID(2, 3), WorkspaceID: globalID(2, 2)}},
		{bus.WorkspaceSelected{WorkspaceID: 2}, bus.WorkspaceSelected{WorkspaceID: globalID(2, 2)}},
		{bus.AgentState{SurfaceID: 0, State: stateWaiting}, bus.AgentState{State: stateWaiting}}, // no pane stays none
	}
	for _, tc := range cases {
		got := rehome(2, tc.in)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("rehome(2, %v) = %v, want %v", tc.in, got, tc.want)
		}
		if hostSlot(globalID(2, 3)) != 2 || localID(globalID(2, 3)) != 3 {
			t.Fatal("globalID does not round-trip")
		}
	}
}

func TestHostReason(t *testing.T) {
	for _, tc := range []struct{ err, want string }{
		{"connection lost: app: events of ssh://b:22: ssh to ssh://b:22: the connection ended (signal: killed)", "the connection ended (signal: killed)"},
		{"ssh to ssh://b:22: ssh failed: ssh: connect to host b port 22: Connection refused", "ssh failed: ssh: connect to host b port 22: Connection refused"},
		{"host \"x y\": not a host name", "host \"x y\": not a host name"},
	} {
		if got := hostReason("ssh://b:22", errors.New(tc.err)); got != tc.want {
			t.Errorf("hostReason(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestAttachedKeptView: a host's attached backend (keepView) reads its
// model once while no event arrives: later reads, in passes or not, reuse
// it; an event or an operation of the window drops it.
func TestAttachedKeptView(t *testing.T) {
	var views atomic.Int64
	reg := ipc.NewRegistry()
	reg.Register(proto.MethodWorkspaceView, func(context.Context, json.RawMessage) (any, error) {
		n := views.Add(1)
		return proto.WorkspaceViewResult{
			Workspaces: []proto.WorkspaceInfo{{Index: 0, ID: 1, Title: "w", Panes: 1, Active: true}},
			Panes:      []proto.ViewPane{{ID: 7, WorkspaceID: 1, Focused: true, Generation: uint64(n)}},
			Layout:     &workspace.LayoutNode{Type: "leaf"},
		}, nil
	})
	reg.Register(proto.MethodSurfaceFocus, func(context.Context, json.RawMessage) (any, error) {
		return map[string]bool{"focused": true}, nil
	})
	srv := ipctest.Start(t, reg)
	cl := &ipc.Client{Path: srv.Path}
	a := &attached{cl: cl, pc: proto.Client{Caller: cl}, ctx: context.Background(), keepView: true}
	want := func(n int64, when string) {
		t.Helper()
		a.Workspaces()
		end := a.beginReadPass()
		a.Panes()
		a.OutputGens()
		end()
		if got := views.Load(); got != n {
			t.Fatalf("%s: %d workspace.view calls in all, want %d", when, got, n)
		}
	}
	want(1, "reads with no event between")
	want(1, "reads again")
	a.noteEvent()
	want(2, "reads after an event")
	if err := a.Focus(7); err != nil {
		t.Fatal(err)
	}
	want(3, "reads after an operation")
	a.keepView = false
	want(5, "reads without keepView") // one outside the pass, one in it
}

// TestOverviewRowsHosts: the agents overview lists every host's agents;
// a remote pane's directory is the host's, so no branch is read for it
// from this machine's disk.
func TestOverviewRowsHosts(t *testing.T) {
	dir := "/srv/shop"
	local, remote := uint64(3), globalID(1, 3)
	snap := &snapshot{
		Workspaces: []workspace.WorkspaceInfo{{ID: 1, Title: "mine"}, {ID: globalID(1, 1), Title: "build"}},
		Surfaces: []workspace.SurfaceInfo{
			{ID: local, Name: "a", WorkspaceID: 1, Cwd: &dir},
			{ID: remote, Name: "b", WorkspaceID: globalID(1, 1), Cwd: &dir},
		},
		Open: map[uint64]uint64{local: 1, remote: globalID(1, 1)},
	}
	var b agentBoard
	b.apply(bus.AgentState{SurfaceID: local, Tool: "claude", PID: 1, State: stateThinking})
	b.apply(bus.AgentState{SurfaceID: remote, Tool: "claude", PID: 1, State: stateWaiting})
	rows := overviewRows(snap, &b, "", "", func(string) (string, bool) { return "main", false })
	got := map[uint64]agentRow{}
	for _, r := range rows {
		got[r.Surface] = r
	}
	if len(rows) != 2 || got[local].Branch != "main" || got[remote].Branch != "" || got[remote].Workspace != "build" {
		t.Fatalf("rows = %+v, want the local agent on branch main and the remote one in build without a branch", rows)
	}
}

// TestRemoveHost: the palette's "Remove host…" asks which host; removing
// it takes its workspaces and header out of the sidebar and its table out
// of the config file (the rest of the file as it was), and stops nothing
// on the host: its pane's program is the same process, still running.
func TestRemoveHost(t *testing.T) {
	rc := remoteCore(t, "Remote")
	fh := &fakeHosts{servers: map[string]string{"ssh://build": rc.SocketPath}}
	cfgPath := filepath.Join(t.TempDir(), "paneflow.toml")
	orig := "# mine\nfont_size = 14\n\n[[hosts]]\naddress = \"ssh://build\"\n\n# the end\n"
	if err := os.WriteFile(cfgPath, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newAttachedHarness(t, func(o *Options) {
		o.Hosts = fh.connect
		o.ConfigPath = cfgPath
		o.Config.Hosts = []string{"ssh://build"}
	})
	rid := remotePane(t, rc)
	sf, _ := rc.Workspaces.Surface(rid)
	pid := sf.Terminal().Pid()
	h.waitFor("the host connected", func() bool { return len(h.cards()) == 2 })
	h.s.chrome.side.onWS(1)
	h.waitFor("the remote pane shown", func() bool { return h.s.panes.views[globalID(1, rid)] != nil })
	h.s.guard(func() {
		h.s.runActionLocked(keymap.RemoveHost)
		if len(h.s.w.Canvas().Overlays().List()) == 0 {
			t.Fatal("Remove host showed no dialog")
		}
	})
	h.s.removeHostNow("ssh://build")
	h.waitFor("the host gone from the sidebar, the window's own workspace shown", func() bool {
		return len(h.s.chrome.side.hosts) == 0 && len(h.cards()) == 1 && h.cards()[0].Host == 0 &&
			h.s.panes.views[globalID(1, rid)] == nil && hostSlot(h.s.pos.wsID) == 0
	})
	h.waitFor("the host out of the config file", func() bool {
		data, _ := os.ReadFile(cfgPath)
		return string(data) == "# mine\nfont_size = 14\n\n# the end\n"
	})
	if sf, ok := rc.Workspaces.Surface(rid); !ok || sf.Terminal().Pid() != pid || len(rc.Workspaces.Workspaces()) != 1 {
		t.Fatalf("the host's pane changed when the window removed the host (want pid %d alive)", pid)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the remote pane's program %d: %v", pid, err)
	}
	fh.mu.Lock()
	for _, l := range fh.links {
		l.mu.Lock()
		if !l.closed {
			t.Error("a link to the removed host is still open")
		}
		l.mu.Unlock()
	}
	fh.mu.Unlock()
}

func TestRemoveHostFromConfig(t *testing.T) {
	cases := []struct {
		name, in, want, err string
	}{
		{name: "missing file", in: "\x00", want: "\x00"},
		{name: "the only host", in: "# mine\nfont_size = 14\n\n[[hosts]]\naddress = \"ssh://a\"\n", want: "# mine\nfont_size = 14\n"},
		{name: "between others, comments kept",
			in:   "# top\n[[hosts]]\naddress = \"b\"\n\n[[hosts]] # the build box\naddress = \"ssh://a\"\n\n# terminal settings\n[terminal]\nscrollback_lines = 500\n\n[[hosts]]\naddress = \"c\"\n",
			want: "# top\n[[hosts]]\naddress = \"b\"\n\n# terminal settings\n[terminal]\nscrollback_lines = 500\n\n[[hosts]]\naddress = \"c\"\n"},
		{name: "last, no newline", in: "font_size = 14\n\n[[hosts]]\naddress = \"ssh://a\"", want: "font_size = 14\n"},
		{name: "other keys of the table go too", in: "[[hosts]]\naddress = \" ssh://a \"\nname = \"x\"\n", want: ""},
		{name: "not there", in: "[[hosts]]\naddress = \"b\"\n", want: "[[hosts]]\naddress = \"b\"\n"},
		{name: "inline hosts", in: "hosts = [\"ssh://a\"]\n", want: "hosts = [\"ssh://a\"]\n", err: "not changed: take the [[hosts]] table"},
		{name: "unparsable", in: "theme = \n", want: "theme = \n", err: "cannot be parsed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "paneflow.toml")
			if tc.in != "\x00" {
				if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := removeHostFromConfig(path, "ssh://a")
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("got error %v, want one containing %q", err, tc.err)
			}
			got, rerr := os.ReadFile(path)
			if tc.want == "\x00" {
				if rerr == nil {
					t.Fatalf("a file was created:\n%s", got)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("got file\n%q\nwant\n%q", got, tc.want)
			}
			// A file changed is backed up first (config.Rewrite); one
			// left as it was is not.
			bak, berr := os.ReadFile(path + config.BackupSuffix)
			if tc.want != tc.in && string(bak) != tc.in {
				t.Errorf("backup %q (%v), want the old file", bak, berr)
			}
			if tc.want == tc.in && berr == nil {
				t.Errorf("a backup was written for a file left as it was")
			}
		})
	}
}

// TestHostUpAfterSubscribe: a host shows as connected only once its
// events are subscribed to, so a change on the host right after the
// window's first read of its model (which the window then keeps while no
// event comes) reaches the window. upHook runs that read and that change
// between "connected" and the events' first read: with the host published
// before its subscription, the change produced no event and the kept view
// (an hour here) never showed it.
func TestHostUpAfterSubscribe(t *testing.T) {
	hb, rc, _, titles := hostsOverCores(t)
	firstRead := make(chan []string, 1)
	hb.upHook = func(int) {
		firstRead <- titles()
		if _, err := rc.Workspaces.CreateWorkspace("Later", "", nil, false); err != nil {
			t.Error(err)
		}
	}
	hb.AddHost("ssh://build")
	select {
	case got := <-firstRead:
		if want := []string{"Local", "Remote"}; !slices.Equal(got, want) {
			t.Fatalf("the first read once connected: %q, want %q", got, want)
		}
	case <-time.After(testDeadline):
		t.Fatal("the host never came up")
	}
	want := []string{"Local", "Remote", "Later"}
	deadline := time.Now().Add(testDeadline)
	for got := titles(); !slices.Equal(got, want); got = titles() {
		if time.Now().After(deadline) {
			t.Fatalf("workspaces %q, want %q: the host's change after the first read never showed", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostReconnectDropsKeptView: the model of a host the window read and
// kept before its link dropped is not shown after it reconnects: a change
// made on the host meanwhile came as no event (nothing was subscribed).
func TestHostReconnectDropsKeptView(t *testing.T) {
	hb, rc, fh, titles := hostsOverCores(t)
	ups := make(chan int, 2)
	hb.upHook = func(int) { ups <- 1 }
	up := func(when string) {
		t.Helper()
		select {
		case <-ups:
		case <-time.After(testDeadline):
			t.Fatalf("the host never came up %s", when)
		}
	}
	hb.AddHost("ssh://build")
	up("at first")
	if got, want := titles(), []string{"Local", "Remote"}; !slices.Equal(got, want) {
		t.Fatalf("workspaces %q, want %q", got, want)
	}
	fh.setRefusing(errors.New("ssh: connect to host build port 22: Connection refused"))
	fh.drop()
	waitHostState(t, hb, hostReconnecting)
	if _, err := rc.Workspaces.CreateWorkspace("Meanwhile", "", nil, false); err != nil {
		t.Fatal(err)
	}
	fh.setRefusing(nil)
	up("again")
	if got, want := titles(), []string{"Local", "Remote", "Meanwhile"}; !slices.Equal(got, want) {
		t.Fatalf("once reconnected, workspaces %q, want %q", got, want)
	}
}

// waitHostState waits until hb's one host is in state.
func waitHostState(t *testing.T, hb *hostsBackend, state string) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		st := hb.hostStatuses()
		if len(st) == 1 && st[0].State == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("host states %+v, want one %s", st, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hostsOverCores is a hostsBackend whose primary is attached to a core
// (one workspace "Local") and whose one host, "ssh://build", is another
// (rc, one workspace "Remote"), the host's model kept for an hour; it
// is not started: set upHook, then AddHost. titles lists the
// window-side workspaces' titles.
func hostsOverCores(t *testing.T) (hb *hostsBackend, rc *core.Core, fh *fakeHosts, titles func() []string) {
	t.Helper()
	lc := remoteCore(t, "Local")
	rc = remoteCore(t, "Remote")
	primary, err := Attach(context.Background(), AttachOptions{Path: lc.SocketPath})
	if err != nil {
		t.Fatal(err)
	}
	fh = &fakeHosts{servers: map[string]string{"ssh://build": rc.SocketPath}}
	hb = newHosts(primary, fh.connect, 0, t.Logf)
	t.Cleanup(func() { hb.Shutdown(context.Background()) })
	titles = func() []string {
		var out []string
		for _, w := range hb.Workspaces() {
			out = append(out, w.Title)
		}
		return out
	}
	return hb, rc, fh, titles
}

// TestHostsShownPanes: the window tells a host which of its panes it
// shows (screen.shown), so that the host's stream paces the others: none
// while the window shows its own workspace, the remote pane once its
// workspace is shown, none again when the window goes back.
func TestHostsShownPanes(t *testing.T) {
	rc := remoteCore(t, "Remote")
	sent := &lockedBuffer{}
	fh := &fakeHosts{servers: map[string]string{"ssh://build": rc.SocketPath}, sent: sent}
	h := newAttachedHarness(t, func(o *Options) {
		o.Hosts = fh.connect
		o.Config.Hosts = []string{"ssh://build"}
	})
	rid := remotePane(t, rc)
	shownRe := regexp.MustCompile(`"method":"screen\.shown","params":\{"token":"[^"]*","surfaces":(\[[0-9,]*\]|null)\}`)
	calls := func() int { return len(shownRe.FindAllString(sent.String(), -1)) }
	last := func() string {
		m := shownRe.FindAllStringSubmatch(sent.String(), -1)
		if len(m) == 0 {
			return ""
		}
		return m[len(m)-1][1]
	}
	h.waitFor("the host's card, the host told no pane of it is shown", func() bool { return len(h.cards()) == 2 && last() == "[]" })
	n := calls()
	h.s.chrome.side.onWS(1)
	want := fmt.Sprintf("[%d]", rid)
	h.waitFor("the host told its pane is shown", func() bool { return last() == want })
	if got := calls(); got != n+1 {
		t.Errorf("%d screen.shown calls to show the pane, want 1", got-n)
	}
	h.s.chrome.side.onWS(0)
	h.waitFor("the host told no pane of it is shown again", func() bool { return last() == "[]" })
}
