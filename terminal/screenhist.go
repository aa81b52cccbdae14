package terminal

import (
	"bytes"
	"cmp"
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
// in the bound: its entry, twice (the slice of entries is copied as it
// grows, and a search may hold the old one). Its bytes (its meta and
// its row numbers: see encodeRows, at most rowIDMax bytes a row) cost
// what they take, in an arena of them counted whole, and the numbers of
// the newest screen are kept decoded.
const screenOverhead = 2 * int(unsafe.Sizeof(screenEntry{}))

// rowIDMax is the most bytes a row's number takes in encodeRows'
// encoding.
const rowIDMax = 4

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

// screenEntry is a held screen: where its bytes are in the history's
// ids (see screenMeta: when it was first recorded, then its row numbers
// encoded by encodeRows, after the screen before unless a key screen),
// and the hash of its text. Its number is its place among the held
// screens (they are numbered consecutively). An entry never changes once
// in the history's entries (a rebase or a new ids arena gives the
// history new entries), so entries may be read without the lock from a
// slice of them taken under it. When a screen was shown again is kept
// beside (ScreenHistory.again): most screens are shown once.
type screenEntry struct {
	off  uint32 // where its bytes start in ids
	enc  uint32 // their size (low 30 bits) and its rows' rowsKind (high 2)
	hash uint32 // of the screen's text (its low bits): the dedup key
}

const encSizeBits = 30

// screenMeta is what a screen's bytes hold before its row numbers: when
// it was first recorded (Unix nanoseconds) and the emulator's output
// generation then, each the zig-zag uvarint of its difference from the
// screen before's (a key screen's, from zero).
type screenMeta struct {
	first int64
	gen   uint64
}

// appendMeta appends m's encoding, after prev (the screen before's, or
// zero for a key screen), to dst.
func appendMeta(dst []byte, m, prev screenMeta) []byte {
	dst = binary.AppendUvarint(dst, zigzag(m.first-prev.first))
	return binary.AppendUvarint(dst, zigzag(int64(m.gen-prev.gen)))
}

// parts returns e's meta (prev: the screen before's, unless e is a key
// screen) and its row numbers' encoding, from the history's ids.
func (e *screenEntry) parts(ids []byte, prev screenMeta) (screenMeta, []byte, rowsKind) {
	b := ids[e.off : e.off+uint32(e.encSize())]
	kind := e.kind()
	if kind != rowsCopies {
		prev = screenMeta{}
	}
	df, n := binary.Uvarint(b)
	dg, k := binary.Uvarint(b[n:])
	return screenMeta{prev.first + unzigzag(df), prev.gen + uint64(unzigzag(dg))}, b[n+k:], kind
}

// slot returns e's bytes in ids.
func (e *screenEntry) slot(ids []byte) []byte { return ids[e.off : e.off+uint32(e.encSize())] }

// encSize reports the size of e's bytes.
func (e *screenEntry) encSize() int { return int(e.enc & (1<<encSizeBits - 1)) }

// kind reports how e's row numbers are encoded.
func (e *screenEntry) kind() rowsKind { return rowsKind(e.enc >> encSizeBits) }

// rows appends to dst e's row numbers (prev: the screen before's, unless
// e is a key screen).
func (e *screenEntry) rows(dst []uint32, ids []byte, prev []uint32) []uint32 {
	_, enc, kind := e.parts(ids, screenMeta{})
	dst, _ = decodeRows(dst, enc, kind, prev, math.MaxInt)
	return dst
}

// walkScreens calls fn with the meta and row numbers of entries[i] and
// of each screen after it, until fn returns false; they are decoded from
// the key screen at or before i (entries[0] is one). fn must not keep
// rows.
func walkScreens(entries []screenEntry, ids []byte, i int, fn func(i int, m screenMeta, rows []uint32) bool) {
	j := i
	for j > 0 && entries[j].kind() == rowsCopies {
		j--
	}
	var prev, cur []uint32
	var m screenMeta
	for ; j < len(entries); j++ {
		var enc []byte
		var kind rowsKind
		m, enc, kind = entries[j].parts(ids, m)
		cur, _ = decodeRows(cur[:0], enc, kind, prev, math.MaxInt)
		if j >= i && !fn(j, m, cur) {
			return
		}
		prev, cur = cur, prev
	}
}

// screenAgain is when a screen shown again (seen times) was last shown.
type screenAgain struct {
	seq  uint64
	last int64 // Unix nanoseconds
	seen int32
}

// againOf returns when screen seq was last shown and how many times,
// from again (sorted by seq); a screen not in it was shown once, at
// first.
func againOf(again []screenAgain, seq uint64, first int64) (last int64, seen int32) {
	if k, ok := slices.BinarySearchFunc(again, seq, cmpAgain); ok {
		return again[k].last, again[k].seen
	}
	return first, 1
}

func cmpAgain(a screenAgain, seq uint64) int { return cmp.Compare(a.seq, seq) }

// record returns screen seq (m, showing rows; again: the history's) as
// a ScreenRecord, its text read with rd.
func record(seq uint64, m screenMeta, rows []uint32, rd *rowReader, again []screenAgain) ScreenRecord {
	var text []byte
	for y, id := range rows {
		if y > 0 {
			text = append(text, '\n')
		}
		text = append(text, rd.row(id)...)
	}
	last, seen := againOf(again, seq, m.first)
	return ScreenRecord{
		Seq: seq, First: time.Unix(0, m.first), Last: time.Unix(0, last),
		Seen: int(seen), Generation: m.gen, Text: string(text),
	}
}

// showsText reports whether rows of rs make text.
func showsText(rows []uint32, rd *rowReader, text []byte) bool {
	for y, id := range rows {
		if y > 0 {
			if len(text) == 0 || text[0] != '\n' {
				return false
			}
			text = text[1:]
		}
		row := rd.row(id)
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
// few operations a screen. The rows' text is deflated in blocks of about
// 8 KiB, each with a trigram filter, so a search inflates only the
// blocks that may hold its literal (see rowblocks.go). The history is
// bounded: once the rows' blocks, the screens' row numbers and a fixed
// overhead per screen pass the limit, the oldest screens are dropped
// (and a block once no held screen shows its rows).
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
	// newestMeta is the newest screen's meta.
	newestMeta screenMeta
	// again holds, by seq, when each held screen shown more than once
	// was last shown (snapshots copy it).
	again []screenAgain
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
	// disk is the journal every new screen is also written to (nil:
	// memory only); see OpenDisk.
	disk *screenDisk
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
	var rd *rowReader
	for i := len(h.entries) - 1; i >= h.ghosts; i-- {
		if h.entries[i].hash != uint32(sum) {
			continue
		}
		if rd == nil {
			rd = h.rows.snapshot().reader()
		}
		same := false
		walkScreens(h.entries, h.ids, i, func(_ int, _ screenMeta, rows []uint32) bool {
			same = showsText(rows, rd, text)
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

// Bytes reports the memory the history counts against the limit: its
// rows' text (deflated in sealed blocks, each freed once no held screen
// shows its rows; the open block's capacity), the blocks' filters and
// headers, its screens' row numbers (with those of dropped screens,
// until a new arena leaves them out), and each screen's overhead.
func (h *ScreenHistory) Bytes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bytes
}

// Len reports how many screens are held: in memory, and those only the
// journal on disk holds (see OpenDisk).
func (h *ScreenHistory) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.heldLocked()
	if h.disk != nil {
		n += h.disk.count(h.firstSeqLocked())
	}
	return n
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
		seq := h.firstSeqLocked() + uint64(i-h.ghosts)
		if k, ok := slices.BinarySearchFunc(h.again, seq, cmpAgain); ok {
			h.again[k].last = now.UnixNano()
			h.again[k].seen++
		} else {
			h.again = slices.Insert(h.again, k, screenAgain{seq, now.UnixNano(), 2})
		}
		h.bytes = h.countLocked()
		for h.bytes > h.limit && h.heldLocked() > 0 {
			h.dropOldestLocked()
		}
		return false
	}
	n := bytes.Count(text, []byte{'\n'}) + 1
	if len(text)+1+n*(rowIDMax+4)+screenOverhead > h.limit {
		return false // a screen larger than the whole bound is not kept
	}
	if h.rows.blockSize == 0 {
		h.rows.blockSize = blockSizeFor(h.limit)
	}
	rd := h.rows.snapshot().reader()
	recent := h.recentRowsLocked(rd, h.rows.reuseFrom(max(2*h.rows.blockSize, 2*len(text))))
	ids := make([]uint32, 0, n)
	for row := range bytes.SplitSeq(text, []byte{'\n'}) {
		ids = append(ids, h.rows.intern(row, recent, rd))
	}
	h.appendEntryLocked(ids, screenMeta{now.UnixNano(), gen}, uint32(sum))
	if h.disk != nil {
		h.disk.add(diskScreen{seq: h.nextSeq, first: now.UnixNano(), last: now.UnixNano(), seen: 1, gen: gen, text: text})
	}
	h.nextSeq++
	if h.rows.next() > rowRebaseAt && h.rows.base() > rowRebaseAt/2 {
		h.rebaseLocked()
	}
	h.bytes = h.countLocked()
	for h.bytes > h.limit && h.heldLocked() > 0 {
		h.dropOldestLocked()
	}
	return true
}

// recentRowsLocked returns the rows from row from on that the newest
// recentScreens screens show, by the hash of their text (each id plus
// one), read with rd.
func (h *ScreenHistory) recentRowsLocked(rd *rowReader, from uint32) map[uint64]uint32 {
	m := map[uint64]uint32{}
	if h.heldLocked() == 0 {
		return m
	}
	walkScreens(h.entries, h.ids, max(h.ghosts, len(h.entries)-recentScreens), func(_ int, _ screenMeta, rows []uint32) bool {
		for _, id := range rows {
			if id < from {
				continue
			}
			if sum := mapHash(rd.row(id)); m[sum] == 0 {
				m[sum] = id + 1
			}
		}
		return true
	})
	return m
}

// appendEntryLocked appends a screen (m, hash) showing rows ids (which it
// keeps), encoding it into the ids arena (a new one when it is full):
// after the newest screen, unless keyEvery screens passed since a key
// screen.
func (h *ScreenHistory) appendEntryLocked(ids []uint32, m screenMeta, hash uint32) {
	prev := h.newestIDs
	since := 0
	for i := len(h.entries) - 1; i >= 0 && h.entries[i].kind() == rowsCopies; i-- {
		since++
	}
	if len(h.entries) == 0 || since >= keyEvery-1 {
		prev = nil
	}
	enc, kind := encodeRows(make([]byte, 0, len(ids)*rowIDMax), ids, prev)
	pm := h.newestMeta
	if kind != rowsCopies {
		pm = screenMeta{}
	}
	slot := append(appendMeta(make([]byte, 0, 2*binary.MaxVarintLen64+len(enc)), m, pm), enc...)
	if len(h.ids)+len(slot) > cap(h.ids) {
		h.renewIDsLocked(len(slot))
	}
	e := screenEntry{off: uint32(len(h.ids)), enc: uint32(len(slot)) | uint32(kind)<<encSizeBits, hash: hash}
	h.ids = append(h.ids, slot...)
	if len(h.entries) == cap(h.entries) {
		// Grow by an eighth (append grows by a quarter or more): a
		// full history holds about its bound's worth of entries.
		h.entries = append(make([]screenEntry, 0, len(h.entries)+len(h.entries)/8+8), h.entries...)
	}
	h.entries = append(h.entries, e)
	h.newestIDs, h.newestMeta = ids, m
}

// renewIDsLocked lays out a new ids arena holding the entries' row
// numbers only, with room for extra bytes more and some slack, and new
// entries naming them (slices of the old ones taken earlier stay valid).
func (h *ScreenHistory) renewIDsLocked(extra int) {
	live := len(h.ids) - h.idsDead
	ids := make([]byte, 0, idsRoom(live+extra))
	entries := make([]screenEntry, len(h.entries), len(h.entries)+1)
	for i, e := range h.entries {
		slot := e.slot(h.ids)
		e.off = uint32(len(ids))
		ids = append(ids, slot...)
		entries[i] = e
	}
	h.ids, h.idsDead, h.entries = ids, 0, entries
}

// idsRoom is the capacity a new ids arena holding n bytes gets: an
// eighth more, and 16 bytes (a few screens' operations).
func idsRoom(n int) int { return n + n/8 + 16 }

// countLocked returns what the history counts against its limit.
func (h *ScreenHistory) countLocked() int {
	return h.rows.bytes() + len(h.entries)*screenOverhead + cap(h.ids) + 4*(cap(h.newestIDs)+cap(h.ghostIDs)) +
		cap(h.again)*int(unsafe.Sizeof(screenAgain{}))
}

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
		h.rows = rowStore{blockSize: h.rows.blockSize, freed: h.rows.freed + uint64(len(h.rows.blocks))}
		h.ids, h.idsDead, h.entries, h.ghosts, h.ghostIDs, h.newestIDs = nil, 0, nil, 0, nil, nil
		h.newestMeta, h.again = screenMeta{}, nil
	case h.entries[h.ghosts].kind() != rowsCopies:
		for i := range h.ghosts {
			h.idsDead += h.entries[i].encSize()
		}
		h.entries, h.ghosts, h.ghostIDs = h.entries[h.ghosts:], 0, nil
		if h.idsDead > len(h.ids)-h.idsDead {
			h.renewIDsLocked(0)
		}
	}
	if first := h.firstSeqLocked(); len(h.again) > 0 && h.again[0].seq < first {
		k := 0
		for k < len(h.again) && h.again[k].seq < first {
			k++
		}
		h.again = slices.Clip(slices.Clone(h.again[k:])) // not in place: snapshots hold it
	}
	h.bytes = h.countLocked()
}

// rebaseLocked renumbers the rows from 0 (rows.base becomes 0), and
// gives the held screens their rows' new numbers in a new ids arena and
// new entries (without ghosts; the oldest held screen a key screen).
func (h *ScreenHistory) rebaseLocked() {
	base := h.rows.base()
	held := make([]screenEntry, 0, len(h.entries)-h.ghosts+1)
	var ids []byte
	var prev, cur []uint32
	var pm screenMeta
	walkScreens(h.entries, h.ids, h.ghosts, func(i int, m screenMeta, rows []uint32) bool {
		cur = cur[:0]
		for _, id := range rows {
			cur = append(cur, id-base)
		}
		if (i-h.ghosts)%keyEvery == 0 {
			prev = nil
		}
		enc, kind := encodeRows(nil, cur, prev)
		if kind != rowsCopies {
			pm = screenMeta{}
		}
		at := len(ids)
		ids = append(appendMeta(ids, m, pm), enc...)
		held = append(held, screenEntry{off: uint32(at), enc: uint32(len(ids)-at) | uint32(kind)<<encSizeBits, hash: h.entries[i].hash})
		prev, cur, pm = cur, prev, m
		return true
	})
	for i := range h.rows.blocks {
		h.rows.blocks[i].first -= base
	}
	h.rows.openFirst -= base
	h.ids = append(make([]byte, 0, idsRoom(len(ids))), ids...)
	h.idsDead, h.entries, h.ghosts, h.ghostIDs, h.newestIDs = 0, held, 0, nil, prev
}

// snapshot returns the entries (they never change), how many are
// ghosts, the number of the first held screen, their bytes, the rows
// they show and when screens were shown again, taken under the lock:
// reading them needs no lock.
func (h *ScreenHistory) snapshot() ([]screenEntry, int, uint64, []byte, rowSnapshot, []screenAgain, *screenDisk) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.entries[:len(h.entries):len(h.entries)], h.ghosts, h.firstSeqLocked(), h.ids[:len(h.ids):len(h.ids)], h.rows.snapshot(), slices.Clone(h.again), h.disk
}

