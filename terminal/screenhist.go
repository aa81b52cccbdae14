package terminal

import (
	"bytes"
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
// in the bound: its entry, twice (the slice of entries is copied as it
// grows, and a search may hold the old one). Its row numbers cost what their encoding takes (see
// encodeRows: at most rowIDMax bytes a row), in an arena of them counted
// whole, and the numbers of the newest screen are kept decoded.
const screenOverhead = 2 * int(unsafe.Sizeof(screenEntry{}))

// rowIDMax is the most bytes a row's number takes in encodeRows'
// encoding.
const rowIDMax = 4

// rowOverhead is what a distinct row costs besides its text: its offset
// and reference count, 4 bytes each, twice (their slices grow by
// doubling).
const rowOverhead = 2 * (4 + 4)

// recentScreens is how many of the newest held screens a new screen's
// rows are looked up in (rows are stored once across them): a
// full-screen program's screen mostly shows rows its screens just before
// showed. A row that comes back after longer is stored again.
const recentScreens = 16

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

// screenEntry is a held screen: its times, and where its row numbers
// (encoded by encodeRows, after the screen before unless a key screen)
// are in the history's ids. Its number is its place among the held
// screens (they are numbered consecutively). Only last and seen change
// once it is in the history's entries (a compaction or a new ids arena
// gives the history new entries), so the other fields of an entry may be
// read without the lock from a slice of entries taken under it.
type screenEntry struct {
	first, last int64 // Unix nanoseconds
	gen         uint64
	off         uint32 // where its row numbers start in ids
	enc         uint32 // their size in bytes (low 30 bits) and rowsKind (high 2)
	hash        uint32 // of the screen's text (its low bits): the dedup key
	seen        int32
}

const encSizeBits = 30

// rowsEnc returns e's row numbers' encoding, from the history's ids.
func (e *screenEntry) rowsEnc(ids []byte) ([]byte, rowsKind) {
	return ids[e.off : e.off+uint32(e.encSize())], e.kind()
}

// encSize reports the bytes of e's row numbers.
func (e *screenEntry) encSize() int { return int(e.enc & (1<<encSizeBits - 1)) }

// kind reports how e's row numbers are encoded.
func (e *screenEntry) kind() rowsKind { return rowsKind(e.enc >> encSizeBits) }

// rows appends to dst e's row numbers (prev: the screen before's, unless
// e is a key screen).
func (e *screenEntry) rows(dst []uint32, ids []byte, prev []uint32) []uint32 {
	enc, kind := e.rowsEnc(ids)
	dst, _ = decodeRows(dst, enc, kind, prev, math.MaxInt)
	return dst
}

// walkScreens calls fn with the row numbers of entries[i] and of each
// screen after it, until fn returns false; the numbers are decoded from
// the key screen at or before i (entries[0] is one). fn must not keep
// rows.
func walkScreens(entries []screenEntry, ids []byte, i int, fn func(i int, rows []uint32) bool) {
	j := i
	for j > 0 && entries[j].kind() == rowsCopies {
		j--
	}
	var prev, cur []uint32
	for ; j < len(entries); j++ {
		cur = entries[j].rows(cur[:0], ids, prev)
		if j >= i && !fn(j, cur) {
			return
		}
		prev, cur = cur, prev
	}
}

// record returns e, screen seq showing rows, as a ScreenRecord, its text
// joined from rs.
func (e *screenEntry) record(seq uint64, rows []uint32, rs rowSnapshot) ScreenRecord {
	n := len(rows)
	for _, id := range rows {
		n += len(rs.row(id))
	}
	text := make([]byte, 0, n)
	for y, id := range rows {
		if y > 0 {
			text = append(text, '\n')
		}
		text = append(text, rs.row(id)...)
	}
	return ScreenRecord{
		Seq: seq, First: time.Unix(0, e.first), Last: time.Unix(0, e.last),
		Seen: int(e.seen), Generation: e.gen, Text: string(text),
	}
}

// showsText reports whether rows of rs make text.
func showsText(rows []uint32, rs rowSnapshot, text []byte) bool {
	for y, id := range rows {
		if y > 0 {
			if len(text) == 0 || text[0] != '\n' {
				return false
			}
			text = text[1:]
		}
		row := rs.row(id)
		if !bytes.HasPrefix(text, row) {
			return false
		}
		text = text[len(row):]
	}
	return len(text) == 0
}

// ScreenHistory keeps the screens a program showed on the alternate
// screen (full-screen programs: agents' TUIs, editors, pagers), which no
// scrollback holds: every screen it settled on and the last one before it
// left. Screens are deduplicated (a screen shown again is kept once) and
// so are their rows: each distinct row's text is stored once, however
// many of the newest screens show it, and a screen is its row numbers,
// encoded as what changed from the screen before (see encodeRows). A
// full-screen agent redraws mostly the same rows (its spinner line
// changes, its transcript scrolls), so a screen costs little more than
// what changed on it, and a search reads each distinct row once and a
// few operations a screen. The history is bounded: once the rows' text,
// the screens' row numbers and a fixed overhead per screen and per row
// pass the limit, the oldest screens are dropped (and rows no held screen
// shows with them).
//
// The emulator records into it (see [Emulator.RecordScreen]); a
// [Terminal] records each screen its program settles on. All methods are
// safe for concurrent use; the zero value is not usable (an emulator
// makes its own, [Emulator.ScreenHistory]).
type ScreenHistory struct {
	mu    sync.Mutex
	limit int
	// entries are the held screens, oldest first, after ghosts dropped
	// ones: those are kept (their rows released) until the oldest held
	// screen is a key screen, as the screens after them are encoded
	// from them. entries[0] is a key screen; entries[ghosts+i] is
	// screen nextSeq-held+i.
	entries []screenEntry
	ghosts  int
	// ghostIDs are the row numbers of the newest ghost (nil without
	// ghosts), and newestIDs those of the newest screen.
	ghostIDs, newestIDs []uint32
	// ids holds the entries' row numbers back to back; it is only
	// appended to (a new arena replaces it when it is full, or half of
	// it belongs to dropped screens), so a slice of it taken under the
	// lock stays valid. idsDead counts the bytes of dropped screens.
	ids     []byte
	idsDead int
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
	return &ScreenHistory{limit: limit, nextSeq: 1}
}

// heldLocked reports how many screens are held.
func (h *ScreenHistory) heldLocked() int { return len(h.entries) - h.ghosts }

// firstSeqLocked returns the number of the oldest held screen.
func (h *ScreenHistory) firstSeqLocked() uint64 { return h.nextSeq - uint64(h.heldLocked()) }

// findLocked returns the index in entries of the held screen showing
// text, whose hash is sum, or -1. It looks newest first (a screen shown
// again was mostly shown lately); a scan of the hashes costs less than a
// map's memory, and a screen is added a few times a second at most.
func (h *ScreenHistory) findLocked(text []byte, sum uint64) int {
	rs := h.rows.snapshot()
	for i := len(h.entries) - 1; i >= h.ghosts; i-- {
		if h.entries[i].hash != uint32(sum) {
			continue
		}
		same := false
		walkScreens(h.entries, h.ids, i, func(_ int, rows []uint32) bool {
			same = showsText(rows, rs, text)
			return false
		})
		if same {
			return i
		}
	}
	return -1
}

// Limit reports the bound in bytes.
func (h *ScreenHistory) Limit() int { return h.limit }

// Bytes reports the memory the history counts against the limit: the
// capacity of its row text (with rows no screen shows any more, until
// they are compacted away) and of its screens' row numbers (with those
// of dropped screens, until a new arena leaves them out), and each row's
// and each screen's overhead.
func (h *ScreenHistory) Bytes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// Len reports how many screens are held.
func (h *ScreenHistory) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.heldLocked()
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
	if i := h.findLocked(text, sum); i >= 0 {
		e := &h.entries[i]
		e.last = now.UnixNano()
		e.seen++
		return false
	}
	n := bytes.Count(text, []byte{'\n'}) + 1
	if len(text)+1+n*(rowIDMax+rowOverhead+8)+screenOverhead > h.limit {
		return false // a screen larger than the whole bound is not kept
	}
	if len(h.rows.text)+len(text)+1 > cap(h.rows.text) {
		// Room for every row being new, and some more: as much as the
		// bound leaves, once the oldest screens made room for slack (so
		// that a history at its bound does not compact at every screen).
		// The new screen's other costs (at most): its rows' overhead,
		// its entry, a new ids arena for its row numbers, and its numbers
		// decoded.
		screen := n*(rowOverhead+8) + screenOverhead + max(0, idsRoom(len(h.ids)-h.idsDead+n*rowIDMax)-cap(h.ids))
		for {
			need := len(h.rows.text) - h.rows.dead + len(text) + 1
			room := h.roomCompactedLocked() - screen - need
			if h.heldLocked() == 0 || room >= min(slack(need, need), h.limit/16) {
				h.compactLocked(need + slack(need, room))
				break
			}
			h.dropOldestLocked()
		}
	}
	recent := h.recentRowsLocked()
	ids := make([]uint32, 0, n)
	for row := range bytes.SplitSeq(text, []byte{'\n'}) {
		ids = append(ids, h.rows.intern(row, recent))
	}
	h.appendEntryLocked(ids, screenEntry{first: now.UnixNano(), last: now.UnixNano(), seen: 1, gen: gen, hash: uint32(sum)})
	h.nextSeq++
	h.bytes = h.countLocked()
	for h.bytes > h.limit && h.heldLocked() > 0 {
		h.dropOldestLocked()
		// Compact the rows once that alone brings the history inside the
		// bound with a sixteenth of it to spare: the next screens' rows
		// go there, so compactions (which copy every held row) come once
		// every limit/16 bytes of new rows, not at every screen.
		if over := h.bytes - h.limit + h.limit/16; h.rows.dead > 0 && h.rows.dead >= over {
			live := len(h.rows.text) - h.rows.dead
			h.compactLocked(live + slack(live, h.roomLocked()-live))
			h.bytes = h.countLocked()
		}
	}
	return true
}

