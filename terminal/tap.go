package terminal

import (
	"slices"
	"sync/atomic"
)

// tap is one observer of a terminal's raw output or of its input.
type tap struct{ f func([]byte) }

// Tap calls f with every chunk of the program's raw output (the bytes
// read from the pseudo-terminal, before parsing), from the terminal's
// reader goroutine, until the returned function is called. f must copy
// what it keeps and must not block: the program's output waits for it.
// It is how the CustomPaneBackend server streams context_output. Safe for
// concurrent use.
func (t *Terminal) Tap(f func([]byte)) (remove func()) {
	return addTap(&t.taps, f)
}

// TapInput calls f with every chunk of input given to
// [Terminal.SendInput] (keys, pastes; not the emulator's replies to the
// program's queries), on the sender's goroutine, before the chunk is
// queued: f sees the screen the sender saw. It lasts until the returned
// function is called. f must not keep p nor block for long. The
// conductor learns from it that the user answered an agent's question.
// Safe for concurrent use.
func (t *Terminal) TapInput(f func([]byte)) (remove func()) {
	return addTap(&t.inputTaps, f)
}

// tapInput hands a chunk of input to the input taps.
func (t *Terminal) tapInput(p []byte) {
	if taps := t.inputTaps.Load(); taps != nil {
		for _, tp := range *taps {
			tp.f(p)
		}
	}
}

// addTap adds an observer f to the list in taps and returns its removal.
func addTap(taps *atomic.Pointer[[]*tap], f func([]byte)) (remove func()) {
	tp := &tap{f: f}
	for {
		old := taps.Load()
		var next []*tap
		if old != nil {
			next = slices.Clone(*old)
		}
		next = append(next, tp)
		if taps.CompareAndSwap(old, &next) {
			break
		}
	}
	return func() {
		for {
			old := taps.Load()
			if old == nil {
				return
			}
			next := slices.DeleteFunc(slices.Clone(*old), func(x *tap) bool { return x == tp })
			if taps.CompareAndSwap(old, &next) {
				return
			}
		}
	}
}

// tapOutput hands a chunk to the taps.
func (t *Terminal) tapOutput(p []byte) {
	if taps := t.taps.Load(); taps != nil {
		for _, tp := range *taps {
			tp.f(p)
		}
	}
}
