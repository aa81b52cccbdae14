package terminal

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// DefaultScreenHistoryBytes is the memory a pane's [ScreenHistory] may
// use when [EmulatorOptions.ScreenHistoryBytes] is zero: 1 MiB, about a
// thousand full-screen agent screens (each is stored as its difference
// from the one before).
const DefaultScreenHistoryBytes = 1 << 20

// NoScreenHistory, as [EmulatorOptions.ScreenHistoryBytes], keeps no
// history of the alternate screen.
const NoScreenHistory = -1

// screenOverhead is what a held screen costs besides its rows, counted
// in the bound: its entry, twice (the slice of entries grows by
// doubling), and the rounding of its row numbers' allocation. Its row
// numbers cost what their encoding takes (see encodeRows), at most
// rowIDMax bytes a row.
const screenOverhead = 2*int(unsafe.Sizeof(screenEntry{})) + 8

// rowIDMax is the most bytes a row's number takes in encodeRows'
// encoding.
const rowIDMax = 4

// rowOverhead is what a distinct row costs besides its text: its offset
// and reference count, and its place in the row index (a map slot of 8
// bytes, at most 7/16 full after the map grew, and its control byte).
const rowOverhead = 8 + 24

// ScreenRecord is one screen a full-screen program settled on, as
// [ScreenHistory.Screens] returns it.
type ScreenRecord struct {
	// Seq numbers the screens of a pane from 1, in the order they were
	// first shown; numbers are never reused, so a Seq names the same
	// screen for as long as it is held.
	Seq uint64
	// First and Last are when the screen was first and last recorded
	// (a screen shown again later is kept once, with Last and Seen moved).
	First, Last time.Time
	// Seen counts how many times the screen was recorded.
	Seen int
	// Generation is the emulator's output generation when it was first
	// recorded.
	Generation uint64
	// Text is the screen's rows joined with "\n", each right-trimmed,
	// trailing empty rows dropped.
	Text string
}

// screenEntry is a held screen: its rows, as numbers of rows in the
// history's rowStore, encoded by encodeRows (2 bytes a row, or 4 if
// wide). rows is immutable (a
// compaction gives an entry a new one), so a copy of an entry stays
// valid.
type screenEntry struct {
	seq         uint64
	first, last int64 // Unix nanoseconds
	gen         uint64
	hash        uint64 // of the screen's text: the dedup key
	seen        int32
	wide        bool
	rows        string
}

// encodeRows encodes a screen's row numbers, each in 2 bytes
// (little-endian) when all are below 2¹⁶ (wide false), else in 4.
// The held rows are at most a bound's worth (rowOverhead bytes each),
// so with the default bound they always fit in 2.
func encodeRows(buf []byte, ids []uint32) (rows string, wide bool) {
	buf = buf[:0]
	for _, id := range ids {
		wide = wide || id > math.MaxUint16
	}
	for _, id := range ids {
		if wide {
			buf = binary.LittleEndian.AppendUint32(buf, id)
		} else {
			buf = binary.LittleEndian.AppendUint16(buf, uint16(id))
		}
	}
	return string(buf), wide
}

// rowCount reports how many rows e shows.
func (e *screenEntry) rowCount() int {
	if e.wide {
		return len(e.rows) / 4
	}
	return len(e.rows) / 2
}

// rowID returns the number of e's row y (< rowCount).
func (e *screenEntry) rowID(y int) uint32 {
	if e.wide {
		return uint32(e.rows[4*y]) | uint32(e.rows[4*y+1])<<8 | uint32(e.rows[4*y+2])<<16 | uint32(e.rows[4*y+3])<<24
	}
	return uint32(e.rows[2*y]) | uint32(e.rows[2*y+1])<<8
}

// appendRowIDs appends to dst the numbers of e's rows.
func (e *screenEntry) appendRowIDs(dst []uint32) []uint32 {
	for y := range e.rowCount() {
		dst = append(dst, e.rowID(y))
	}
	return dst
}

// record returns e as a ScreenRecord, its text joined from rs.
func (e *screenEntry) record(rs rowSnapshot) ScreenRecord {
	ids := e.appendRowIDs(nil)
	n := len(ids)
	for _, id := range ids {
		n += len(rs.row(id))
	}
	text := make([]byte, 0, n)
	for y, id := range ids {
		if y > 0 {
			text = append(text, '\n')
		}
		text = append(text, rs.row(id)...)
	}
	return ScreenRecord{
		Seq: e.seq, First: time.Unix(0, e.first), Last: time.Unix(0, e.last),
		Seen: int(e.seen), Generation: e.gen, Text: string(text),
	}
}

