package app

import (
	"sync"
	"time"
)

// saveDebounce is how long the session saver waits for more changes
// before writing.
const saveDebounce = 300 * time.Millisecond

// saver writes the session file off the UI goroutine: trigger asks for a
// save, which happens once changes stopped for saveDebounce; close saves
// a last time and stops it. Its methods are safe for concurrent use.
type saver struct {
	save  func() error
	logf  func(string, ...any)
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	saves int // successful saves, for tests
}

// newSaver starts a saver that saves with save.
func newSaver(save func() error, logf func(string, ...any)) *saver {
	sv := &saver{save: save, logf: logf, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go sv.run()
	return sv
}

// trigger asks for a save soon.
func (sv *saver) trigger() {
	select {
	case sv.kick <- struct{}{}:
	default:
	}
}

func (sv *saver) run() {
	defer close(sv.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-sv.kick:
			timer.Reset(saveDebounce)
		case <-timer.C:
			sv.saveNow()
		case <-sv.stop:
			timer.Stop()
			sv.saveNow()
			return
		}
	}
}

// saveNow saves the session.
func (sv *saver) saveNow() {
	if err := sv.save(); err != nil {
		sv.logf("paneflow: session: %v", err)
		return
	}
	sv.mu.Lock()
	sv.saves++
	sv.mu.Unlock()
}

// count reports the saves done so far.
func (sv *saver) count() int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.saves
}

// close saves a last time and stops the saver; later calls do nothing.
func (sv *saver) close() {
	sv.once.Do(func() { close(sv.stop) })
	<-sv.done
}
