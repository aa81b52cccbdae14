package terminal

import "slices"

// tap is one observer of a terminal's raw output.
type tap struct{ f func([]byte) }

// Tap calls f with every chunk of the program's raw output (the bytes
// read from the pseudo-terminal, before parsing), from the terminal's
// reader goroutine, until the returned function is called. f must copy
// what it keeps and must not block: the program's output waits for it.
// It is how the CustomPaneBackend server streams context_output. Safe for
// concurrent use.
func (t *Terminal) Tap(f func([]byte)) (remove func()) {
	tp := &tap{f: f}
	for {
		old := t.taps.Load()
		var next []*tap
		if old != nil {
			next = slices.Clone(*old)
		}
		next = append(next, tp)
		if t.taps.CompareAndSwap(old, &next) {
			break
		}
	}
	return func() {
		for {
			old := t.taps.Load()
			if old == nil {
				return
			}
			next := slices.DeleteFunc(slices.Clone(*old), func(x *tap) bool { return x == tp })
			if t.taps.CompareAndSwap(old, &next) {
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