// ScreenHistory keeps the screens a program showed on the alternate
// screen (full-screen programs: agents' TUIs, editors, pagers), which no
// scrollback holds: every screen it settled on and the last one before it
// left. Screens are deduplicated (a screen shown again is kept once) and
// so are their rows: each distinct row's text is stored once, however
// many held screens show it, and a screen is its row numbers. A
// full-screen agent redraws mostly the same rows (its spinner line
// changes, its transcript scrolls), so a screen costs little more than
// what changed on it, and a search reads each distinct row once. The
// history is bounded: once the rows' text, the screens' row numbers and a
// fixed overhead per screen and per row pass the limit, the oldest
// screens are dropped (and rows no held screen shows with them).
//
// The emulator records into it (see [Emulator.RecordScreen]); a
// [Terminal] records each screen its program settles on. All methods are
// safe for concurrent use; the zero value is not usable (an emulator
// makes its own, [Emulator.ScreenHistory]).
type ScreenHistory struct {
	mu      sync.Mutex
	limit   int
	entries []screenEntry // oldest first; seqs are consecutive
	rows    rowStore
	bytes   int // see Bytes
	nextSeq uint64
	dropped uint64
}

var screenSeed = maphash.MakeSeed()

// mapHash is the hash screens and rows are deduplicated by.
func mapHash(text []byte) uint64 { return maphash.Bytes(screenSeed, text) }

// newScreenHistory returns a history bounded to limit bytes (> 0).
func newScreenHistory(limit int) *ScreenHistory {
	return &ScreenHistory{limit: limit, nextSeq: 1, rows: rowStore{index: map[uint32]uint32{}}}
}

// heldLocked returns the index in entries of the held screen whose text
// hashes to sum, or -1. It looks newest first (a screen shown again was
// mostly shown lately); a scan of the hashes costs less than a map's
// memory, and a screen is added a few times a second at most.
func (h *ScreenHistory) heldLocked(sum uint64) int {
	for i := len(h.entries) - 1; i >= 0; i-- {
		if h.entries[i].hash == sum {
			return i
		}
	}
	return -1
}

// Limit reports the bound in bytes.
func (h *ScreenHistory) Limit() int { return h.limit }

// Bytes reports the memory the history counts against the limit: the
// capacity of its row text (with rows no screen shows any more, until
// they are compacted away), each row's and each screen's overhead, and
// each screen's row numbers.
func (h *ScreenHistory) Bytes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// Len reports how many screens are held.
func (h *ScreenHistory) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// Dropped reports how many screens were dropped to stay inside the limit.
func (h *ScreenHistory) Dropped() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

// add records text (not retained) as shown at now with output generation
// gen. It reports whether a new screen was stored: an empty screen is
// not, one whose text alone passes the bound is not, and one identical
// to a held screen only moves that screen's Last and Seen.
func (h *ScreenHistory) add(text []byte, gen uint64, now time.Time) bool {
	if len(bytes.TrimSpace(text)) == 0 {
		return false
	}
	sum := mapHash(text)
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := h.heldLocked(sum); i >= 0 {
		e := &h.entries[i]
		e.last = now.UnixNano()
		e.seen++
		return false
	}
	n := bytes.Count(text, []byte{'\n'}) + 1
	if len(text)+1+n*(rowIDMax+rowOverhead)+screenOverhead > h.limit {
		return false // a screen larger than the whole bound is not kept
	}
	if len(h.rows.text)+len(text)+1 > cap(h.rows.text) {
		// Room for every row being new, and some more.
		need := len(h.rows.text) - h.rows.dead + len(text) + 1
		screen := n*(rowIDMax+rowOverhead) + screenOverhead // the new screen's other costs (at most)
		h.rows.compact(h.entries, need+slack(need, h.roomLocked()-screen-need))
	}
	ids := make([]uint32, 0, n)
	for row := range bytes.SplitSeq(text, []byte{'\n'}) {
		ids = append(ids, h.rows.intern(row))
	}
	rows, wide := encodeRows(make([]byte, 0, n*rowIDMax), ids)
	h.entries = append(h.entries, screenEntry{
		seq: h.nextSeq, first: now.UnixNano(), last: now.UnixNano(), seen: 1, gen: gen, hash: sum,
		rows: rows, wide: wide,
	})
	h.nextSeq++
	h.bytes = h.countLocked()
	for h.bytes > h.limit && len(h.entries) > 0 {
		h.dropOldestLocked()
		// Compact the rows once that alone brings the history inside the
		// bound with a sixteenth of it to spare: the next screens' rows
		// go there, so compactions (which copy every held row) come once
		// every limit/16 bytes of new rows, not at every screen.
		if over := h.bytes - h.limit + h.limit/16; h.rows.dead > 0 && h.rows.dead >= over {
			live := len(h.rows.text) - h.rows.dead
			h.rows.compact(h.entries, live+slack(live, h.roomLocked()-live))
			h.bytes = h.countLocked()
		}
	}
	return true
}

