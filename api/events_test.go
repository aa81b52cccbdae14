//go:build !windows

package api

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

type frame map[string]any

func nextFrame(t *testing.T, s *ipc.Stream) frame {
	t.Helper()
	raw, err := s.Next()
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	var f frame
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("frame %s: %v", raw, err)
	}
	return f
}

func TestSubscribeOverSocket(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	srv := ipctest.Start(t, e.reg)
	c := ipctest.Client(srv)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()

	_, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"types": []string{"nope"}})
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams || ie.Message != "unknown event type: nope" {
		t.Fatalf("subscribe with an unknown type = %v, want -32602 unknown event type: nope", err)
	}

	st, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"types": []string{"surface_created", "surface_closed", "layout_changed"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if f := nextFrame(t, st); f["type"] != "subscribed" || f["id"] != float64(1) {
		t.Fatalf("first frame = %v, want the ack with id 1", f)
	}
	info, _, err := e.m.Split(0, workspace.Vertical, workspace.PaneSpec{Name: "new"})
	if err != nil {
		t.Fatal(err)
	}
	f := nextFrame(t, st)
	if f["type"] != "surface_created" || f["surface_id"] != float64(info.ID) || f["name"] != "new" || f["workspace_id"] != float64(1) {
		t.Errorf("frame = %v, want surface_created for %d", f, info.ID)
	}
	if ts, ok := f["ts"].(float64); !ok || ts < float64(time.Now().Add(-time.Hour).UnixMilli()) {
		t.Errorf("ts = %v, want epoch milliseconds", f["ts"])
	}
	if f := nextFrame(t, st); f["type"] != "layout_changed" || f["workspace_id"] != float64(1) {
		t.Errorf("frame = %v, want layout_changed", f)
	}
	if err := e.m.CloseSurface(info.ID); err != nil {
		t.Fatal(err)
	}
	if f := nextFrame(t, st); f["type"] != "surface_closed" || f["surface_id"] != float64(info.ID) {
		t.Errorf("frame = %v, want surface_closed", f)
	}

	// A surface filter: only that pane's output.
	sf := e.split(`echo READY; exec cat`)
	st2, err := c.Subscribe(ctx, "events.subscribe", map[string]any{"surfaces": []uint64{sf.ID()}, "types": []string{"surface_changed"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if f := nextFrame(t, st2); f["type"] != "subscribed" || f["id"] != float64(2) {
		t.Fatalf("ack = %v, want id 2", f)
	}
	first, _ := e.m.Surface(1)
	_ = first.Terminal().SendInput([]byte("echo other\n"))
	_ = sf.Terminal().SendInput([]byte("mine\n"))
	f = nextFrame(t, st2)
	if f["type"] != "surface_changed" || f["surface_id"] != float64(sf.ID()) {
		t.Errorf("frame = %v, want surface_changed of %d only", f, sf.ID())
	}
	if g, ok := f["output_generation"].(float64); !ok || g < 1 {
		t.Errorf("output_generation = %v", f["output_generation"])
	}
}

// fakeWriter collects frames; block, when set, holds the first event
// frame until it is closed.
type fakeWriter struct {
	mu     sync.Mutex
	frames []frame
	got    chan struct{}
	block  chan struct{}
}

func (w *fakeWriter) WriteFrame(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if w.block != nil && f["type"] != "subscribed" {
		<-w.block
	}
	w.mu.Lock()
	w.frames = append(w.frames, f)
	w.mu.Unlock()
	select {
	case w.got <- struct{}{}:
	default:
	}
	return nil
}

// waitFrames waits until at least n frames were written and returns them.
func (w *fakeWriter) waitFrames(t *testing.T, n int) []frame {
	t.Helper()
	deadline := time.After(testDeadline)
	for {
		w.mu.Lock()
		fs := append([]frame(nil), w.frames...)
		w.mu.Unlock()
		if len(fs) >= n {
			return fs
		}
		select {
		case <-w.got:
		case <-deadline:
			t.Fatalf("got %d frames %v, want %d", len(fs), fs, n)
		}
	}
}

func TestSubscribeHeartbeatAndDropped(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{heartbeat: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	w := &fakeWriter{got: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() { done <- e.s.subscribe(ctx, json.RawMessage(`{}`), w) }()
	fs := w.waitFrames(t, 2)
	if fs[0]["type"] != "subscribed" || fs[1]["type"] != "heartbeat" || len(fs[1]) != 1 {
		t.Errorf("frames = %v, want the ack then a bare heartbeat", fs)
	}

	// A subscriber that cannot keep up loses the oldest events and is
	// told how many before the next frame.
	e2 := newEnv(t, workspace.Options{}, Options{heartbeat: time.Hour})
	w2 := &fakeWriter{got: make(chan struct{}, 1), block: make(chan struct{})}
	done2 := make(chan error, 1)
	go func() { done2 <- e2.s.subscribe(ctx, json.RawMessage(`{"types":["workspace_selected"]}`), w2) }()
	w2.waitFrames(t, 1)
	// Whenever the stream takes its first event it blocks writing it, so
	// the queue overflows. The stream may have drained up to a whole queue
	// before blocking, so more than two queues' worth are published.
	const n = 2*bus.DefaultQueue + 500
	for i := range n {
		e2.b.Publish(bus.WorkspaceSelected{WorkspaceID: uint64(i + 1), Index: i})
	}
	close(w2.block)
	// Every event is either delivered or counted: n in all.
	deadline := time.After(testDeadline)
	for {
		w2.mu.Lock()
		events, dropped := 0, 0
		for _, f := range w2.frames {
			switch f["type"] {
			case "workspace_selected":
				events++
			case "dropped":
				dropped += int(f["count"].(float64))
			}
		}
		w2.mu.Unlock()
		if events+dropped == n {
			if dropped == 0 {
				t.Errorf("all %d events delivered, want some dropped", n)
			}
			break
		}
		select {
		case <-w2.got:
		case <-deadline:
			t.Fatalf("got %d events and %d dropped, want %d in all", events, dropped, n)
		}
	}
	cancel()
	for _, ch := range []chan error{done, done2} {
		if err := <-ch; err != nil {
			t.Errorf("subscribe returned %v after cancel, want nil", err)
		}
	}
}