// recentRowsLocked returns the rows the newest recentScreens screens show,
// by the hash of their text (each id plus one).
func (h *ScreenHistory) recentRowsLocked() map[uint64]uint32 {
	rs := h.rows.snapshot()
	m := map[uint64]uint32{}
	if h.heldLocked() == 0 {
		return m
	}
	walkScreens(h.entries, h.ids, max(h.ghosts, len(h.entries)-recentScreens), func(_ int, rows []uint32) bool {
		for _, id := range rows {
			if sum := mapHash(rs.row(id)); m[sum] == 0 {
				m[sum] = id + 1
			}
		}
		return true
	})
	return m
}

// appendEntryLocked appends e showing rows ids (which it keeps), encoding
// them into the ids arena (a new one when it is full): after the newest
// screen, unless keyEvery screens passed since a key screen.
func (h *ScreenHistory) appendEntryLocked(ids []uint32, e screenEntry) {
	prev := h.newestIDs
	since := 0
	for i := len(h.entries) - 1; i >= 0 && h.entries[i].kind() == rowsCopies; i-- {
		since++
	}
	if len(h.entries) == 0 || since >= keyEvery-1 {
		prev = nil
	}
	enc, kind := encodeRows(make([]byte, 0, len(ids)*rowIDMax), ids, prev)
	if len(h.ids)+len(enc) > cap(h.ids) {
		h.renewIDsLocked(len(enc))
	}
	e.off, e.enc = uint32(len(h.ids)), uint32(len(enc))|uint32(kind)<<encSizeBits
	h.ids = append(h.ids, enc...)
	if len(h.entries) == cap(h.entries) {
		// Grow by an eighth (append grows by a quarter or more): a
		// full history holds about its bound's worth of entries.
		h.entries = append(make([]screenEntry, 0, len(h.entries)+len(h.entries)/8+8), h.entries...)
	}
	h.entries = append(h.entries, e)
	h.newestIDs = ids
}

