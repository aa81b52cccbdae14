package web

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/proto"
)

// overviewEvents are the event types that can change the overview.
var overviewEvents = []string{
	proto.TypeAgentState, proto.TypeAISessionStart, proto.TypeAIPromptSubmit, proto.TypeAINotification,
	proto.TypeAIStop, proto.TypeAIExit, proto.TypeAISessionEnd,
	proto.TypeSurfaceCreated, proto.TypeSurfaceClosed, proto.TypeSurfaceExited, proto.TypeSurfaceRenamed,
	proto.TypeTitleChanged, proto.TypeWorkspaceCreated, proto.TypeWorkspaceClosed,
}

// paneRow is one pane of the overview (the page's own format).
type paneRow struct {
	ID     uint64 `json:"id"`
	Name   string `json:"name"`
	Title  string `json:"title,omitempty"`
	WS     int    `json:"ws"`
	Cmd    string `json:"cmd,omitempty"`
	Exited bool   `json:"exited,omitempty"`
	// The agent in the pane, if any.
	Tool   string `json:"tool,omitempty"`
	State  string `json:"state,omitempty"`
	Since  int64  `json:"since,omitempty"` // Unix ms the state began (as first seen)
	Msg    string `json:"msg,omitempty"`
	Result string `json:"result,omitempty"`
}

// overviewMsg is the overview sent to every page.
type overviewMsg struct {
	T     string    `json:"t"`
	Panes []paneRow `json:"panes"`
}

// stateSince is when a pane's agent state was first seen.
type stateSince struct {
	state string
	since int64
}

// hub keeps the overview current and tells the pages when it changes.
// Its methods are safe for concurrent use.
type hub struct {
	s    *Service
	kick chan struct{}

	mu    sync.Mutex
	subs  map[*wsConn]bool      // guarded by mu
	last  []byte                // the latest overview message, guarded by mu
	since map[uint64]stateSince // guarded by mu
}

func newHub(s *Service) *hub {
	return &hub{s: s, kick: make(chan struct{}, 1), subs: make(map[*wsConn]bool), since: make(map[uint64]stateSince)}
}

// add subscribes c and sends it the overview known now.
func (h *hub) add(c *wsConn) {
	h.mu.Lock()
	h.subs[c] = true
	h.mu.Unlock()
	h.poke()
	notify(c)
}

func (h *hub) remove(c *wsConn) {
	h.mu.Lock()
	delete(h.subs, c)
	h.mu.Unlock()
}

// latest is the overview message to send, nil before the first.
func (h *hub) latest() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// poke asks for a refresh (coalesced).
func (h *hub) poke() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

func notify(c *wsConn) {
	select {
	case c.ovKick <- struct{}{}:
	default:
	}
}

// run refreshes the overview on every event that may change it, until
// ctx ends. A refresh runs at once (no pacing): a state change reaches
// the pages within a surface.list and a fleet.list.
func (h *hub) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		h.follow(ctx)
	}()
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.kick:
		}
		h.refresh(ctx)
	}
}

// follow pokes the hub on each event frame, subscribing again after the
// stream ends (the socket not serving yet, a restart), once a second.
func (h *hub) follow(ctx context.Context) {
	for ctx.Err() == nil {
		st, err := h.s.o.Subscribe(ctx, proto.MethodEventsSubscribe, proto.SubscribeTo(nil, overviewEvents))
		if err == nil {
			h.poke()
			for {
				if _, err := st.Next(); err != nil {
					break
				}
				h.poke()
			}
			st.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// refresh builds the overview and, when it changed, tells every page.
func (h *hub) refresh(ctx context.Context) {
	h.mu.Lock()
	n := len(h.subs)
	h.mu.Unlock()
	if n == 0 {
		return // nobody looks; the next page's add pokes again
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cl := proto.Client{Caller: h.s.o.Call(5 * time.Second)}
	panes, err := cl.SurfaceList(cctx)
	if err != nil {
		return
	}
	fleet, err := cl.FleetList(cctx)
	if err != nil {
		fleet = proto.FleetListResult{}
	}
	now := h.s.o.Now()
	msg := h.build(panes, fleet, now)
	h.mu.Lock()
	if bytes.Equal(msg, h.last) {
		h.mu.Unlock()
		return
	}
	h.last = msg
	subs := make([]*wsConn, 0, len(h.subs))
	for c := range h.subs {
		subs = append(subs, c)
	}
	h.mu.Unlock()
	for _, c := range subs {
		notify(c)
	}
}

// build makes the overview message of the panes and their agents.
func (h *hub) build(panes proto.SurfaceListResult, fleet proto.FleetListResult, now time.Time) []byte {
	agents := make(map[uint64]proto.FleetRow)
	for _, a := range fleet.Agents {
		if a.SurfaceID != nil {
			if _, ok := agents[*a.SurfaceID]; !ok {
				agents[*a.SurfaceID] = a
			}
		}
	}
	rows := make([]paneRow, 0, len(panes.Surfaces))
	h.mu.Lock()
	seen := make(map[uint64]bool, len(panes.Surfaces))
	for _, p := range panes.Surfaces {
		r := paneRow{ID: p.ID, Name: p.Name, Title: p.Title, WS: p.Workspace, Exited: p.Exited}
		if p.Cmd != nil {
			r.Cmd = *p.Cmd
		}
		if a, ok := agents[p.ID]; ok {
			r.Tool, r.State = a.Tool, string(a.State)
			if a.Message != nil {
				r.Msg = *a.Message
			}
			if a.LastResult != nil {
				r.Result = *a.LastResult
			}
			prev, ok := h.since[p.ID]
			if !ok || prev.state != r.State {
				since := now
				if !ok { // first seen: the server knows how long it has waited or idled
					if a.State == proto.StateWaitingForInput && a.WaitingMS != nil {
						since = now.Add(-time.Duration(*a.WaitingMS) * time.Millisecond)
					} else if a.IdleMS != nil && (a.State == proto.StateIdle || a.State == proto.StateFinished) {
						since = now.Add(-time.Duration(*a.IdleMS) * time.Millisecond)
					}
				}
				prev = stateSince{state: r.State, since: since.UnixMilli()}
				h.since[p.ID] = prev
			}
			r.Since = prev.since
		}
		seen[p.ID] = true
		rows = append(rows, r)
	}
	for id := range h.since {
		if !seen[id] {
			delete(h.since, id)
		}
	}
	h.mu.Unlock()
	slices.SortStableFunc(rows, func(a, b paneRow) int {
		if a.WS != b.WS {
			return a.WS - b.WS
		}
		return int(a.ID) - int(b.ID)
	})
	b, _ := json.Marshal(overviewMsg{T: "overview", Panes: rows})
	return b
}
