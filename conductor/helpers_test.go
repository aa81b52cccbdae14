package conductor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/bus/bustest"
	"github.com/paneflow-go/paneflow/internal/clock"
)

// fakePanes is a PaneSource holding a list of panes.
type fakePanes struct {
	mu    sync.Mutex
	panes []Pane
}

func (f *fakePanes) Panes() []Pane {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.panes)
}

func (f *fakePanes) Process(id uint64) (int, PaneState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.panes {
		if p.SurfaceID == id {
			return p.PID, p.paneState()
		}
	}
	return 0, PaneClosed
}

func (f *fakePanes) add(p Pane) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.panes = append(f.panes, p)
}

func (f *fakePanes) remove(id uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.panes = slices.DeleteFunc(f.panes, func(p Pane) bool { return p.SurfaceID == id })
}

func (f *fakePanes) setPID(id uint64, pid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.panes {
		if f.panes[i].SurfaceID == id {
			f.panes[i].PID, f.panes[i].Starting = pid, false
		}
	}
}

// fakeProc is one process of a fake /proc tree.
type fakeProc struct {
	pid, ppid int
	start     uint64
	comm      string
	argv      []string
	zombie    bool
	exe       string // the target of <pid>/exe; "" for none (unreadable)
}

// fakeProcs is a mutable fake /proc, read through the real procFS code.
type fakeProcs struct {
	mu         sync.Mutex
	procs      map[int]fakeProc
	noChildren bool // omit task/<tid>/children, like kernels without CONFIG_PROC_CHILDREN
	fsys       fstest.MapFS
}

func newFakeProcs(procs ...fakeProc) *fakeProcs {
	f := &fakeProcs{procs: map[int]fakeProc{}}
	for _, p := range procs {
		f.procs[p.pid] = p
	}
	f.rebuild()
	return f
}

// set adds or replaces processes.
func (f *fakeProcs) set(procs ...fakeProc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range procs {
		f.procs[p.pid] = p
	}
	f.rebuildLocked()
}

// kill removes processes.
func (f *fakeProcs) kill(pids ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, pid := range pids {
		delete(f.procs, pid)
	}
	f.rebuildLocked()
}

func (f *fakeProcs) rebuild() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rebuildLocked()
}

// rebuildLocked renders the processes as Linux would in /proc.
func (f *fakeProcs) rebuildLocked() {
	m := fstest.MapFS{}
	kids := map[int][]int{}
	for _, p := range f.procs {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	for _, p := range f.procs {
		dir := strconv.Itoa(p.pid)
		state := "S"
		if p.zombie {
			state = "Z"
		}
		m[dir+"/stat"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			"%d (%s) %s %d %d %d 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 %d 8175616 981 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
			p.pid, p.comm, state, p.ppid, p.pid, p.pid, p.start))}
		var cmd []byte
		for _, a := range p.argv {
			cmd = append(append(cmd, a...), 0)
		}
		m[dir+"/cmdline"] = &fstest.MapFile{Data: cmd}
		m[dir+"/comm"] = &fstest.MapFile{Data: []byte(p.comm + "\n")}
		if p.exe != "" {
			m[dir+"/exe"] = &fstest.MapFile{Data: []byte(p.exe), Mode: fs.ModeSymlink | 0o777}
		}
		task := dir + "/task/" + dir
		if f.noChildren {
			m[task+"/stat"] = &fstest.MapFile{Data: m[dir+"/stat"].Data}
			continue
		}
		c := slices.Clone(kids[p.pid])
		slices.Sort(c)
		var b strings.Builder
		for _, k := range c {
			b.WriteString(strconv.Itoa(k) + " ")
		}
		m[task+"/children"] = &fstest.MapFile{Data: []byte(b.String())}
	}
	f.fsys = m
}

func (f *fakeProcs) table() procFS {
	f.mu.Lock()
	defer f.mu.Unlock()
	return procFS{fsys: f.fsys}
}

func (f *fakeProcs) Process(pid int) (process, error) { return f.table().Process(pid) }

func (f *fakeProcs) Descendants(root, limit int) ([]process, error) {
	return f.table().Descendants(root, limit)
}

