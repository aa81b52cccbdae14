package app

import (
	"sync"

	"github.com/paneflow-go/paneflow/bus"
)

// handover carries what the model reader (shell.readEvents) read to the
// UI goroutine: the newest snapshot and every event since the last take.
// The reader puts; a flush posted to the UI (shell.flushLocked) or the
// loop's tick (shell.applyAtTick) takes. At most one flush is posted and
// not yet run: put reports when the caller must post one.
//
// Its zero value is empty and ready. All methods are safe for concurrent
// use; mu guards only the fields below and is never held while calling
// out, so it nests inside shell.mu without deadlock.
type handover struct {
	mu        sync.Mutex
	snap      *snapshot   // the newest snapshot not yet taken, or nil
	evs       []bus.Event // the events not yet taken, oldest first
	scheduled bool        // a flush is posted and has not taken yet
}

// put replaces the snapshot not yet taken by snap and appends evs to the
// events not yet taken. It reports whether the caller must post a flush:
// none is posted that has not taken yet.
func (h *handover) put(snap *snapshot, evs []bus.Event) (post bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.snap = snap
	h.evs = append(h.evs, evs...)
	post = !h.scheduled
	h.scheduled = true
	return post
}

// take returns and clears what was put since the last take (a nil
// snapshot when nothing was), and ends the posted flush's turn: the next
// put asks for a new one.
func (h *handover) take() (*snapshot, []bus.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	snap, evs := h.snap, h.evs
	h.snap, h.evs, h.scheduled = nil, nil, false
	return snap, evs
}

// goReader starts read, the model reader that puts into h, on a goroutine
// of its own. readerStarting, when set (tests), is called first, on the
// caller's goroutine: from then on a reader may put.
func (h *handover) goReader(read func()) {
	if f := readerStarting; f != nil {
		f()
	}
	go read()
}

// readerStarting, when set (tests), is called as a model reader is
// started (handover.goReader).
var readerStarting func()

// due reports whether a snapshot was put and its posted flush has not
// taken it yet.
func (h *handover) due() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.scheduled && h.snap != nil
}
