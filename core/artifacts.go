package core

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/internal/artifact"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/subsystem"
)

// artifacts is the "artifact" subsystem: the panes' final answers kept on
// disk by the hook binary (package internal/artifact). It serves
// artifact.get (the answer and the file's path, for the MCP bridge's
// get_artifact, depends_on and wait_for_idle) and artifact.keep, and
// removes a pane's artifact when the pane closes unless it was kept (then
// it moves to <root>/kept/). Pane ids restart with each run: a file older
// than this run's start is a leftover of an earlier run (one that did not
// shut down cleanly), which artifact.get ignores and the creation of a
// pane with its ids removes; at shutdown every pane of this run that is
// still open is treated as closed.
//
// It is started before the model, so it sees the panes close at quit.
// Its methods and event loop are safe for concurrent use (one mutex).
type artifacts struct {
	root string                              // "" when no data directory is known: methods fail, nothing is removed
	wsOf func(surface uint64) (uint64, bool) // an open pane's workspace
	now  func() time.Time
	// start is when Init ran: artifacts modified before it are stale.
	start time.Time

	mu    sync.Mutex
	panes map[uint64]uint64 // surface → workspace, the panes of this run
	kept  map[uint64]bool
	sub   *bus.Subscription
	logf  func(string, ...any)
	wg    sync.WaitGroup
}

// Name is the subsystem's name, "artifact".
func (*artifacts) Name() string { return "artifact" }

// Init registers artifact.get and artifact.keep and follows pane
// creation and closing.
func (a *artifacts) Init(h *subsystem.Host) error {
	if h.Bus == nil {
		return errors.New("needs the event bus")
	}
	a.logf = h.Logf
	if a.now == nil {
		a.now = time.Now
	}
	a.start = a.now()
	a.panes, a.kept = map[uint64]uint64{}, map[uint64]bool{}
	if root, err := artifact.Root(h.Getenv, runtime.GOOS); err == nil {
		a.root = root
	} else {
		h.Logf("paneflow: artifacts: %v", err)
	}
	h.Methods.Register(proto.MethodArtifactGet, a.get)
	h.Methods.Register(proto.MethodArtifactKeep, a.keep)
	a.sub = h.Bus.Subscribe("core.artifacts", bus.MatchTypes(bus.TypeSurfaceCreated, bus.TypeSurfaceClosed), 0)
	a.wg.Add(1)
	go a.loop()
	return nil
}

// loop handles pane events until the subscription closes.
func (a *artifacts) loop() {
	defer a.wg.Done()
	var buf []bus.Event
	for {
		select {
		case <-a.sub.Done():
			return
		case <-a.sub.Ready():
		}
		evs, _ := a.sub.Drain(buf)
		for _, e := range evs {
			a.handle(e)
		}
		buf = evs
	}
}

func (a *artifacts) handle(e bus.Event) {
	switch e := e.(type) {
	case bus.SurfaceCreated:
		a.mu.Lock()
		a.panes[e.SurfaceID] = e.WorkspaceID
		a.mu.Unlock()
		// Left by an earlier run whose pane had these ids? (The pane's
		// own agent may have written one already: that one is newer.)
		if a.root != "" && a.stale(artifact.Path(a.root, e.WorkspaceID, e.SurfaceID)) {
			if err := artifact.Remove(a.root, e.WorkspaceID, e.SurfaceID); err != nil {
				a.logf("paneflow: artifacts: %v", err)
			}
		}
	case bus.SurfaceClosed:
		a.mu.Lock()
		kept := a.kept[e.SurfaceID]
		delete(a.panes, e.SurfaceID)
		delete(a.kept, e.SurfaceID)
		a.mu.Unlock()
		a.closed(e.WorkspaceID, e.SurfaceID, kept)
	}
}

// stale reports whether the file at path exists and was last modified
// before this run started.
func (a *artifacts) stale(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.ModTime().Before(a.start)
}

// closed removes or keeps one pane's artifact.
func (a *artifacts) closed(ws, surface uint64, kept bool) {
	if a.root == "" {
		return
	}
	var err error
	if kept {
		_, err = artifact.Keep(a.root, ws, surface, a.now())
	} else {
		err = artifact.Remove(a.root, ws, surface)
	}
	if err != nil {
		a.logf("paneflow: artifacts: %v", err)
	}
}

