package terminal

import (
	"sync"
	"time"
)

// This file records the alternate screen into the emulator's
// ScreenHistory: the emulator takes the screen a program leaves (or
// resets away), and a Terminal takes each screen its program settles on
// (settler).

// newScreenHistoryFor returns the history for EmulatorOptions'
// ScreenHistoryBytes (nil for NoScreenHistory).
func newScreenHistoryFor(limit int) *ScreenHistory {
	switch {
	case limit == 0:
		return newScreenHistory(DefaultScreenHistoryBytes)
	case limit < 0:
		return nil
	}
	return newScreenHistory(limit)
}

// ScreenHistory returns the history of the alternate screen: the screens
// full-screen programs showed, which the scrollback does not hold. It is
// nil when the emulator was made with NoScreenHistory.
func (e *Emulator) ScreenHistory() *ScreenHistory { return e.shots }

// altTextLocked appends the alternate screen's text to buf: its rows
// right-trimmed, joined with "\n", trailing empty rows dropped. The
// alternate screen must be showing.
func (e *Emulator) altTextLocked(buf []byte) []byte {
	start := len(buf)
	end := start
	for y := range e.rows {
		if y > 0 {
			buf = append(buf, '\n')
		}
		buf = e.lineTextLocked(buf, e.hist.n+y)
		if len(buf) > start && buf[len(buf)-1] != '\n' {
			end = len(buf)
		}
	}
	return buf[:end]
}

// shootAltLocked stores the alternate screen, which the program is
// leaving (or a reset drops). It runs under the emulator's lock, so that
// a reader who sees the program gone finds its last screen held: leaving
// is rare, and compressing a screen takes well under a millisecond.
func (e *Emulator) shootAltLocked() {
	if e.shots == nil || e.cur != e.alt {
		return
	}
	e.shots.add(e.altTextLocked(nil), e.gen, time.Now())
}

// RecordScreen stores the alternate screen in the screen history if it
// is showing, not in the middle of a synchronized update (DECSET 2026),
// and not already held. It reports whether a new screen was stored. A
// [Terminal] calls it when its program's output settles.
func (e *Emulator) RecordScreen() bool {
	if e.shots == nil {
		return false
	}
	e.mu.Lock()
	if e.cur != e.alt || e.syncOutput {
		e.mu.Unlock()
		return false
	}
	text := e.altTextLocked(nil)
	gen := e.gen
	e.mu.Unlock()
	return e.shots.add(text, gen, time.Now())
}

// altGeneration reports whether the alternate screen shows and the
// output generation, under one lock.
func (e *Emulator) altGeneration() (bool, uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur == e.alt, e.gen
}

// Settling: a screen is recorded once output stopped for settleQuiet, and,
// for a program that never stops redrawing (a spinner, a clock), every
// settleBusy while output keeps coming.
const (
	settleQuiet = 300 * time.Millisecond
	settleBusy  = 2 * time.Second
)

// settler decides when a Terminal records its alternate screen. It is a
// clock-free state machine: note is told of output, check is called
// settleQuiet after note armed it (and again while it says so). The zero
// value is ready; its methods are safe for concurrent use.
type settler struct {
	mu    sync.Mutex
	armed bool
	seen  uint64    // the generation at the last note or check
	since time.Time // the last recording, or the first output after it
}

// note is told that output up to generation gen was parsed while the
// alternate screen showed; it reports whether the caller must start a
// check settleQuiet from now (none was pending).
func (s *settler) note(gen uint64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since.IsZero() {
		s.since = now
	}
	if s.armed {
		return false
	}
	s.armed, s.seen = true, gen
	return true
}

// check is a pending check: alt and gen are the emulator's state now. It
// reports whether to record the screen now and whether to check again
// settleQuiet later.
func (s *settler) check(alt bool, gen uint64, now time.Time) (record, again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !alt:
		// Left the alternate screen: the emulator took its last screen.
		s.armed, s.since = false, time.Time{}
		return false, false
	case gen == s.seen:
		// No output for a whole settleQuiet: settled.
		s.armed, s.since = false, time.Time{}
		return true, false
	}
	s.seen = gen
	if now.Sub(s.since) >= settleBusy {
		s.since = now
		return true, true
	}
	return false, true
}

// noteOutput is called by the parser after each batch of output.
func (t *Terminal) noteOutput() {
	if t.emu.shots == nil {
		return
	}
	alt, gen := t.emu.altGeneration()
	if alt && t.settle.note(gen, time.Now()) {
		time.AfterFunc(settleQuiet, t.settleCheck)
	}
}

// settleCheck runs settleQuiet after noteOutput armed it.
func (t *Terminal) settleCheck() {
	alt, gen := t.emu.altGeneration()
	record, again := t.settle.check(alt, gen, time.Now())
	if record {
		t.emu.RecordScreen()
	}
	if again {
		time.AfterFunc(settleQuiet, t.settleCheck)
	}
}