// Screens calls fn for each held screen, oldest first, until fn returns
// false: first those only the journal on disk holds, then those in
// memory. The screens are read outside the history's lock, from a copy
// of its index taken at the call, so recording goes on meanwhile; while
// fn is given a screen read from disk the journal's lock is held, so fn
// must not call the history's methods.
func (h *ScreenHistory) Screens(fn func(ScreenRecord) bool) {
	entries, ghosts, first, ids, rs, again, disk := h.snapshot()
	if disk != nil {
		more := true
		disk.screens(0, first, nil, func(s diskScreen) bool {
			more = fn(s.record())
			return more
		})
		if !more {
			return
		}
	}
	if ghosts == len(entries) {
		return
	}
	rd := rs.reader()
	walkScreens(entries, ids, ghosts, func(i int, m screenMeta, rows []uint32) bool {
		return fn(record(first+uint64(i-ghosts), m, rows, rd, again))
	})
}

// Screen returns the held screen seq (in memory, or only on disk); ok is
// false when it is not held (never recorded, or dropped).
func (h *ScreenHistory) Screen(seq uint64) (rec ScreenRecord, ok bool) {
	entries, ghosts, first, ids, rs, again, disk := h.snapshot()
	if seq < first && disk != nil {
		disk.screens(seq, seq+1, nil, func(s diskScreen) bool {
			rec, ok = s.record(), true
			return false
		})
		return rec, ok
	}
	if seq < first || seq >= first+uint64(len(entries)-ghosts) {
		return ScreenRecord{}, false
	}
	walkScreens(entries, ids, ghosts+int(seq-first), func(_ int, m screenMeta, rows []uint32) bool {
		rec = record(seq, m, rows, rs.reader(), again)
		return false
	})
	return rec, true
}

