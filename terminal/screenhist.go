package terminal

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/maphash"
	"io"
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

// screenKeyEvery is how often a screen is stored whole (a key screen)
// rather than as a difference from the one before: reading screen n
// decodes at most this many screens.
const screenKeyEvery = 32

// screenOverhead is what a held screen costs besides its compressed text,
// counted in the bound: its entry, twice (the slice of entries grows by
// doubling), and its place in the dedup index.
const screenOverhead = 2*int(unsafe.Sizeof(screenEntry{})) + 32

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

// screenEntry is a held screen: its text compressed, either whole (key)
// or as its difference from the previous entry's text (see compress).
type screenEntry struct {
	seq         uint64
	first, last int64 // Unix nanoseconds
	gen         uint64
	hash        uint64
	seen        int32
	key         bool
	z           []byte
}

// record returns e as a ScreenRecord with text.
func (e *screenEntry) record(text []byte) ScreenRecord {
	return ScreenRecord{
		Seq: e.seq, First: time.Unix(0, e.first), Last: time.Unix(0, e.last),
		Seen: int(e.seen), Generation: e.gen, Text: string(text),
	}
}

// ScreenHistory keeps the screens a program showed on the alternate
// screen (full-screen programs: agents' TUIs, editors, pagers), which no
// scrollback holds: every screen it settled on and the last one before it
// left. Screens are deduplicated (a screen shown again is kept once),
// compressed (each as its difference from the one before, row by row,
// a key screen whole every 32; then deflated), and bounded: once the held screens' compressed bytes
// plus a fixed overhead per screen pass the limit, the oldest are
// dropped.
//
// The emulator records into it (see [Emulator.RecordScreen]); a
// [Terminal] records each screen its program settles on. All methods are
// safe for concurrent use; the zero value is not usable (an emulator
// makes its own, [Emulator.ScreenHistory]).
type ScreenHistory struct {
	mu      sync.Mutex
	limit   int
	entries []screenEntry // oldest first; seqs are consecutive
	bytes   int
	byHash  map[uint64]uint64 // text hash → seq of the held screen
	nextSeq uint64
	dropped uint64
	// last is the newest entry's text, which the next one is stored
	// against.
	last []byte
}

var screenSeed = maphash.MakeSeed()

// mapHash is the hash screens are deduplicated by.
func mapHash(text []byte) uint64 { return maphash.Bytes(screenSeed, text) }

// newScreenHistory returns a history bounded to limit bytes (> 0).
func newScreenHistory(limit int) *ScreenHistory {
	return &ScreenHistory{limit: limit, byHash: map[uint64]uint64{}, nextSeq: 1}
}

// Limit reports the bound in bytes.
func (h *ScreenHistory) Limit() int { return h.limit }

// Bytes reports the memory the history counts against the limit: the
// held screens' compressed text, a fixed overhead each, and the newest
// screen's text (kept to store the next one against it).
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
// not, and one identical to a held screen only moves that screen's Last
// and Seen.
func (h *ScreenHistory) add(text []byte, gen uint64, now time.Time) bool {
	if len(bytes.TrimSpace(text)) == 0 {
		return false
	}
	sum := mapHash(text)
	h.mu.Lock()
	defer h.mu.Unlock()
	if seq, ok := h.byHash[sum]; ok {
		e := &h.entries[seq-h.entries[0].seq]
		e.last = now.UnixNano()
		e.seen++
		return false
	}
	key := len(h.entries) == 0 || h.nextSeq%screenKeyEvery == 0
	var dict []byte
	if !key {
		dict = h.last
	}
	z := compress(text, dict)
	if cap(z)+screenOverhead+len(text) > h.limit {
		return false // a screen larger than the whole bound is not kept
	}
	h.entries = append(h.entries, screenEntry{
		seq: h.nextSeq, first: now.UnixNano(), last: now.UnixNano(), seen: 1, gen: gen, hash: sum, key: key, z: z,
	})
	h.byHash[sum] = h.nextSeq
	h.nextSeq++
	h.bytes += cap(z) + screenOverhead - cap(h.last)
	h.last = append(h.last[:0], text...)
	h.bytes += cap(h.last)
	for h.bytes > h.limit && len(h.entries) > 0 {
		h.dropOldestLocked()
	}
	return true
}