// loadProcTree reads a fake /proc tree description from testdata: one
// process per line, "pid ppid start comm | argv…" (argv split on spaces),
// "#" comments, and a "nochildren" line for kernels without children
// files.
func loadProcTree(t *testing.T, path string) *fakeProcs {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f := &fakeProcs{procs: map[int]fakeProc{}}
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line == "nochildren" {
			f.noChildren = true
			continue
		}
		head, argv, _ := strings.Cut(line, "|")
		var p fakeProc
		var comm string
		if _, err := fmt.Sscanf(head, "%d %d %d %s", &p.pid, &p.ppid, &p.start, &comm); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		// comm may contain spaces, written with underscores in the file.
		p.comm = strings.ReplaceAll(comm, "_", " ")
		p.argv = strings.Fields(argv)
		f.procs[p.pid] = p
	}
	f.rebuild()
	return f
}

// harness drives a conductor with a fake clock, fake panes and a fake
// process table, without starting its bus goroutine: tests deliver pane
// events with h.event and advance time with h.clock.Advance.
type harness struct {
	t     *testing.T
	c     *Conductor
	clock *clock.Fake
	panes *fakePanes
	procs *fakeProcs
	bus   *bus.Bus
	sub   *bus.Subscription
}

// The default layout: workspace 1 (index 0) holds panes 1 and 2, whose
// shells are pids 100 and 200; workspace 2 (index 1) holds pane 3, pid 300.
func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	h := &harness{t: t, clock: clock.NewFake(time.Time{}), bus: bustest.NewBus(t)}
	h.panes = &fakePanes{panes: []Pane{
		{SurfaceID: 1, WorkspaceID: 1, Workspace: 0, Name: "api", PID: 100},
		{SurfaceID: 2, WorkspaceID: 1, Workspace: 0, Name: "web", PID: 200},
		{SurfaceID: 3, WorkspaceID: 2, Workspace: 1, Name: "docs", PID: 300},
	}}
	h.procs = newFakeProcs(
		fakeProc{pid: 100, ppid: 10, start: 1000, comm: "bash", argv: []string{"-bash"}},
		fakeProc{pid: 200, ppid: 10, start: 1000, comm: "zsh", argv: []string{"-zsh"}},
		fakeProc{pid: 300, ppid: 10, start: 1000, comm: "fish", argv: []string{"fish"}},
	)
	o.Bus, o.Panes, o.Clock = h.bus, h.panes, h.clock
	if o.procs == nil && !o.noProcs {
		o.procs = h.procs
	}
	h.c = New(o)
	h.sub = h.bus.Subscribe("test", bus.MatchTypes(append(slices.Clone(agentEventTypes), bus.TypeAgentState)...), 0)
	t.Cleanup(h.c.Close)
	// Learn the panes as Start would, without the bus goroutine.
	h.c.resync()
	h.clock.Advance(h.c.scanDelay)
	h.drain()
	return h
}

// agentEventTypes are the ai.* event types.
var agentEventTypes = []string{
	bus.TypeAISessionStart, bus.TypeAIPromptSubmit, bus.TypeAIToolUse, bus.TypeAINotification,
	bus.TypeAIStop, bus.TypeAIExit, bus.TypeAISessionEnd,
}

// send applies one ai.* request as the socket would.
func (h *harness) send(method, params string) (Ack, error) {
	h.t.Helper()
	f, err := decodeFrame(method, json.RawMessage(params))
	if err != nil {
		return Ack{}, err
	}
	res, err := h.c.apply(f)
	if err != nil {
		return Ack{}, err
	}
	return res.(Ack), nil
}

// mustSend applies a frame that must be accepted.
func (h *harness) mustSend(method, params string) Ack {
	h.t.Helper()
	a, err := h.send(method, params)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, params, err)
	}
	return a
}

// event delivers a pane event as the bus goroutine would.
func (h *harness) event(e bus.Event) { h.c.handleEvent(e) }

// activity reports output in pane id and lets the debounced scan run.
func (h *harness) activity(id uint64) {
	h.event(bus.SurfaceChanged{SurfaceID: id, Generation: 1})
	h.clock.Advance(h.c.scanDelay)
}

// drain returns the events published since the last drain.
func (h *harness) drain() []bus.Event {
	evs, dropped := h.sub.Drain(nil)
	if dropped > 0 {
		h.t.Fatalf("test subscription dropped %d events", dropped)
	}
	return evs
}

// states returns the agent_state events since the last drain as
// "surface:tool:previous>state" strings.
func (h *harness) states() []string {
	var out []string
	for _, e := range h.drain() {
		if s, ok := e.(bus.AgentState); ok {
			out = append(out, fmt.Sprintf("%d:%s:%s>%s", s.SurfaceID, s.Tool, s.Previous, s.State))
		}
	}
	return out
}

// status returns pane id's status, or a zero Status when none is known.
func (h *harness) status(id uint64) Status {
	st, _ := h.c.Status(id)
	return st
}
