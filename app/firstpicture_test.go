//go:build !windows

package app

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/proto"
)

// stallFirstPicture is a backend whose first Usage read (the last read
// of the window's first snapshot, taken in start) changes the model and,
// when the window's model reader is running already, waits until the
// reader has applied a snapshot with that change: it has when it starts
// its next snapshot (its Teams read).
type stallFirstPicture struct {
	Backend
	t        *testing.T
	reader   atomic.Bool // the shell started its model reader
	mu       sync.Mutex
	stalled  bool
	readSeen bool          // the reader read Usage after the change
	applied  chan struct{} // closed at the reader's next Teams read
}

func (b *stallFirstPicture) Teams() map[uint64]core.TeamMember {
	b.mu.Lock()
	if b.readSeen && b.applied != nil {
		close(b.applied)
		b.applied = nil
	}
	b.mu.Unlock()
	return b.Backend.Teams()
}

func (b *stallFirstPicture) Usage() (map[uint64]proto.UsageStatus, map[uint64]proto.Usage) {
	b.mu.Lock()
	first := !b.stalled
	b.stalled = true
	if !first && b.applied != nil {
		b.readSeen = true
	}
	applied := b.applied
	b.mu.Unlock()
	if first {
		if err := b.Backend.CreateWorkspace("later", b.t.TempDir(), false); err != nil {
			b.t.Error(err)
		}
		if b.reader.Load() {
			select {
			case <-applied:
			case <-time.After(testDeadline):
			}
		}
	}
	return b.Backend.Usage()
}

// TestFirstPictureNotOverReader (issue 30): a change of the model while
// the window takes its first picture shows: the older first picture does
// not replace a newer snapshot the model reader applied (a host that
// connected meanwhile stayed "connecting", without its card, until the
// model changed again).
func TestFirstPictureNotOverReader(t *testing.T) {
	var stall *stallFirstPicture
	readerStarting = func() { stall.reader.Store(true) }
	t.Cleanup(func() { readerStarting = nil })
	h := newHarness(t, func(o *Options) {
		stall = &stallFirstPicture{Backend: o.Backend, t: t, applied: make(chan struct{})}
		o.Backend = stall
	})
	h.waitFor("the workspace created during the first picture", func() bool {
		c := h.cards()
		return len(c) == 2 && c[1].Title == "later"
	})
}