// Span reports the numbers of the oldest and newest held screens; ok is
// false when none is held.
func (h *ScreenHistory) Span() (first, last uint64, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.disk != nil {
		if first, _, ok := h.disk.span(); ok && h.disk.count(h.firstSeqLocked()) > 0 {
			return first, h.nextSeq - 1, true
		}
	}
	if h.heldLocked() == 0 {
		return 0, 0, false
	}
	return h.firstSeqLocked(), h.nextSeq - 1, true
}

// rowHit is a row a search matched: its text and the spans matched.
type rowHit struct {
	text  []byte
	spans []Span
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
	// Entries never change: no copy.
	entries, ghosts, first := h.entries, h.ghosts, h.firstSeqLocked()
	ids, rs, disk := h.ids[:len(h.ids):len(h.ids)], h.rows.snapshot(), h.disk
	h.mu.Unlock()
	if disk != nil && !findDisk(disk, q, first, add) {
		return
	}
	// hit has a bit set for each row that matched (bit id-base); hits
	// holds their text and spans. Only the blocks whose filter may hold
	// the query's literal are inflated.
	base := rs.base()
	hit := make([]uint64, (rs.next()-base+63)/64)
	hits := map[uint32]rowHit{}
	hitMin, hitMax := uint32(math.MaxUint32), uint32(0)
	scan := func(text []byte, starts []uint32, first uint32) (any bool) {
		q.scan(text, starts, 0, func(line int, spans []Span) bool {
			id := first + uint32(line)
			hit[(id-base)/64] |= 1 << ((id - base) % 64)
			hits[id] = rowHit{lineText(text, starts, line), bytes2spans(spans)}
			hitMin, hitMax = min(hitMin, id), max(hitMax, id)
			any = true
			return true
		})
		return any
	}
	grams := q.trigrams()
	var text []byte
	var starts []uint32
	z := searchInflaters.Get().(*inflater)
	defer searchInflaters.Put(z)
	for i := range rs.blocks {
		b := &rs.blocks[i]
		if b.z == nil || (grams != nil && !mayHold(b.filter, grams)) {
			continue
		}
		text, starts = z.rows(text[:0], starts[:0], b)
		if scan(text, starts, b.first) {
			text, starts = nil, nil // the hits keep it
		}
	}
	scan(rs.open, rs.starts, rs.openFirst)
	if len(hits) == 0 {
		return
	}
	texts := map[uint32]string{}
	var prev, cur []hitRow
	var m screenMeta
	for i := range entries {
		var enc []byte
		var kind rowsKind
		m, enc, kind = entries[i].parts(ids, m)
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
			if a > hitMax || a+n <= hitMin {
				return true
			}
			lo, hi := max(a, hitMin), min(a+n-1, hitMax) // hitMin ≥ base
			if !anyBit(hit, lo-base, hi-lo+1) {
				return true
			}
			for id := lo; id <= hi; id++ {
				if hit[(id-base)/64]&(1<<((id-base)%64)) != 0 {
					cur = append(cur, hitRow{y + int(id-a), id})
				}
			}
			return true
		})
		if i >= ghosts {
			for _, r := range cur {
				text, ok := texts[r.id]
				if !ok {
					text = string(hits[r.id].text)
					texts[r.id] = text
				}
				if !add(Found{Source: FoundHistory, Line: r.y, Screen: first + uint64(i-ghosts), Shown: time.Unix(0, m.first), Text: text, Spans: bytes2spans(hits[r.id].spans)}) {
					return
				}
			}
		}
		prev, cur = cur, prev
	}
}
