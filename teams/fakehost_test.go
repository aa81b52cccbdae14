package teams

import (
	"fmt"
	"slices"
	"sync"
)

// fakeHost is an in-memory workspace model: workspaces with panes in
// order, each pane with a spec, input, text and a done channel.
type fakeHost struct {
	mu     sync.Mutex
	next   uint64
	wss    []*fakeWS
	panes  map[uint64]*fakePane
	shares []string // "id side share" / "eq id side" in call order
}

type fakeWS struct {
	id    uint64
	title string
	panes []uint64
	focus uint64 // the focused pane; 0 for the first
}

type fakePane struct {
	id    uint64
	ws    *fakeWS
	spec  Spec
	name  string
	input []byte
	text  Text
	done  chan struct{}
	code  int
	dead  bool
}

func newFakeHost() *fakeHost {
	h := &fakeHost{panes: map[uint64]*fakePane{}}
	h.addWS("main")
	return h
}

// addWS adds a workspace with one pane (a lead) and returns the pane id.
func (h *fakeHost) addWS(title string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := &fakeWS{id: uint64(len(h.wss) + 100), title: title}
	h.wss = append(h.wss, ws)
	p := h.newPaneLocked(ws, Spec{Name: "lead"})
	ws.panes = append(ws.panes, p.id)
	return p.id
}

func (h *fakeHost) newPaneLocked(ws *fakeWS, spec Spec) *fakePane {
	h.next++
	p := &fakePane{id: h.next, ws: ws, spec: spec, name: spec.Name, done: make(chan struct{}),
		text: Text{Screen: []string{"", ""}, Cols: 80}}
	if t, ok := fakeText[p.id]; ok {
		p.text = t
	}
	h.panes[p.id] = p
	return p
}

// exit ends pane id's program with code.
func (h *fakeHost) exit(id uint64, code int) {
	h.mu.Lock()
	p := h.panes[id]
	p.code, p.dead = code, true
	h.mu.Unlock()
	close(p.done)
}

func (h *fakeHost) pane(id uint64) (*fakePane, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	return p, ok
}

func (h *fakeHost) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.panes)
}

func (h *fakeHost) Split(target uint64, side bool, spec Spec) (uint64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := h.wss[0]
	if target != 0 {
		t, ok := h.panes[target]
		if !ok {
			return 0, ErrGone
		}
		ws = t.ws
	}
	p := h.newPaneLocked(ws, spec)
	i := slices.Index(ws.panes, target)
	ws.panes = slices.Insert(ws.panes, i+1, p.id)
	return p.id, nil
}

func (h *fakeHost) Replace(id uint64, spec Spec) (uint64, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	old, ok := h.panes[id]
	if !ok {
		return 0, ErrGone
	}
	if spec.Name == "" {
		spec.Name = old.name
	}
	p := h.newPaneLocked(old.ws, spec)
	i := slices.Index(old.ws.panes, id)
	old.ws.panes[i] = p.id
	delete(h.panes, id)
	if !old.dead {
		old.dead, old.code = true, 129
		close(old.done)
	}
	return p.id, nil
}

func (h *fakeHost) Close(id uint64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return fmt.Errorf("close %d: %w", id, ErrGone)
	}
	delete(h.panes, id)
	p.ws.panes = slices.DeleteFunc(p.ws.panes, func(x uint64) bool { return x == id })
	if !p.dead {
		p.dead, p.code = true, 129
		close(p.done)
	}
	return nil
}

func (h *fakeHost) Input(id uint64, b []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return ErrGone
	}
	p.input = append(p.input, b...)
	return nil
}

func (h *fakeHost) Text(id uint64, history int) (Text, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return Text{}, false
	}
	t := p.text
	if len(t.History) > history {
		t.History = t.History[len(t.History)-history:]
	}
	return t, true
}

func (h *fakeHost) Pane(id uint64) (PaneInfo, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return PaneInfo{}, false
	}
	i := slices.Index(p.ws.panes, id)
	n := len(p.ws.panes)
	return PaneInfo{
		Workspace: p.ws.id, Name: p.name, Pid: 1000 + int(id),
		Dead: p.dead, ExitCode: p.code,
		X: float64(i) / float64(n), Y: 0, W: 1 / float64(n), H: 1, Cols: 200 / n, Rows: 50,
	}, true
}

func (h *fakeHost) windowLocked(ws *fakeWS, i int) Window {
	return Window{ID: ws.id, Index: i, Title: ws.title, Panes: slices.Clone(ws.panes)}
}

func (h *fakeHost) Window(id uint64) (Window, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, ws := range h.wss {
		if ws.id == id {
			return h.windowLocked(ws, i), true
		}
	}
	return Window{}, false
}

func (h *fakeHost) Windows() []Window {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Window
	for i, ws := range h.wss {
		out = append(out, h.windowLocked(ws, i))
	}
	return out
}

func (h *fakeHost) Command(id uint64) (string, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.panes[id]; ok {
		return "cmd", p.spec.Cwd
	}
	return "", ""
}

func (h *fakeHost) Focus(id uint64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return ErrGone
	}
	p.ws.focus = id
	return nil
}

// focused is the focused pane of the workspace holding id.
func (h *fakeHost) focused(id uint64) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return 0
	}
	if p.ws.focus == 0 {
		return p.ws.panes[0]
	}
	return p.ws.focus
}

func (h *fakeHost) Rename(id uint64, name string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return ErrGone
	}
	p.name = name
	return nil
}

func (h *fakeHost) SetShare(id uint64, side bool, share float64) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.shares = append(h.shares, fmt.Sprintf("%d %v %.2f", id, side, share))
	return nil
}

func (h *fakeHost) EqualizeAround(id uint64, side bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.shares = append(h.shares, fmt.Sprintf("eq %d %v", id, side))
	return nil
}

func (h *fakeHost) Tap(id uint64, f func([]byte)) (func(), bool) {
	_, ok := h.pane(id)
	return func() {}, ok
}

func (h *fakeHost) Done(id uint64) (<-chan struct{}, func() int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.panes[id]
	if !ok {
		return nil, nil, false
	}
	return p.done, func() int {
		h.mu.Lock()
		defer h.mu.Unlock()
		return p.code
	}, true
}

var _ Host = (*fakeHost)(nil)

// fakeText is the text of fake panes by id (set by a test's init).
var fakeText map[uint64]Text
