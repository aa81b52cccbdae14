package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// This file keeps each pane's screen history on disk as well, when
// Options.HistoryDir is set: a journal per pane (see
// terminal.ScreenHistory.OpenDisk), named by the pane's history key, so
// that screens dropped from memory stay searchable and a pane restored
// after a restart (the session keeps its key) finds its old screens. The
// journal is deleted once its pane is closed for good (after undo
// close's window); a server that stops keeps the open panes' journals
// for the next start.

// paneHistory is a surface's journal: its key (a file name in
// Options.HistoryDir), "" when it keeps none. Guarded by mu.
type paneHistory struct {
	mu  sync.Mutex
	key string
}

// newHistoryKey returns a fresh history key: 16 random hex digits.
func newHistoryKey() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// validHistoryKey reports whether key can name a journal: 16 lower-case
// hex digits, as newHistoryKey makes (a session file is not trusted to
// name a path).
func validHistoryKey(key string) bool {
	if len(key) != 16 {
		return false
	}
	for _, c := range []byte(key) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// historyBytes is Options.HistoryDiskBytes with its default.
func (m *Manager) historyBytes() int {
	if m.o.HistoryDiskBytes <= 0 {
		return DefaultHistoryDiskBytes
	}
	return m.o.HistoryDiskBytes
}

// warnf reports a problem through Options.Logf (nowhere without it).
func (m *Manager) warnf(format string, args ...any) {
	if m.o.Logf != nil {
		m.o.Logf(format, args...)
	}
}

// openHistory gives s a journal under key ("" for a new one), closing
// (and deleting) the one it had. Problems are warned about: the pane
// keeps its history in memory.
func (m *Manager) openHistory(s *Surface, key string) error {
	h := s.term.Emulator().ScreenHistory()
	if m.o.HistoryDir == "" || h == nil {
		return nil
	}
	if key == "" {
		key = newHistoryKey()
	} else if !validHistoryKey(key) {
		return fmt.Errorf("workspace: history key %q is not one Paneflow made", key)
	}
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	if s.hist.key == key {
		return nil
	}
	if s.hist.key != "" {
		h.CloseDisk(true) // its screens are in memory, and go to the new journal
		s.hist.key = ""
	}
	id := s.id
	refused, err := h.OpenDisk(filepath.Join(m.o.HistoryDir, key), m.historyBytes(), func(w string) {
		m.warnf("paneflow: pane %d: %s", id, w)
	})
	if refused != nil {
		m.warnf("paneflow: pane %d: %v", id, refused)
	}
	if err != nil {
		m.warnf("paneflow: pane %d: %v; its history is kept in memory only", id, err)
		return nil
	}
	s.hist.key = key
	return nil
}

// closeHistory closes s's journal: deleted when the pane is closed for
// good (remove), else written out for the next start.
func (s *Surface) closeHistory(remove bool) {
	h := s.term.Emulator().ScreenHistory()
	if h == nil {
		return
	}
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	if err := h.CloseDisk(remove); err != nil {
		s.m.warnf("paneflow: pane %d: screen history on disk: %v", s.id, err)
	}
	if remove {
		s.hist.key = ""
	}
}

// HistoryKey returns the name of the pane's screen history journal on
// disk ("" when it keeps none): what a session keeps so that the pane
// restored after a restart reads it again ([Surface.AdoptHistory]). Safe
// for concurrent use.
func (s *Surface) HistoryKey() string {
	s.hist.mu.Lock()
	defer s.hist.mu.Unlock()
	return s.hist.key
}

// AdoptHistory makes the pane keep its screen history in the journal a
// pane had under key (its [Surface.HistoryKey] before a restart): the
// screens that pane showed come first, numbered before the ones this
// pane showed since it started, which are written to that journal; the
// journal the pane started with is deleted. A key Paneflow did not make
// is an error; a journal that cannot be read is warned about (through
// Options.Logf) and a new one started. It does nothing when the manager
// keeps no history on disk. Safe for concurrent use.
func (s *Surface) AdoptHistory(key string) error {
	return s.m.openHistory(s, key)
}

// PruneHistory deletes the journals in Options.HistoryDir that no pane
// (open, or kept for undo close) keeps: those of panes a server that
// was killed never saved in its session. The server calls it once the
// session is restored. It does nothing without a HistoryDir, and
// returns the first error met (the others are still tried).
func (m *Manager) PruneHistory() error {
	if m.o.HistoryDir == "" {
		return nil
	}
	ents, err := os.ReadDir(m.o.HistoryDir)
	if err != nil {
		return fmt.Errorf("workspace: prune screen histories: %w", err)
	}
	m.mu.Lock()
	keep := map[string]bool{}
	for _, s := range m.surfaces {
		keep[s.HistoryKey()] = true
	}
	for _, it := range m.closedItems {
		for _, s := range it.ss {
			keep[s.HistoryKey()] = true
		}
	}
	m.mu.Unlock()
	var first error
	for _, e := range ents {
		key, _, ok := strings.Cut(e.Name(), ".")
		if !ok || !validHistoryKey(key) || keep[key] || e.IsDir() {
			continue // not a journal, or one a pane keeps
		}
		if err := os.Remove(filepath.Join(m.o.HistoryDir, e.Name())); err != nil && first == nil {
			first = fmt.Errorf("workspace: prune screen histories: %w", err)
		}
	}
	return first
}