// countLocked returns what the history counts against its limit.
func (h *ScreenHistory) countLocked() int {
	n := cap(h.rows.text) + len(h.rows.starts)*rowOverhead + len(h.entries)*screenOverhead
	for i := range h.entries {
		n += len(h.entries[i].rows)
	}
	return n
}

// roomLocked returns how many bytes of row text the bound leaves room
// for besides everything else the history holds.
func (h *ScreenHistory) roomLocked() int {
	return h.limit - (h.countLocked() - cap(h.rows.text))
}

// slack is the spare capacity a row text holding n bytes gets: a quarter
// more (at least 4 KiB), within the room the bound leaves (room bytes past
// n).
func slack(n, room int) int { return max(0, min(max(4096, n/4), room)) }

// dropOldestLocked drops the oldest screen, and the rows only it showed.
func (h *ScreenHistory) dropOldestLocked() {
	old := h.entries[0]
	for _, id := range old.appendRowIDs(nil) {
		h.rows.release(id)
	}
	h.entries[0] = screenEntry{}
	h.entries = h.entries[1:]
	h.dropped++
	if len(h.entries) == 0 {
		h.rows.compact(nil, 0)
	}
	h.bytes = h.countLocked()
}

// snapshot returns copies of the held screens' entries and the rows they
// show, taken under the lock: reading them needs no lock.
func (h *ScreenHistory) snapshot() ([]screenEntry, rowSnapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.entries), h.rows.snapshot()
}

// Screens calls fn for each held screen, oldest first, until fn returns
// false. The screens are read outside the history's lock, from a copy of
// its index taken at the call, so recording goes on meanwhile.
func (h *ScreenHistory) Screens(fn func(ScreenRecord) bool) {
	entries, rs := h.snapshot()
	for i := range entries {
		if !fn(entries[i].record(rs)) {
			return
		}
	}
}

// Screen returns the held screen seq; ok is false when it is not held
// (never recorded, or dropped).
func (h *ScreenHistory) Screen(seq uint64) (rec ScreenRecord, ok bool) {
	h.mu.Lock()
	if len(h.entries) == 0 || seq < h.entries[0].seq || seq >= h.nextSeq {
		h.mu.Unlock()
		return ScreenRecord{}, false
	}
	e := h.entries[seq-h.entries[0].seq]
	rs := h.rows.snapshot()
	h.mu.Unlock()
	return e.record(rs), true
}

// Span reports the numbers of the oldest and newest held screens; ok is
// false when none is held.
func (h *ScreenHistory) Span() (first, last uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.entries) == 0 {
		return 0, 0, false
	}
	return h.entries[0].seq, h.entries[len(h.entries)-1].seq, true
}

// rowStore holds the distinct rows of the held screens: their text back
// to back, each followed by '\n', numbered in that order. Text and starts
// are only appended to (a compaction builds new ones), so a snapshot of
// them stays valid without a lock. It is guarded by its history's lock.
type rowStore struct {
	text   []byte
	starts []uint32          // starts[id]: where row id's text begins
	refs   []int32           // refs[id]: how many held screens show row id
	index  map[uint32]uint32 // text hash (its low 32 bits) → id of a row some screen shows
	dead   int               // bytes of text (with the '\n') of rows no screen shows
	// epoch counts compactions (which renumber the rows).
	epoch uint64
}

// rowSnapshot is a rowStore's text and row starts at one moment.
type rowSnapshot struct {
	text   []byte
	starts []uint32
}

func (rs *rowStore) snapshot() rowSnapshot {
	return rowSnapshot{text: rs.text[:len(rs.text):len(rs.text)], starts: rs.starts[:len(rs.starts):len(rs.starts)]}
}

// row returns row id's text, without its '\n'.
func (s rowSnapshot) row(id uint32) []byte {
	end := len(s.text)
	if int(id)+1 < len(s.starts) {
		end = int(s.starts[id+1])
	}
	return s.text[s.starts[id] : end-1]
}

// intern returns the id of row, stored if no held screen shows it yet, and
// counts one more screen showing it. The text must have room for it
// (see reserve): it is never reallocated here.
func (rs *rowStore) intern(row []byte) uint32 {
	sum := uint32(mapHash(row))
	if id, ok := rs.index[sum]; ok && bytes.Equal(rs.snapshot().row(id), row) {
		if rs.refs[id] == 0 {
			rs.dead -= len(row) + 1
		}
		rs.refs[id]++
		return id
	}
	id := uint32(len(rs.starts))
	rs.starts = append(rs.starts, uint32(len(rs.text)))
	rs.refs = append(rs.refs, 1)
	rs.text = append(append(rs.text, row...), '\n')
	if _, ok := rs.index[sum]; !ok {
		rs.index[sum] = id // a hash collision leaves the second row out of the index
	}
	return id
}

