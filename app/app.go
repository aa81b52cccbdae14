package app

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/paneflow-go/paneflow/app/termview"
	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/config"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/internal/ports"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/workspace"
)

// ID is the desktop app's application id (Fyne's unique id, also used by
// the desktop for notifications).
const ID = "io.paneflow.app"

// Timings of the shell. None of them is asserted on by tests.
const (
	// refreshEvery re-reads the panes' working directories and foreground
	// commands, which no event carries.
	refreshEvery = 1500 * time.Millisecond
	// describeEvery re-reads them, and the ports the panes listen on,
	// even when no pane printed anything since the last reading (a
	// program may change directory or start listening silently).
	describeEvery = 10 * time.Second
	// shutdownGrace bounds closing the socket and the panes at quit.
	shutdownGrace = 15 * time.Second
)

// Options configures [Run].
type Options struct {
	// Backend owns the panes the window shows: [NewLocal] hosts a core
	// in-process. Run serves it and shuts it down when the app quits
	// (the local backend closes every pane and removes the socket). Run
	// restores the saved session into it, or creates the default
	// "Terminal" workspace when it has none. Required.
	Backend Backend
	// Config is the configuration the window starts with.
	Config config.Config
	// ConfigWarnings are the problems found reading Config from its file;
	// the window shows them.
	ConfigWarnings []string
	// Notices are messages the banner shows from the start (a server of
	// another version than the window's).
	Notices []string
	// ConfigPath is the configuration file to watch for changes; "" does
	// not watch.
	ConfigPath string
	// SessionPath is the session file restored at start and saved on
	// every structural change and at quit; "" keeps no session.
	SessionPath string
	// Context quits the app (as the quit action does, without asking)
	// when it is done; nil never does.
	Context context.Context
	// Logf receives diagnostics; nil writes them to stderr.
	Logf func(format string, args ...any)
	// RestartServer starts the server again on the attached backend's
	// socket (which restores its session) after the window lost it: the
	// banner's "Restart server and restore" action runs it, then
	// reattaches. nil offers no restart. It runs off the UI goroutine.
	RestartServer func(ctx context.Context) error
	// Hosts, when not nil, lets the window show other hosts' servers
	// beside Backend's (issue 30): the config's hosts, and those added
	// with "Add host…" (which appends them to ConfigPath), are connected
	// through it, each under its own header in the sidebar, reconnected
	// with backoff when their link drops. [SSHHosts] connects over the
	// user's ssh. nil offers no hosts.
	Hosts HostConnector
	// HintPath is a file whose existence means the first-start hint (one
	// line above the panes: the palette, quick launch, the shortcuts,
	// the settings) was shown; the window creates it when it shows the
	// hint, so it is shown once. "" shows no hint.
	HintPath string
	// Events, when not nil, lets the UI loop sleep in the window system's
	// event wait while the app is idle, instead of polling 60 times a
	// second; posted work wakes it. It is used only with the desktop
	// driver on platforms where the shell can tell the UI thread (Linux,
	// Windows).
	Events EventWaiter
}

// FramePainter is an optional capability of an [EventWaiter]: it paints
// the window at once instead of at the toolkit's next frame tick. The
// terminal views call it after drawing a typed key's echo (render on
// input: termview.Options.PaintNow).
type FramePainter interface {
	// PaintNow paints every window whose canvas changed and swaps its
	// buffers. It is called on the UI thread only, from work posted to the
	// running loop, never from within a paint.
	PaintNow()
}

// RegionPainter is an optional capability of an [EventWaiter] that has
// [FramePainter]: it puts part of a terminal view's image on screen
// without repainting the rest of the window (termview.Options.PaintRegion).
type RegionPainter interface {
	// PaintRegion uploads r (pixels of img.Image) to img's texture and
	// paints only the part of img's window they cover (other changes of
	// the window wait for its next whole paint), or does nothing and
	// reports false: img has no texture of that size yet, or the window
	// system cannot show a part of a frame. It is called on the UI thread
	// only, like PaintNow.
	PaintRegion(img *canvas.Image, r image.Rectangle) bool
}

// Run opens the window on a and blocks until the app quits: the window was
// closed (after a confirmation when programs run in panes), the quit
// action ran, or o.Context is done. It then saves the session, shuts the
// core down and returns. It must be called on the main goroutine with a
// GLFW app (a.Run is called inside). With Fyne's test app, whose Run
// returns at once, it still blocks until one of the above happens. When
// it fails before the window opens (o.Backend is nil), nothing was started.
// It first keeps Fyne from loading its bundled emoji font
// (dropBundledEmoji).
func Run(a fyne.App, o Options) error {
	dropBundledEmoji()
	s, err := start(a, o)
	if err != nil {
		return err
	}
	a.Run()
	if s.loop.thread != 0 {
		// The desktop driver's Run returns only once its loop has ended:
		// the app has quit, whoever quit it.
		s.life.runStoppedHooks()
	}
	<-s.life.quitCh
	return s.stop()
}