// renewIDsLocked lays out a new ids arena holding the entries' row
// numbers only, with room for extra bytes more and some slack, and new
// entries naming them (slices of the old ones taken earlier stay valid).
func (h *ScreenHistory) renewIDsLocked(extra int) {
	live := len(h.ids) - h.idsDead
	ids := make([]byte, 0, idsRoom(live+extra))
	entries := make([]screenEntry, len(h.entries), len(h.entries)+1)
	for i, e := range h.entries {
		enc, _ := e.rowsEnc(h.ids)
		e.off = uint32(len(ids))
		ids = append(ids, enc...)
		entries[i] = e
	}
	h.ids, h.idsDead, h.entries = ids, 0, entries
}

// idsRoom is the capacity a new ids arena holding n bytes gets: a
// quarter more, and 16 bytes (a few screens' operations).
func idsRoom(n int) int { return n + n/4 + 16 }

// countLocked returns what the history counts against its limit.
func (h *ScreenHistory) countLocked() int {
	return cap(h.rows.text) + len(h.rows.starts)*rowOverhead + len(h.entries)*screenOverhead + cap(h.ids) +
		4*(cap(h.newestIDs)+cap(h.ghostIDs))
}

// roomLocked returns how many bytes of row text the bound leaves room
// for besides everything else the history holds.
func (h *ScreenHistory) roomLocked() int {
	return h.limit - (h.countLocked() - cap(h.rows.text))
}