// pane decodes params and finds the open pane's workspace.
func (a *artifacts) pane(params json.RawMessage) (p proto.ArtifactParams, ws uint64, err error) {
	if err := json.Unmarshal(params, &p); err != nil || p.SurfaceID == 0 {
		return p, 0, ipc.InvalidParams("surface_id (a pane's id) is required")
	}
	if a.root == "" {
		return p, 0, ipc.Errorf(ipc.CodeInternal, "no data directory ($XDG_DATA_HOME or $HOME) for artifacts")
	}
	ws, ok := a.wsOf(p.SurfaceID)
	if !ok {
		return p, 0, ipc.InvalidParams("surface %d not found", p.SurfaceID)
	}
	return p, ws, nil
}

// get answers artifact.get {surface_id}: {surface_id, workspace_id, path,
// exists, kept, and when it exists output, truncated, tool, written_at and
// modified_unix_ms (the file's modification time)}. An output too long
// for one reply frame is cut (truncated, with output_bytes its full
// length).
func (a *artifacts) get(_ context.Context, params json.RawMessage) (any, error) {
	p, ws, err := a.pane(params)
	if err != nil {
		return nil, err
	}
	path := artifact.Path(a.root, ws, p.SurfaceID)
	a.mu.Lock()
	kept := a.kept[p.SurfaceID]
	a.mu.Unlock()
	out := proto.ArtifactGetResult{SurfaceID: p.SurfaceID, WorkspaceID: ws, Path: path, Kept: kept}
	art, err := artifact.Read(path)
	switch {
	case errors.Is(err, os.ErrNotExist), err == nil && a.stale(path):
	case err != nil:
		return nil, ipc.Errorf(ipc.CodeInternal, "reading %s: %v", path, err)
	default:
		text, cut := fitReply(art.Output)
		truncated := art.Truncated || cut
		out.Exists, out.Output, out.Truncated = true, &text, &truncated
		if cut {
			out.OutputBytes = len(art.Output)
		}
		if fi, err := os.Stat(path); err == nil {
			ms := fi.ModTime().UnixMilli()
			out.ModifiedUnixMS = &ms
		}
		out.Tool, out.WrittenAt = art.Tool, art.WrittenAt
	}
	return out, nil
}

// maxReplyOutput bounds the JSON-encoded output in an artifact.get reply,
// well under the socket's frame cap (ipc.MaxFrame, 256 KiB) with the
// other members.
const maxReplyOutput = 192 << 10

// fitReply cuts s (at a rune boundary) until its JSON encoding fits in
// maxReplyOutput, reporting whether it cut.
func fitReply(s string) (string, bool) {
	cut := false
	for {
		b, _ := json.Marshal(s)
		if len(b) <= maxReplyOutput {
			return s, cut
		}
		// Each byte takes at most 6 in JSON (\u00XX): shrink in proportion.
		n := len(s) * maxReplyOutput / len(b)
		if n >= len(s) {
			n = len(s) - 1
		}
		s, _ = artifact.Cut(s, n)
		cut = true
	}
}

// keep answers artifact.keep {surface_id, keep (default true)}: whether
// the pane's artifact outlives the pane.
func (a *artifacts) keep(_ context.Context, params json.RawMessage) (any, error) {
	p, ws, err := a.pane(params)
	if err != nil {
		return nil, err
	}
	k := p.Keep == nil || *p.Keep
	a.mu.Lock()
	if k {
		a.kept[p.SurfaceID] = true
	} else {
		delete(a.kept, p.SurfaceID)
	}
	a.mu.Unlock()
	return proto.ArtifactKeepResult{SurfaceID: p.SurfaceID, WorkspaceID: ws, Kept: k}, nil
}

// Shutdown stops following events, then treats the panes still open as
// closed (their artifacts are removed or kept) and waits for the loop, or
// until ctx is done.
func (a *artifacts) Shutdown(ctx context.Context) error {
	a.sub.Close()
	done := make(chan struct{})
	go func() {
		a.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	a.mu.Lock()
	panes, kept := a.panes, a.kept
	a.panes, a.kept = map[uint64]uint64{}, map[uint64]bool{}
	a.mu.Unlock()
	for s, ws := range panes {
		a.closed(ws, s, kept[s])
	}
	return nil
}