// shell is the running desktop app: one window over one backend.
//
// # Concurrency
//
// Fyne calls the shell on its UI goroutine; the shell's own goroutines
// (bus reader, model worker, session saver, config watcher) reach the UI
// only through [shell.do]. Fyne's test driver runs fyne.Do callbacks on the
// calling goroutine, so every entry point that touches UI state also holds
// mu: it is uncontended with the real driver and keeps tests race-free.
// Callbacks Fyne may run while mu is held (a view gaining focus because
// the shell focused it) must not take mu.
type shell struct {
	a fyne.App
	w fyne.Window
	o Options // Logf defaulted (start)
	b Backend // a *hostsBackend when the window can show other hosts (see hosts)

	mu     sync.Mutex    // guards the UI state below; see the type's doc
	conf   appliedConfig // the configuration, its key map and how the panes are drawn from it
	panes  paneMaps      // what the window keeps per pane: views, attention, queued prompts, groups
	chrome chrome        // the widgets around the panes: split area or overview, sidebar, tabs, banner, toast, composer
	agents agentBoard    // the agents in the panes and their worktrees' checks
	pos    position      // what the window shows: the snapshot, workspace, focused and zoomed pane
	kb     keyState      // modifiers held, the window's focus, the pane being focused, the dialogs keys answer
	views  cockpit       // the panel in the overlay, and the launcher the launch views share

	// loop posts to Fyne's UI goroutine and lets it sleep while idle
	// (idle.go); set before the shell's goroutines start.
	loop uiLoop
	// handed carries the model reader's snapshots and events to the UI.
	handed handover

	// work runs model changes in order off the UI goroutine and saves
	// the session (worker.go).
	work *worker
	// life is the shell's run: its goroutines, quit and stop.
	life *lifetime
}

