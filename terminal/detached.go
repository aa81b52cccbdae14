package terminal

import "sync"

// detachedState is what a terminal made by [Detached] has instead of a
// program.
type detachedState struct {
	input   func([]byte)
	endOnce sync.Once
}

// Detached returns a terminal that runs no program, for tests of the code
// above the terminal (the workspace model, the socket API): its screen
// shows only what is written to its [Emulator], input sent to it is handed
// to input in order on the terminal's writer goroutine (nil discards it),
// and it ends when [Terminal.Exit] or [Terminal.Close] is called. Started
// is closed at once, Pid is 0 and Foreground fails. Real programs are
// tested end to end; nothing in the product calls Detached.
func Detached(o Options, input func([]byte)) *Terminal {
	cols, rows := o.Cols, o.Rows
	if cols <= 0 || rows <= 0 {
		cols, rows = DefaultCols, DefaultRows
	}
	t := &Terminal{
		started:    make(chan struct{}),
		wake:       make(chan struct{}, 1),
		outReady:   make(chan struct{}, 1),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		detached:   &detachedState{input: input},
	}
	t.outSpace = sync.NewCond(&t.outMu)
	t.emu = NewEmulator(cols, rows, EmulatorOptions{
		Scrollback: o.Scrollback,
		Reply:      t.queueReply,
		AllowOSC52: o.AllowOSC52,
		Clipboard:  o.Clipboard,
		Bell:       o.Bell,
	})
	close(t.started)
	close(t.readerDone)
	go t.detachedWriteLoop()
	return t
}

// Exit ends a terminal made by [Detached] as if its program had exited
// with code: Done is closed and input is refused. It does nothing on other
// terminals and once the terminal ended.
func (t *Terminal) Exit(code int) {
	t.endDetached(ExitStatus{Code: code})
}

// endDetached ends a detached terminal with st, once.
func (t *Terminal) endDetached(st ExitStatus) {
	if t.detached == nil {
		return
	}
	t.detached.endOnce.Do(func() {
		t.exit = st
		t.mu.Lock()
		t.closing = true
		t.signal()
		t.mu.Unlock()
		close(t.done)
	})
}

// detachedWriteLoop hands queued input to the detached terminal's input
// function until the terminal ends.
func (t *Terminal) detachedWriteLoop() {
	defer close(t.writerDone)
	for {
		<-t.wake
		t.mu.Lock()
		closing := t.closing
		buf := t.input
		t.input, t.replies = nil, 0
		t.mu.Unlock()
		if closing {
			return
		}
		if len(buf) > 0 && t.detached.input != nil {
			t.detached.input(buf)
		}
	}
}