// dropOldestLocked drops the oldest screen; the next one becomes a key
// screen if it was stored against it.
func (h *ScreenHistory) dropOldestLocked() {
	old := h.entries[0]
	if len(h.entries) > 1 && !h.entries[1].key {
		first := decompress(old.z, nil)
		second := decompress(h.entries[1].z, first)
		z := compress(second, nil)
		h.bytes += cap(z) - cap(h.entries[1].z)
		h.entries[1].z, h.entries[1].key = z, true
	}
	delete(h.byHash, old.hash)
	h.bytes -= cap(old.z) + screenOverhead
	h.entries[0] = screenEntry{}
	h.entries = h.entries[1:]
	h.dropped++
	if len(h.entries) == 0 {
		h.bytes -= cap(h.last)
		h.last = nil
	}
}

// Screens calls fn for each held screen, oldest first, until fn returns
// false. The screens are decoded outside the history's lock, from a copy
// of its index taken at the call, so recording goes on meanwhile.
func (h *ScreenHistory) Screens(fn func(ScreenRecord) bool) {
	h.mu.Lock()
	entries := make([]screenEntry, len(h.entries))
	copy(entries, h.entries)
	h.mu.Unlock()
	var prev []byte
	for _, e := range entries {
		var dict []byte
		if !e.key {
			dict = prev
		}
		text := decompress(e.z, dict)
		prev = text
		if !fn(e.record(text)) {
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
	i := int(seq - h.entries[0].seq)
	k := i
	for !h.entries[k].key {
		k--
	}
	entries := make([]screenEntry, i-k+1)
	copy(entries, h.entries[k:i+1])
	h.mu.Unlock()
	var text []byte
	for _, e := range entries {
		text = decompress(e.z, text)
	}
	return entries[len(entries)-1].record(text), true
}

// Flate writers and readers are large (a writer's tables are over a
// hundred kilobytes); they are pooled.
var (
	flateWriters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
		return w
	}}
	flateReaders = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

// compress returns text deflated, in a slice of its own exact size. With
// prev (the previous screen's text) it stores text as its difference from
// prev: each row is either a copy of a row of prev (by index) or new, and
// only the new rows' text is deflated with the row codes. Full-screen
// programs redraw mostly the same rows (an agent's spinner line changes,
// its transcript scrolls), so a screen costs little more than what
// changed on it.
func compress(text, prev []byte) []byte {
	raw := text
	if prev != nil {
		raw = diffRows(text, prev)
	}
	var buf bytes.Buffer
	w := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(w)
	w.Reset(&buf)
	_, _ = w.Write(raw)
	_ = w.Close()
	return bytes.Clone(buf.Bytes())
}

// decompress returns the text compress stored in z with the same prev.
func decompress(z, prev []byte) []byte {
	r := flateReaders.Get().(io.ReadCloser)
	defer flateReaders.Put(r)
	_ = r.(flate.Resetter).Reset(bytes.NewReader(z), nil)
	raw, err := io.ReadAll(r)
	if err != nil {
		// Only our own compress wrote z: a failure is a bug, not input.
		panic("terminal: screen history: " + err.Error())
	}
	if prev == nil {
		return raw
	}
	return patchRows(raw, prev)
}

// diffRows encodes text against prev: the row count, then per row 0 (a
// new row) or 1 + the index of the same row in prev (uvarints), then the
// new rows' text, each ended by '\n'.
func diffRows(text, prev []byte) []byte {
	index := map[string]int{}
	for i, row := range bytes.Split(prev, []byte{'\n'}) {
		if _, ok := index[string(row)]; !ok {
			index[string(row)] = i
		}
	}
	rows := bytes.Split(text, []byte{'\n'})
	out := binary.AppendUvarint(nil, uint64(len(rows)))
	var fresh []byte
	for _, row := range rows {
		if i, ok := index[string(row)]; ok {
			out = binary.AppendUvarint(out, uint64(i)+1)
			continue
		}
		out = binary.AppendUvarint(out, 0)
		fresh = append(append(fresh, row...), '\n')
	}
	return append(out, fresh...)
}

// patchRows decodes what diffRows wrote against the same prev.
func patchRows(raw, prev []byte) []byte {
	old := bytes.Split(prev, []byte{'\n'})
	n, k := binary.Uvarint(raw)
	raw = raw[k:]
	codes := make([]uint64, n)
	for i := range codes {
		codes[i], k = binary.Uvarint(raw)
		raw = raw[k:]
	}
	var out []byte
	for i, c := range codes {
		if i > 0 {
			out = append(out, '\n')
		}
		if c > 0 {
			out = append(out, old[c-1]...)
			continue
		}
		j := bytes.IndexByte(raw, '\n')
		out = append(out, raw[:j]...)
		raw = raw[j+1:]
	}
	return out
}