// roomCompactedLocked is roomLocked once the rows are compacted (the rows
// no screen shows cost nothing then, nor do ghosts).
func (h *ScreenHistory) roomCompactedLocked() int {
	return h.roomLocked() + h.rows.deadRows*rowOverhead + h.ghosts*screenOverhead + 4*cap(h.ghostIDs)
}

// slack is the spare capacity a row text holding n bytes gets: a
// sixteenth more (at least 4 KiB), within the room the bound leaves (room
// bytes past n).
func slack(n, room int) int { return max(0, min(max(4096, n/16), room)) }

// dropOldestLocked drops the oldest held screen, and the rows only it
// showed. It stays as a ghost until the oldest held screen is a key
// screen.
func (h *ScreenHistory) dropOldestLocked() {
	old := &h.entries[h.ghosts]
	prev := h.ghostIDs
	if old.kind() != rowsCopies {
		prev = nil
	}
	rows := old.rows(make([]uint32, 0, len(h.ghostIDs)), h.ids, prev)
	for _, id := range rows {
		h.rows.release(id)
	}
	h.ghostIDs = rows
	h.ghosts++
	h.dropped++
	switch {
	case h.ghosts == len(h.entries):
		h.rows.compact(nil, nil, 0, 0)
		h.ids, h.idsDead, h.entries, h.ghosts, h.ghostIDs, h.newestIDs = nil, 0, nil, 0, nil, nil
	case h.entries[h.ghosts].kind() != rowsCopies:
		for i := range h.ghosts {
			h.idsDead += h.entries[i].encSize()
		}
		h.entries, h.ghosts, h.ghostIDs = h.entries[h.ghosts:], 0, nil
		if h.idsDead > len(h.ids)-h.idsDead {
			h.renewIDsLocked(0)
		}
	}
	h.bytes = h.countLocked()
}

// compactLocked compacts the rows (see rowStore.compact) into a text of
// capacity size, and gives the held screens their rows' new numbers in
// a new ids arena and new entries (without ghosts).
func (h *ScreenHistory) compactLocked(size int) {
	ids, entries, newest := h.rows.compact(h.entries, h.ids, h.ghosts, size)
	h.ids, h.idsDead, h.entries, h.ghosts, h.ghostIDs, h.newestIDs = ids, 0, entries, 0, nil, newest
}

// snapshot returns copies of the entries (their last and seen may
// change), how many are ghosts, the number of the first held screen,
// their row numbers and the rows they show, taken under the lock:
// reading them needs no lock.
func (h *ScreenHistory) snapshot() ([]screenEntry, int, uint64, []byte, rowSnapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.entries), h.ghosts, h.firstSeqLocked(), h.ids[:len(h.ids):len(h.ids)], h.rows.snapshot()
}