// start builds the window and starts the shell's goroutines; it does not
// run the Fyne event loop.
func start(a fyne.App, o Options) (*shell, error) {
	if o.Backend == nil {
		return nil, errors.New("app: Options.Backend is nil")
	}
	if o.Logf == nil {
		o.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	home, _ := os.UserHomeDir()
	s := &shell{
		a: a, o: o, b: o.Backend,
		conf: appliedConfig{cfg: o.Config}, panes: newPaneMaps(), views: cockpit{launch: newLauncher(home, o.SessionPath)},
		life: newLifetime(),
	}
	s.chrome.probes.usage = map[string]fyne.CanvasObject{}
	s.work = newWorker(s.life.done, func(what string, err error) {
		s.do(func() { s.chrome.banner.show(fmt.Sprintf("%s: %v", what, err)) })
	})
	if _, ok := a.Driver().(desktop.Driver); ok {
		// start runs on the main goroutine, which the desktop driver
		// keeps on the main thread; its loop will run there.
		s.loop.thread = threadID()
	}
	if o.Events != nil && s.loop.thread != 0 {
		s.loop.idle = newIdler(o.Events)
		if p, ok := o.Events.(FramePainter); ok {
			s.conf.look.paintNow = p.PaintNow
			if r, ok := o.Events.(RegionPainter); ok {
				s.conf.look.paintRegion = r.PaintRegion
			}
		}
		if os.Getenv("PANEFLOW_RENDER_PROBE") == "1" {
			s.loop.idle.probe = os.Stderr
		}
	}
	if os.Getenv("PANEFLOW_RENDER_PROBE") == "1" {
		s.conf.look.probe = os.Stderr
	}
	if o.Hosts != nil {
		s.b = newHosts(o.Backend, o.Hosts, 0, s.o.Logf)
		if os.Getenv("PANEFLOW_UI_PROBE") == "1" {
			s.chrome.probes.hosts.w = os.Stderr
		}
	}
	s.kb.windowFocused.Store(true)
	for _, m := range o.Notices {
		s.chrome.notice(m)
	}
	s.restoreOrCreate()

	s.mu.Lock()
	s.applyConfigLocked(o.Config, o.ConfigWarnings, true)
	s.buildWindowLocked()
	s.mu.Unlock()

	if o.SessionPath != "" {
		path := o.SessionPath
		s.work.saveTo(func() error { return s.b.SaveSession(path) }, s.o.Logf)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.life.cancel = cancel
	sub := s.b.Subscribe("gui", guiEvents, 4096)
	if s.hosts() != nil {
		// After the subscription: every state change of a host reaches
		// the reader.
		s.hosts().AddHosts(o.Config.Hosts)
	}
	s.life.wg.Add(3)
	// The reader starts after the first picture is applied (below):
	// started here, a snapshot it applied (a host that connected
	// meanwhile) could be overwritten by the older first picture, and
	// the reader, whose last snapshot is the newer one, would hand over
	// nothing more until the model changed again.
	go s.work.run(&s.life.wg)
	go func() {
		defer s.life.wg.Done()
		s.life.served <- s.serve(context.WithoutCancel(ctx))
	}()
	if o.ConfigPath != "" {
		s.watchConfig(ctx, o.ConfigPath)
	}
	if s.loop.idle != nil {
		s.life.wg.Add(1)
		go s.runIdle()
	}
	if o.Context != nil {
		s.life.wg.Add(1)
		go func() {
			defer s.life.wg.Done()
			select {
			case <-o.Context.Done():
				s.do(s.quitLocked)
			case <-s.life.done:
			}
		}()
	}

	// The first picture, synchronously, so the window opens complete.
	snap := takeSnapshot(s.b, nil)
	s.mu.Lock()
	s.applyLocked(snap, nil)
	s.mu.Unlock()
	// Events from the subscription on are queued for the reader: what it
	// hands over is newer than the first picture.
	s.handed.goReader(func() { s.readEvents(sub) })

	lc := a.Lifecycle()
	lc.SetOnEnteredForeground(func() { s.kb.setWindowFocused(true) })
	lc.SetOnExitedForeground(func() { s.kb.setWindowFocused(false) })
	lc.SetOnStarted(func() {
		s.life.markStarted()
		s.logf("paneflow: window ready socket=%s", s.b.Endpoint())
	})
	lc.SetOnStopped(s.life.quit)
	if s.loop.thread != 0 {
		s.life.takeStoppedHooks(lc)
	}
	s.w.Show()
	return s, nil
}

// restoreOrCreate fills the model: the saved session when there is one,
// else (or when restoring fails) the default workspace.
func (s *shell) restoreOrCreate() {
	if s.o.SessionPath != "" {
		warns, err := s.b.RestoreSession(s.o.SessionPath)
		if err != nil {
			warns = append(warns, err.Error())
		}
		for _, w := range warns {
			s.logf("paneflow: session: %s", w)
			s.chrome.notice("session: " + w)
		}
	}
	if len(s.b.Workspaces()) == 0 {
		if err := s.b.CreateWorkspace("Terminal", "", true); err != nil {
			s.logf("paneflow: first workspace: %v", err)
		}
	}
}

// buildWindowLocked creates the window and its widgets.
func (s *shell) buildWindowLocked() {
	s.w = s.a.NewWindow(windowTitle(0))
	s.chrome.area = newSplitArea(func(path []int, ratios []float64) {
		wsID := s.pos.wsID
		s.work.mutate("resize panes", func() error { return s.b.SetRatios(wsID, path, ratios) })
	})
	s.chrome.side = newSidebar(
		// A click on a workspace or a pane shows it: the agents overview,
		// standing in the split area's place, closes.
		func(i int) { s.guard(func() { s.closeOverviewLocked(); s.selectWorkspaceLocked(i) }) },
		func(id uint64) {
			s.guard(s.closeOverviewLocked)
			s.work.mutate("focus", func() error { return s.b.Focus(id) })
		},
		func() { s.guard(s.newWorkspaceLocked) },
		func() { s.guard(s.openOverviewLocked) },
		s.views.launch.home, // the sidebar shortens paths under it
	)
	s.chrome.side.onPort = s.openPort
	s.chrome.side.onLaunchPad = func() { s.guard(s.toggleLaunchPadLocked) }
	s.chrome.side.onChecks = func(id uint64) { s.guard(func() { s.openChecksLocked(id) }) }
	if s.hosts() != nil {
		s.chrome.side.onAddHost = func() { s.guard(s.addHostLocked) }
		s.chrome.side.onRemoveHost = func(address string) { s.guard(func() { s.removeHostLocked(address) }) }
	}
	go s.findAgentLaunchers()
	s.chrome.buildBanner()
	s.chrome.comp = newComposer(shellHost{s})
	s.chrome.tabs = newTabStrip(
		func(i int) { s.guard(func() { s.selectWorkspaceLocked(i) }) },
		func(i int) { s.guard(func() { s.closeWorkspaceLocked(i) }) },
		func() { s.guard(s.newWorkspaceLocked) })
	s.chrome.tabs.onMove = func(i, to int) { s.guard(func() { s.moveWorkspaceLocked(i, to) }) }
	s.chrome.tabs.onRename = func(i int) { s.guard(func() { s.renameWorkspaceLocked(i) }) }
	s.chrome.tabs.onMenu = func(i int, pos fyne.Position) { s.guard(func() { s.tabMenuLocked(i, pos) }) }
	top := container.NewVBox(s.toolbarLocked(), s.chrome.tabs.root)
	if hint := s.hintLocked(); hint != nil {
		top = container.NewVBox(top, hint)
	}
	content := s.chrome.layout(top, s.chrome.comp)
	s.w.SetContent(content)
	s.w.Resize(fyne.NewSize(1280, 800))
	s.w.SetCloseIntercept(func() { s.guard(s.closeRequestedLocked) })
	s.installCanvasKeysLocked()
}

// logf writes a diagnostic (Options.Logf).
func (s *shell) logf(format string, args ...any) { s.o.Logf(format, args...) }

// hosts is the backend when the window can show other hosts
// (Options.Hosts), else nil.
func (s *shell) hosts() *hostsBackend {
	h, _ := s.b.(*hostsBackend)
	return h
}

// guard runs f holding mu: the entry for Fyne callbacks (see shell).
func (s *shell) guard(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// do runs f on the UI goroutine holding mu.
//
// Once Fyne's loop has ended, fyne.Do runs what it is given at once on the
// caller's goroutine instead, and UI calls there crash in GLFW. That
// happens when Fyne's own SIGINT/SIGTERM handler quits the loop before the
// shell's (both see the signal): posted work then finds the window gone.
// With the desktop driver, f is therefore dropped when it would run on
// another thread than the UI thread; the shell's own shutdown (stop) still
// closes the views, saves the session and shuts the core down.
func (s *shell) do(f func()) { s.post(func() { s.guard(f) }) }

// post runs f on the UI goroutine, unless Fyne's loop has ended (see do).
// The pane views post their frames through it too. It wakes the loop when
// it sleeps (see idler).
func (s *shell) post(f func()) { s.loop.post(f) }

// snapshot is the model as the window shows it, read off the UI
// goroutine (reading pane names and working directories reads /proc).
type snapshot struct {
	Workspaces []workspace.WorkspaceInfo
	Surfaces   []workspace.SurfaceInfo
	Active     workspace.WorkspaceInfo
	HasActive  bool
	Tree       *workspace.LayoutNode      // the active workspace's; nil when empty
	Focused    map[uint64]bool            // the focused pane of each workspace
	Open       map[uint64]uint64          // every open pane → its workspace id
	Order      []uint64                   // every open pane, in sidebar order
	Teams      map[uint64]core.TeamMember // panes in an agent team; nil when none
	// Ports are the TCP ports each pane's process tree listens on, as
	// "3000 8080" (Linux; refreshed on the reader's slow tick only).
	Ports map[uint64]string
	// Branches is the git branch of each pane's directory (read from its
	// .git/HEAD, no git process; a linked worktree's marked so), for the
	// panes in a repository on this machine; refreshed with Ports.
	Branches map[uint64]string
	// Roots is the root of the git work tree each pane's directory is in
	// (the directory holding its .git), read with Branches: a
	// bus.ChecksChanged's worktree is matched against it.
	Roots map[uint64]string
	// Usage is what each pane's agent session used, WorkspaceUsage what
	// each workspace's agents used since the server started
	// (Backend.Usage; read with every snapshot, from memory).
	Usage          map[uint64]proto.UsageStatus
	WorkspaceUsage map[uint64]proto.Usage
	// Hosts are the remote hosts' states (hostLister), nil without any.
	Hosts []hostStatus
}

// paneBranches reads the git branch and work tree root of each pane's
// directory in snap, once per directory.
func paneBranches(snap *snapshot) (branches, roots map[uint64]string) {
	branches, roots = map[uint64]string{}, map[uint64]string{}
	type head struct{ branch, root string }
	byDir := map[string]head{}
	for _, in := range snap.Surfaces {
		if in.Cwd == nil || *in.Cwd == "" || hostSlot(in.ID) != 0 {
			continue // a remote pane's directory is on its host
		}
		h, ok := byDir[*in.Cwd]
		if !ok {
			root, name, wt := gitHead(*in.Cwd)
			if h = (head{name, root}); wt && name != "" {
				h.branch += " (worktree)"
			}
			byDir[*in.Cwd] = h
		}
		if h.branch != "" {
			branches[in.ID] = h.branch
		}
		if h.root != "" {
			roots[in.ID] = h.root
		}
	}
	return branches, roots
}

// panePorts finds the ports the panes of snap listen on, through cache;
// pids are this machine's panes' programs (Backend.PanePIDs), remote the
// ports of other hosts' panes as their servers listed them (hostPorter).
func panePorts(pids map[uint64]int, snap *snapshot, cache *ports.Cache, remote map[uint64][]int) map[uint64]string {
	out := map[uint64]string{}
	byPid := map[int]uint64{}
	var roots []int
	for _, id := range snap.Order {
		if pid := pids[id]; pid > 0 && hostSlot(id) == 0 {
			byPid[pid] = id
			roots = append(roots, pid)
		}
	}
	chips := func(id uint64, list []int) {
		var b strings.Builder
		for i, p := range list {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(p))
		}
		out[id] = b.String()
	}
	for pid, list := range cache.Listening(roots) {
		chips(byPid[pid], list)
	}
	for id, list := range remote {
		if hostSlot(id) != 0 && len(list) > 0 {
			chips(id, list)
		}
	}
	return out
}

// takeSnapshot reads the model. The panes' descriptions (names, titles,
// working directories, foreground commands: several /proc reads and a
// tcgetpgrp per pane) are read anew unless surfaces is not nil, which is
// then used instead; the rest is in memory.
func takeSnapshot(b Backend, surfaces []workspace.SurfaceInfo) *snapshot {
	s := &snapshot{Focused: map[uint64]bool{}, Open: map[uint64]uint64{}, Teams: b.Teams()}
	if hl, ok := b.(hostLister); ok {
		s.Hosts = hl.hostStatuses()
	}
	s.Active, s.Tree, s.HasActive = b.ActiveTree()
	s.Workspaces = b.Workspaces()
	for _, p := range b.Panes() {
		s.Open[p.ID] = p.WorkspaceID
		s.Order = append(s.Order, p.ID)
		if p.Focused {
			s.Focused[p.ID] = true
		}
	}
	if surfaces == nil {
		surfaces = b.Surfaces()
	}
	s.Surfaces = surfaces
	s.Usage, s.WorkspaceUsage = b.Usage()
	return s
}

// guiEvents is the filter of the window's bus subscription: the events
// that change what the window shows. Output (SurfaceChanged) reaches the
// visible panes' views through their own watchers, and the ai.* frames
// are followed by the AgentState the window shows. A UsageChanged (one
// per pane at most each time the server polls its agent's records) has
// the reader read the usage figures again, not the panes' descriptions
// (see keepsDescriptions).
func guiEvents(e bus.Event) bool { return guiEventType(e.EventType()) }

// guiEventType is guiEvents by the event's type.
func guiEventType(t string) bool {
	return t != bus.TypeSurfaceChanged && !strings.HasPrefix(t, "ai.")
}

// keepsDescriptions reports whether evs holds only agent states, usage
// and checks changes, which change no pane's description: the snapshot handed over
// with them may keep the previous one's (with 100 panes, probing them all
// for each state change of an agent cost a tenth of the app's CPU during
// a flood; usage changes come as often).
func keepsDescriptions(evs []bus.Event) bool {
	for _, e := range evs {
		switch e.(type) {
		case bus.AgentState, bus.UsageChanged, bus.ChecksChanged, inputRefused:
		default:
			return false
		}
	}
	return true
}

// readPasser is an optional Backend capability: the reads between
// beginReadPass and the end it returns may share one answer of the model,
// since the reader takes them as one snapshot anyway (the attached
// backend then makes one workspace.view call per pass instead of one per
// read). Reads outside a pass are fresh.
type readPasser interface {
	beginReadPass() (end func())
}

// beginReadPass opens a read pass on the backend when it has them.
func (s *shell) beginReadPass() (end func()) {
	if rp, ok := s.b.(readPasser); ok {
		return rp.beginReadPass()
	}
	return func() {}
}

// readEvents drains the GUI's bus subscription: each batch of events
// (and a periodic tick, for working directories and commands) gives one
// model snapshot, handed to the UI goroutine. Batches that arrive while
// the UI has not taken the previous one are merged into it. A tick that
// finds nothing changed hands nothing over, so an idle window is not woken
// for it.
//
// A batch of agent states only hands over the last snapshot again
// (agentsOnly): the model is read again at the next tick.
//
// Reading the panes' descriptions and ports costs /proc reads per pane
// (and a walk of the kernel's TCP tables), so they are read again only
// when they may have changed: a batch of agent states only keeps the last
// snapshot's (see keepsDescriptions), and a tick reads them only when some pane
// printed since the last reading (a new command, directory or title comes
// with output) or describeEvery has passed. With 100 idle panes a tick
// then costs a hundred atomic loads instead of about 10 ms of CPU.
func (s *shell) readEvents(sub *bus.Subscription) {
	defer s.life.wg.Done()
	defer sub.Close()
	tick := time.NewTicker(refreshEvery)
	defer tick.Stop()
	var buf []bus.Event
	var last *snapshot
	var portsCache ports.Cache
	var portChips, branches, roots map[uint64]string
	var described map[uint64]uint64 // each pane's output generation at the last reading
	var describedAt time.Time
	for {
		ticked := false
		select {
		case <-sub.Ready():
		case <-tick.C:
			ticked = true
		case <-sub.Done():
			return
		case <-s.life.done:
			return
		}
		evs, _ := sub.Drain(buf)
		if s.life.lost.Load() {
			// The server is gone: its calls would read as an empty model;
			// the window keeps showing what it had, under the banner.
			buf = evs[:0]
			last = nil
			continue
		}
		endPass := s.beginReadPass()
		var gens map[uint64]uint64
		if ticked {
			gens = s.b.OutputGens()
		}
		describe := last == nil || !keepsDescriptions(evs) ||
			ticked && (!maps.Equal(gens, described) || time.Since(describedAt) >= describeEvery)
		var surfaces []workspace.SurfaceInfo
		if !describe {
			surfaces = last.Surfaces
		} else if ticked {
			described, describedAt = gens, time.Now()
		}
		var snap *snapshot
		if !ticked && !describe {
			// Agent states only: they change no workspace, layout or
			// pane, so the last snapshot stands, read again at the next
			// tick; another host's model is a round trip away, and
			// reading it would delay its agent's state by one.
			c := *last
			snap = &c
		} else {
			snap = takeSnapshot(s.b, surfaces)
		}
		if portChips == nil || ticked && describe {
			var remote map[uint64][]int
			if hp, ok := s.b.(hostPorter); ok {
				remote = hp.hostPorts()
			}
			portChips = panePorts(s.b.PanePIDs(), snap, &portsCache, remote)
			branches, roots = paneBranches(snap)
		}
		snap.Ports, snap.Branches, snap.Roots = portChips, branches, roots
		endPass()
		if ticked && len(evs) == 0 && reflect.DeepEqual(snap, last) {
			continue
		}
		last = snap
		post := s.handed.put(snap, evs)
		buf = evs[:0]
		if post {
			s.do(s.flushLocked)
		}
	}
}

// flushLocked applies what the reader handed over.
func (s *shell) flushLocked() {
	snap, evs := s.handed.take()
	if snap != nil && !s.life.quitting {
		s.applyLocked(snap, evs)
	}
}

// applyLocked brings the window up to date with snap, after handling evs
// (agent states, notifications of them and of budget alerts, session
// saves; usage changes are in snap).
func (s *shell) applyLocked(snap *snapshot, evs []bus.Event) {
	structural, agentsChanged, hostsChanged, usageChanged, checksChanged := false, false, false, false, false
	for _, e := range evs {
		switch ev := e.(type) {
		case bus.AgentState:
			s.agentChangedLocked(ev, snap)
			agentsChanged = true
		case bus.UsageChanged:
			usageChanged = true
		case bus.ChecksChanged:
			s.agents.applyChecks(ev)
			checksChanged = true
		case bus.BudgetAlert:
			if n, ok := budgetNotification(ev, s.conf.cfg.NotifyWhenAgentWaiting); ok {
				s.a.SendNotification(n)
			}
		case bus.SurfaceClosed:
			s.agents.forget(ev.SurfaceID)
			structural = true
		case bus.SurfaceCreated, bus.SurfaceRenamed, bus.WorkspaceCreated, bus.WorkspaceClosed,
			bus.WorkspaceSelected, bus.WorkspaceChanged, bus.LayoutChanged, bus.FocusChanged:
			structural = true
		case inputRefused:
			s.chrome.banner.show(s.inputRefusedTextLocked(ev, snap))
			s.probeBannerLocked()
		case hostEvent:
			hostsChanged = true
			if ev.Up {
				// The host's panes are its new screen stream's now: the
				// views of the old one's are replaced below.
				s.closeHostViewsLocked(ev.Slot)
			}
		}
	}
	if structural {
		s.work.saveSoon()
	}
	s.pos.snap = snap
	s.checkScaleLocked()

	// Views: close the ones whose pane is gone.
	for id, v := range s.panes.views {
		if _, ok := snap.Open[id]; !ok {
			v.Close()
			delete(s.panes.views, id)
			delete(s.panes.attention, id)
			delete(s.panes.groups, id)
			if s.pos.zoom == id {
				s.pos.zoom = 0
			}
		}
	}
	if snap.Active.ID != s.pos.wsID {
		s.pos.zoom = 0
		s.pos.wsID = snap.Active.ID
	}
	views := map[uint64]fyne.CanvasObject{}
	focus := uint64(0)
	if snap.Tree != nil {
		snap.Tree.EachSurface(func(d *workspace.SurfaceDefinition) {
			if _, open := snap.Open[d.SurfaceID]; !open {
				return
			}
			if v := s.viewLocked(d.SurfaceID); v != nil {
				views[d.SurfaceID] = v
			}
			if d.Focus {
				focus = d.SurfaceID
			}
		})
	}
	if _, ok := views[s.pos.zoom]; !ok || s.pos.zoom != focus {
		s.pos.zoom = 0 // the zoomed pane closed, or the focus moved away from it
	}
	s.chrome.area.setTree(snap.Tree, views, s.pos.zoom, focus)
	s.hideOffscreenLocked()
	if focus != s.pos.focus || s.w.Canvas().Focused() == nil {
		s.pos.focus = focus
		s.focusViewLocked(focus)
	}
	s.refreshAttentionLocked()
	s.chrome.side.setHosts(snap.Hosts)
	cards := sidebarModel(snap, &s.agents, s.panes.groups)
	s.chrome.side.update(cards)
	s.chrome.tabs.update(snap.Workspaces)
	s.probeUsageLocked()
	if structural || hostsChanged {
		s.chrome.comp.forgetClosed(snap.Open)
	}
	if agentsChanged || structural || hostsChanged {
		if len(s.panes.queued) > 0 {
			s.flushQueuedLocked()
		} else {
			s.chrome.comp.update()
		}
	}
	if s.chrome.ov != nil && usageChanged {
		s.chrome.ov.usageChanged() // asked for again on the overview's next tick
	}
	if agentsChanged || structural || usageChanged || checksChanged {
		s.refreshOverviewLocked(0)
	}
	if s.chrome.probes.hosts.on() {
		s.probeHostsLocked(snap.Hosts, cards)
		s.probeChipsLocked()
	}
}

// hideOffscreenLocked tells each pane view whether the split area shows
// it: the views of other workspaces' panes (and of the panes behind a
// zoomed one, and all of them while the agents overview stands in the
// split area's place) draw nothing while their programs print.
func (s *shell) hideOffscreenLocked() {
	shown := map[uint64]bool{}
	if s.chrome.ov == nil {
		for _, id := range s.chrome.area.shown() {
			shown[id] = true
		}
	}
	for id, v := range s.panes.views {
		v.SetHidden(!shown[id])
	}
	if ss, ok := s.b.(shownSetter); ok {
		ss.setShown(slices.Collect(maps.Keys(shown)))
	}
}

// shownSetter is the optional Backend capability of streams that pace the
// panes the window does not show (hostsBackend: its remote hosts').
// setShown returns at once; it is called with every layout applied.
type shownSetter interface {
	setShown(ids []uint64)
}

// viewLocked returns the view of pane id, creating it the first time.
func (s *shell) viewLocked(id uint64) *termview.View {
	if v := s.panes.views[id]; v != nil {
		return v
	}
	p, ok := s.b.Pane(id)
	if !ok {
		return nil
	}
	v := termview.New(p, s.viewOptionsLocked(id))
	s.panes.views[id] = v
	s.stripeLocked(id)
	return v
}

// focusViewLocked gives pane id's view the keyboard focus. The view's
// OnFocus, which runs inside, then knows the model already agrees and
// does not queue a Focus that could undo a later one.
//
// While the palette, the agents overview, the Diff view or the composer
// is open it keeps the keyboard: the model's events do not take it away.
func (s *shell) focusViewLocked(id uint64) {
	v := s.panes.views[id]
	if v == nil || s.life.quitting || s.views.top != nil || s.chrome.ov != nil || (s.chrome.comp != nil && s.chrome.comp.pane != 0) {
		return
	}
	s.kb.focus(id, func() { s.w.Canvas().Focus(v) })
}

// focusedViewLocked is the view of the focused pane, nil when there is none.
func (s *shell) focusedViewLocked() *termview.View { return s.panes.views[s.pos.focus] }

// agentChangedLocked records an agent state and sends the desktop
// notification it deserves.
func (s *shell) agentChangedLocked(ev bus.AgentState, snap *snapshot) {
	s.agents.apply(ev)
	name := ""
	for _, in := range snap.Surfaces {
		if in.ID == ev.SurfaceID {
			name = in.Name
		}
	}
	if n, ok := notification(ev, s.kb.windowFocused.Load(), s.conf.cfg.NotifyWhenAgentWaiting, name); ok {
		s.a.SendNotification(n)
	}
}

// refreshAttentionLocked marks the panes whose agent waits and puts their
// count in the window title.
func (s *shell) refreshAttentionLocked() {
	waiting := s.agents.waiting()
	now := map[uint64]bool{}
	for _, id := range waiting {
		now[id] = true
	}
	for id, v := range s.panes.views {
		if now[id] != s.panes.attention[id] {
			v.SetAttention(now[id])
		}
	}
	s.panes.attention = now
	// The driver sets the window system's title on every call.
	if t := windowTitle(len(waiting)); t != s.w.Title() {
		s.w.SetTitle(t)
	}
	s.chrome.side.setAgentBadge(len(s.agents.panes), len(waiting))
	s.chrome.sidePanel.setWaiting(len(waiting))
}

// quitLocked quits without asking: the views close, Fyne's driver is
// told to quit and Run released (which then saves the session).
func (s *shell) quitLocked() {
	if s.life.quitting {
		return
	}
	s.life.quitting = true
	s.closeOverlaysLocked()
	// The views stop drawing while Fyne's loop still runs: the panes'
	// programs print while they are closed, after it stopped.
	s.closeViewsLocked()
	// The driver quits, not the app: fyne.App.Quit first closes every
	// window, which Fyne then treats as gone (its GLFW handle reads nil)
	// while GLFW still has it and delivers its events, until the loop's
	// next turn destroys it. Events queued behind the one being handled
	// (quit is often a click or a key) are dispatched in the same poll,
	// and the loop may poll once more before it sees the quit (its select
	// picks at random among the quit, its ticker and posted work). A
	// pointer move that changes the cursor shape then calls GLFW through
	// the nil handle: SIGSEGV (fyne-io/fyne#5981). The driver's Quit
	// leaves the window whole until the loop ends and terminates GLFW,
	// which destroys it with its callbacks removed; Fyne's own
	// SIGINT/SIGTERM handler quits the same way. (App.Quit's other step,
	// stopping the settings file watcher, matters only to a process that
	// goes on.)
	s.a.Driver().Quit()
	s.life.quit()
}

// probeHostsLocked writes, when it changed, one line saying what the
// sidebar shows of hosts: each host's address and state, then each card's
// title, its host's slot, its number of panes and its agent glyphs, as
// "ui-probe sidebar hosts=[ssh://h=connected] cards=[Terminal@0/1 Remote@1/2:◐]
// shown=@1 focus=@1" (the hosts of the workspace shown and of the focused
// pane).
func (s *shell) probeHostsLocked(hosts []hostStatus, cards []workspaceCard) {
	var b strings.Builder
	b.WriteString("ui-probe sidebar hosts=[")
	for i, h := range hosts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", h.Address, h.State)
	}
	b.WriteString("] cards=[")
	for i, c := range cards {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s@%d/%d", c.Title, c.Host, len(c.Panes))
		for _, p := range c.Panes {
			if p.Glyph != "" {
				b.WriteString(":" + p.Glyph)
			}
		}
	}
	fmt.Fprintf(&b, "] shown=@%d focus=@%d", hostSlot(s.pos.wsID), hostSlot(s.pos.focus))
	s.chrome.probes.hosts.write(b.String())
}

// closeHostViewsLocked closes the views of host slot's panes.
func (s *shell) closeHostViewsLocked(slot int) {
	for id, v := range s.panes.views {
		if hostSlot(id) == slot {
			v.Close()
			delete(s.panes.views, id)
			if s.pos.zoom == id {
				s.pos.zoom = 0
			}
			if s.pos.focus == id {
				s.pos.focus = 0 // its new view takes the keyboard
			}
		}
	}
}

// closeViewsLocked closes every pane view.
func (s *shell) closeViewsLocked() {
	for id, v := range s.panes.views {
		v.Close()
		delete(s.panes.views, id)
	}
}

// stop ends the shell after the app quit: the goroutines stop, the views
// close, the session is saved and the backend shut down (the local one
// closes every pane and removes the socket). Later calls return nil.
func (s *shell) stop() error {
	var err error
	s.life.stopOnce.Do(func() {
		s.guard(func() {
			s.life.quitting = true
			if s.chrome.toast != nil {
				s.chrome.toast.stop()
			}
			if s.chrome.ov != nil {
				s.chrome.ov.stop() // its refresh must not run after the window (see toast.stop)
			}
			s.dismissOverlayLocked() // cancels its calls
			s.closeViewsLocked()
		})
		s.life.calls.Wait()
		s.work.close() // saves once more while the panes still exist
		s.life.end()
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		err = s.b.Shutdown(ctx)
		if serr := s.life.wait(); err == nil {
			err = serr
		}
		s.guard(s.closeViewsLocked)
	})
	return err
}

// goos is the platform keybindings are built for; tests may change it.
var goos = runtime.GOOS