// release counts one screen fewer showing row id.
func (rs *rowStore) release(id uint32) {
	rs.refs[id]--
	if rs.refs[id] > 0 {
		return
	}
	row := rs.snapshot().row(id)
	rs.dead += len(row) + 1
	if sum := uint32(mapHash(row)); rs.index[sum] == id {
		delete(rs.index, sum)
	}
}

// compact rebuilds the store with only the rows entries show, in a text
// of capacity size (at least what the rows need), and gives each
// entry its rows' new numbers (in new slices: copies of entries taken
// earlier keep theirs, which still name rows of their own snapshot).
func (rs *rowStore) compact(entries []screenEntry, size int) {
	live := len(rs.text) - rs.dead
	old := rs.snapshot()
	oldRefs := rs.refs
	*rs = rowStore{
		epoch: rs.epoch + 1,
		text:  make([]byte, 0, max(live, size)),
		index: make(map[uint32]uint32, len(rs.index)),
	}
	const none = ^uint32(0)
	renum := make([]uint32, len(old.starts))
	for i := range renum {
		renum[i] = none
	}
	var ids, oldIDs []uint32
	var buf []byte
	for i := range entries {
		ids = ids[:0]
		oldIDs = entries[i].appendRowIDs(oldIDs[:0])
		for _, id := range oldIDs {
			nid := renum[id]
			if nid == none {
				row := old.row(id)
				nid = uint32(len(rs.starts))
				rs.starts = append(rs.starts, uint32(len(rs.text)))
				rs.refs = append(rs.refs, oldRefs[id])
				rs.text = append(append(rs.text, row...), '\n')
				sum := uint32(mapHash(row))
				if _, ok := rs.index[sum]; !ok {
					rs.index[sum] = nid
				}
				renum[id] = nid
			}
			ids = append(ids, nid)
		}
		buf = slices.Grow(buf[:0], len(ids)*rowIDMax)
		entries[i].rows, entries[i].wide = encodeRows(buf, ids)
	}
}

// find calls add with each row of each held screen that q matches,
// screens oldest first, until add returns false. Each distinct row is
// matched once, however many screens show it, outside the lock; the
// screens are copied only when some row matched.
func (h *ScreenHistory) find(q *Query, add func(Found) bool) {
	for {
		h.mu.Lock()
		rs, epoch := h.rows.snapshot(), h.rows.epoch
		h.mu.Unlock()
		// hit has a bit set for each row that matched; spans holds
		// their spans.
		hit := make([]uint64, (len(rs.starts)+63)/64)
		hits := map[uint32][]Span{}
		q.scan(rs.text, rs.starts, 0, func(line int, spans []Span) bool {
			hit[line/64] |= 1 << (line % 64)
			hits[uint32(line)] = bytes2spans(spans)
			return true
		})
		if len(hits) == 0 {
			return
		}
		h.mu.Lock()
		if h.rows.epoch != epoch {
			// Compacted meanwhile: the rows were renumbered. Again.
			h.mu.Unlock()
			continue
		}
		entries := slices.Clone(h.entries)
		h.mu.Unlock()
		texts := map[uint32]string{}
		// found adds row y of e, row id, which matched.
		found := func(e *screenEntry, y int, id uint32) bool {
			text, ok := texts[id]
			if !ok {
				text = string(rs.row(id))
				texts[id] = text
			}
			return add(Found{Source: FoundHistory, Line: y, Screen: e.seq, Shown: time.Unix(0, e.first), Text: text, Spans: bytes2spans(hits[id])})
		}
		// A row id past the scanned rows was added since the scan.
		matched := func(id uint32) bool { return int(id) < len(rs.starts) && hit[id/64]&(1<<(id%64)) != 0 }
		for i := range entries {
			e := &entries[i]
			rows := e.rows
			if e.wide {
				for y := range len(rows) / 4 {
					if id := binary.LittleEndian.Uint32([]byte(rows[4*y : 4*y+4])); matched(id) && !found(e, y, id) {
						return
					}
				}
				continue
			}
			for y := range len(rows) / 2 {
				if id := uint32(rows[2*y]) | uint32(rows[2*y+1])<<8; matched(id) && !found(e, y, id) {
					return
				}
			}
		}
		return
	}
}