// Screens calls fn for each held screen, oldest first, until fn returns
// false. The screens are read outside the history's lock, from a copy of
// its index taken at the call, so recording goes on meanwhile.
func (h *ScreenHistory) Screens(fn func(ScreenRecord) bool) {
	entries, ghosts, first, ids, rs := h.snapshot()
	if ghosts == len(entries) {
		return
	}
	walkScreens(entries, ids, ghosts, func(i int, rows []uint32) bool {
		return fn(entries[i].record(first+uint64(i-ghosts), rows, rs))
	})
}

// Screen returns the held screen seq; ok is false when it is not held
// (never recorded, or dropped).
func (h *ScreenHistory) Screen(seq uint64) (rec ScreenRecord, ok bool) {
	h.mu.Lock()
	first := h.firstSeqLocked()
	if seq < first || seq >= h.nextSeq {
		h.mu.Unlock()
		return ScreenRecord{}, false
	}
	i := h.ghosts + int(seq-first)
	e, entries := h.entries[i], h.entries // entries' fields other than last and seen do not change
	ids, rs := h.ids[:len(h.ids):len(h.ids)], h.rows.snapshot()
	h.mu.Unlock()
	walkScreens(entries, ids, i, func(_ int, rows []uint32) bool {
		rec = e.record(seq, rows, rs)
		return false
	})
	return rec, true
}

// Span reports the numbers of the oldest and newest held screens; ok is
// false when none is held.
func (h *ScreenHistory) Span() (first, last uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.heldLocked() == 0 {
		return 0, 0, false
	}
	return h.firstSeqLocked(), h.nextSeq - 1, true
}

