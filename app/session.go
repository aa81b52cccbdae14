package app

import (
	"errors"
	"io/fs"
	"sync"
	"time"

	"github.com/paneflow-go/paneflow/session"
	"github.com/paneflow-go/paneflow/workspace"
)

// saveDebounce is how long the session saver waits for more changes
// before writing.
const saveDebounce = 300 * time.Millisecond

// restoreSession restores the session file at path into m and returns
// what went wrong with parts of it. A missing file is not an error.
func restoreSession(m *workspace.Manager, path string) (warnings []string, err error) {
	sess, err := session.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return session.Restore(m, sess)
}

// saver writes the session file off the UI goroutine: trigger asks for a
// save, which happens once changes stopped for saveDebounce; close saves
// a last time and stops it. Its methods are safe for concurrent use.
type saver struct {
	m     *workspace.Manager
	path  string
	logf  func(string, ...any)
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	saves int // successful saves, for tests
}

func newSaver(m *workspace.Manager, path string, logf func(string, ...any)) *saver {
	sv := &saver{m: m, path: path, logf: logf, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
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
			sv.save()
		case <-sv.stop:
			timer.Stop()
			sv.save()
			return
		}
	}
}

// save captures the model and writes the file.
func (sv *saver) save() {
	sess := session.Capture(sv.m)
	if err := session.Save(sv.path, sess); err != nil {
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

// busyPanes counts the panes running something other than an idle shell:
// a pane started with a command whose program still runs, or a shell with
// a foreground job. It reads the process table.
func busyPanes(m *workspace.Manager) int {
	n := 0
	for _, p := range m.Panes() {
		sf, ok := m.Surface(p.ID)
		if !ok {
			continue
		}
		if _, exited := sf.Exited(); exited {
			continue
		}
		if sf.Command() != "" {
			n++
			continue
		}
		fg, err := sf.Terminal().Foreground()
		if err == nil && fg.Pid != 0 && fg.Pid != sf.Terminal().Pid() {
			n++
		}
	}
	return n
}