// rowStore holds the distinct rows of the held screens: their text back
// to back, each followed by '\n', numbered in that order. Text and starts
// are only appended to (a compaction builds new ones), so a snapshot of
// them stays valid without a lock. It is guarded by its history's lock.
type rowStore struct {
	text   []byte
	starts []uint32 // starts[id]: where row id's text begins
	refs   []int32  // refs[id]: how many held screens show row id
	dead   int      // bytes of text (with the '\n') of rows no screen shows
	// deadRows counts the rows no screen shows.
	deadRows int
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

// intern returns the id of row, a row of recent (the rows of the newest
// screens by their text's hash, each id plus one) or stored anew, and
// counts one more screen showing it; a row stored anew is added to
// recent. The text must have room for it (see ScreenHistory.add): it is
// never reallocated here.
func (rs *rowStore) intern(row []byte, recent map[uint64]uint32) uint32 {
	sum := mapHash(row)
	if id := recent[sum]; id > 0 && bytes.Equal(rs.snapshot().row(id-1), row) {
		rs.refs[id-1]++
		return id - 1
	}
	id := uint32(len(rs.starts))
	rs.starts = append(rs.starts, uint32(len(rs.text)))
	rs.refs = append(rs.refs, 1)
	rs.text = append(append(rs.text, row...), '\n')
	if recent[sum] == 0 {
		recent[sum] = id + 1 // a hash collision leaves the second row out
	}
	return id
}

// release counts one screen fewer showing row id.
func (rs *rowStore) release(id uint32) {
	rs.refs[id]--
	if rs.refs[id] == 0 {
		rs.dead += len(rs.snapshot().row(id)) + 1
		rs.deadRows++
	}
}

// compact rebuilds the store with only the rows the held entries (those
// past the first ghosts, their row numbers in ids) show, in a text of
// capacity size (at least what the rows need). It returns new entries
// (the held ones), a new ids arena naming the rows by their new numbers,
// and the newest screen's numbers; the old entries and arena, which
// copies and snapshots taken earlier may hold, still name rows of their
// own snapshot.
func (rs *rowStore) compact(entries []screenEntry, ids []byte, ghosts, size int) (newIDs []byte, held []screenEntry, newest []uint32) {
	live := len(rs.text) - rs.dead
	old := rs.snapshot()
	oldRefs := rs.refs
	rows := len(old.starts) - rs.deadRows
	*rs = rowStore{
		epoch:  rs.epoch + 1,
		text:   make([]byte, 0, max(live, size)),
		starts: make([]uint32, 0, rows),
		refs:   make([]int32, 0, rows),
	}
	if ghosts >= len(entries) {
		return nil, nil, nil
	}
	const none = ^uint32(0)
	renum := make([]uint32, len(old.starts))
	for i := range renum {
		renum[i] = none
	}
	held = make([]screenEntry, 0, len(entries)-ghosts+1)
	var prev, cur []uint32
	walkScreens(entries, ids, ghosts, func(i int, oldRows []uint32) bool {
		cur = cur[:0]
		for _, id := range oldRows {
			nid := renum[id]
			if nid == none {
				nid = uint32(len(rs.starts))
				rs.starts = append(rs.starts, uint32(len(rs.text)))
				rs.refs = append(rs.refs, oldRefs[id])
				rs.text = append(append(rs.text, old.row(id)...), '\n')
				renum[id] = nid
			}
			cur = append(cur, nid)
		}
		e := entries[i]
		at := len(newIDs)
		var kind rowsKind
		if (i-ghosts)%keyEvery == 0 {
			prev = nil
		}
		newIDs, kind = encodeRows(newIDs, cur, prev)
		e.off, e.enc = uint32(at), uint32(len(newIDs)-at)|uint32(kind)<<encSizeBits
		held = append(held, e)
		prev, cur = cur, prev
		return true
	})
	// Room for more screens' numbers, as renewIDsLocked leaves.
	return append(make([]byte, 0, idsRoom(len(newIDs))), newIDs...), held, prev
}

// hitRow is a row of a screen that a search matched: where it is on the
// screen, and its number.
type hitRow struct {
	y  int
	id uint32
}

// find calls add with each row of each held screen that q matches,
// screens oldest first, until add returns false. Each distinct row is
// matched once, however many screens show it, outside the lock; then the
// screens' operations carry the matched rows of a screen over to the
// next (a run of new rows is tested against the matched rows at once).
func (h *ScreenHistory) find(q *Query, add func(Found) bool) {
	h.mu.Lock()
	// The entries' fields read here (first, off, enc) do not change
	// while they are held: no copy.
	entries, ghosts, first := h.entries, h.ghosts, h.firstSeqLocked()
	ids, rs := h.ids[:len(h.ids):len(h.ids)], h.rows.snapshot()
	h.mu.Unlock()
	// hit has a bit set for each row that matched; spans holds their
	// spans.
	hit := make([]uint64, (len(rs.starts)+63)/64)
	hits := map[uint32][]Span{}
	hitMin, hitMax := uint32(math.MaxUint32), uint32(0)
	q.scan(rs.text, rs.starts, 0, func(line int, spans []Span) bool {
		hit[line/64] |= 1 << (line % 64)
		hits[uint32(line)] = bytes2spans(spans)
		hitMin, hitMax = min(hitMin, uint32(line)), max(hitMax, uint32(line))
		return true
	})
	if len(hits) == 0 {
		return
	}
	texts := map[uint32]string{}
	var prev, cur []hitRow
	for i := range entries {
		e := &entries[i]
		enc, kind := e.rowsEnc(ids)
		cur = cur[:0]
		eachOp(enc, kind, math.MaxInt32, func(y int, copy bool, a, n uint32) bool {
			if copy {
				if len(prev) > 0 {
					// The matched rows of the screen before, rows a to a+n.
					k, _ := slices.BinarySearchFunc(prev, int(a), func(r hitRow, a int) int { return r.y - a })
					for ; k < len(prev) && prev[k].y < int(a+n); k++ {
						cur = append(cur, hitRow{y + prev[k].y - int(a), prev[k].id})
					}
				}
				return true
			}
			if a > hitMax || a+n <= hitMin || !anyBit(hit, a, n) {
				return true
			}
			for id := a; id-a < n; id++ {
				if hit[id/64]&(1<<(id%64)) != 0 {
					cur = append(cur, hitRow{y + int(id-a), id})
				}
			}
			return true
		})
		if i >= ghosts {
			for _, r := range cur {
				text, ok := texts[r.id]
				if !ok {
					text = string(rs.row(r.id))
					texts[r.id] = text
				}
				if !add(Found{Source: FoundHistory, Line: r.y, Screen: first + uint64(i-ghosts), Shown: time.Unix(0, e.first), Text: text, Spans: bytes2spans(hits[r.id])}) {
					return
				}
			}
		}
		prev, cur = cur, prev
	}
}
