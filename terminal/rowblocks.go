package terminal

import (
	"bytes"
	"compress/flate"
	"io"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// This file holds the text of the rows a ScreenHistory's screens show,
// compressed in blocks.
//
// Rows are numbered in the order they are first stored, and stored back
// to back, each followed by '\n', in the open block. Once the open block
// holds blockSize bytes it is sealed: its text is deflated (an agent's
// transcript shrinks about 4×) and a trigram filter of it is kept beside
// it, so that a search inflates only the blocks that may hold its
// literal. A sealed block is freed whole once no held screen shows any of
// its rows; to let old blocks go, a row is deduplicated only against the
// rows of the newest blocks that hold twice the new screen's text and at
// least two blocks' worth (a row every screen shows, such as an input
// box, is stored again once that much new text was stored). So
// rows are never moved nor renumbered, except when their numbers pass
// rowRebaseAt (see ScreenHistory.rebaseLocked).

// rowBlockMax is the most row text bytes a block holds uncompressed (a
// single longer row makes a block of its own); smaller bounds get smaller
// blocks (see blockSizeFor).
const rowBlockMax = 8 << 10

// blockSizeFor returns the size blocks get in a history bounded to limit
// bytes: a sixteenth of it, between 256 bytes and rowBlockMax.
func blockSizeFor(limit int) int { return min(rowBlockMax, max(256, limit/16)) }

// rowRebaseAt is the row number past which a history renumbers its rows
// from 0, once the oldest it holds is past half of it (a variable for
// tests).
var rowRebaseAt uint32 = 1 << 30

// rowBlock is a sealed block of rows: rows first to first+rows-1.
type rowBlock struct {
	first, rows uint32
	raw         uint32 // bytes of its text inflated
	refs        int32  // rows of held screens in it (a row counted once per screen showing it)
	z           []byte // its text deflated; nil once freed
	filter      []byte // its trigram filter (see trigramFilter)
}

// rowBlockOverhead is what a block costs besides its deflated text and
// filter: its header, twice (the slice of headers grows by doubling).
const rowBlockOverhead = 2 * int(unsafe.Sizeof(rowBlock{}))

// rowStore holds the distinct rows of the held screens. Sealed blocks'
// text and filters, and the open block's text and starts, are only
// appended to or replaced (never written in place), so a snapshot stays
// valid without a lock. It is guarded by its history's lock.
type rowStore struct {
	blockSize int
	// blocks are the sealed blocks, oldest first, from the oldest one a
	// held screen shows.
	blocks []rowBlock
	// open holds the open block's rows' text, each followed by '\n'
	// (grown by append: a block half full costs half a block); starts[i]
	// is where row openFirst+i begins.
	open      []byte
	starts    []uint32
	openFirst uint32
	openRefs  int32
	sealed    int // bytes of the blocks' deflated text and filters
	// freed counts the blocks freed.
	freed uint64
}

// next returns the number the next row stored gets.
func (rs *rowStore) next() uint32 { return rs.openFirst + uint32(len(rs.starts)) }

// base returns the number of the oldest row held.
func (rs *rowStore) base() uint32 {
	if len(rs.blocks) > 0 {
		return rs.blocks[0].first
	}
	return rs.openFirst
}

// reuseFrom returns the oldest row number a new screen's row may be
// deduplicated against: the first of the newest blocks (the open one
// included) that together hold at least w bytes of text. Rows stored
// before are stored again if shown again, so that a row some screen
// shows for ever (an input box, a header) does not keep its old block
// alive: blocks are freed about as the screens that stored their rows
// are dropped.
func (rs *rowStore) reuseFrom(w int) uint32 {
	from, n := rs.openFirst, len(rs.open)
	for i := len(rs.blocks) - 1; i >= 0 && n < w && rs.blocks[i].z != nil; i-- {
		from, n = rs.blocks[i].first, n+int(rs.blocks[i].raw)
	}
	return from
}

// bytes returns what the store counts against its history's bound.
func (rs *rowStore) bytes() int {
	return rs.sealed + cap(rs.blocks)*rowBlockOverhead/2 + cap(rs.open) + 4*cap(rs.starts)
}

// blockOf returns the index in blocks of the block holding row id (which
// is before the open block and not before base).
func blockOf(blocks []rowBlock, id uint32) int {
	i, _ := slices.BinarySearchFunc(blocks, id, func(b rowBlock, id uint32) int {
		switch {
		case id < b.first:
			return 1
		case id >= b.first+b.rows:
			return -1
		}
		return 0
	})
	return i
}

// intern returns the number of row, a row of recent (the rows of the
// newest screens from reuseFrom on, by their text's hash, each number
// plus one) or stored anew, and counts one more screen showing it; a row
// stored anew is added to recent. rd reads rows held before the call.
func (rs *rowStore) intern(row []byte, recent map[uint64]uint32, rd *rowReader) uint32 {
	sum := mapHash(row)
	if id := recent[sum]; id > 0 {
		id--
		if text, ok := rs.openRow(id); ok && bytes.Equal(text, row) {
			rs.openRefs++
			return id
		}
		if id < rs.openFirst && id < rd.snap.next() && bytes.Equal(rd.row(id), row) {
			rs.blocks[blockOf(rs.blocks, id)].refs++
			return id
		}
	}
	if len(rs.open) > 0 && len(rs.open)+len(row)+1 > rs.blockSize {
		rs.seal()
	}
	id := rs.next()
	rs.starts = append(rs.starts, uint32(len(rs.open)))
	rs.open = append(append(rs.open, row...), '\n')
	rs.openRefs++
	if recent[sum] == 0 {
		recent[sum] = id + 1 // a hash collision leaves the second row out
	}
	return id
}

// openRow returns row id's text if it is in the open block.
func (rs *rowStore) openRow(id uint32) ([]byte, bool) {
	if id < rs.openFirst || id >= rs.next() {
		return nil, false
	}
	return lineText(rs.open, rs.starts, int(id-rs.openFirst)), true
}

// seal deflates the open block into a sealed one and opens a new one.
func (rs *rowStore) seal() {
	b := rowBlock{
		first: rs.openFirst, rows: uint32(len(rs.starts)), raw: uint32(len(rs.open)), refs: rs.openRefs,
		z: deflate(rs.open), filter: trigramFilter(rs.open),
	}
	if len(rs.blocks) == cap(rs.blocks) {
		rs.blocks = append(make([]rowBlock, 0, 2*len(rs.blocks)+4), rs.blocks...)
	}
	rs.blocks = append(rs.blocks, b)
	rs.sealed += cap(b.z) + cap(b.filter)
	rs.openFirst = rs.next()
	rs.open, rs.starts, rs.openRefs = nil, nil, 0
}

// release counts one screen fewer showing row id, freeing its block once
// no held screen shows any of its rows.
func (rs *rowStore) release(id uint32) {
	if id >= rs.openFirst {
		rs.openRefs--
		return
	}
	i := blockOf(rs.blocks, id)
	b := &rs.blocks[i]
	if b.refs--; b.refs > 0 {
		return
	}
	rs.sealed -= cap(b.z) + cap(b.filter)
	b.z, b.filter = nil, nil
	rs.freed++
	k := 0
	for k < len(rs.blocks) && rs.blocks[k].z == nil {
		k++
	}
	if k > 0 {
		// The headers slice is replaced, not shifted in place: snapshots
		// hold the old one.
		rs.blocks = append(make([]rowBlock, 0, max(4, len(rs.blocks)-k+len(rs.blocks)/4)), rs.blocks[k:]...)
	}
}

// rowSnapshot is a rowStore's rows at one moment; reading it needs no
// lock.
type rowSnapshot struct {
	blocks    []rowBlock
	open      []byte
	starts    []uint32
	openFirst uint32
}

func (rs *rowStore) snapshot() rowSnapshot {
	return rowSnapshot{
		blocks: slices.Clone(rs.blocks), open: rs.open[:len(rs.open):len(rs.open)],
		starts: rs.starts[:len(rs.starts):len(rs.starts)], openFirst: rs.openFirst,
	}
}

// base and next are rowStore's, at the snapshot.
func (s *rowSnapshot) base() uint32 {
	if len(s.blocks) > 0 {
		return s.blocks[0].first
	}
	return s.openFirst
}

func (s *rowSnapshot) next() uint32 { return s.openFirst + uint32(len(s.starts)) }

// rowReader reads rows of a snapshot, inflating their blocks (the few
// read last are kept). It is not safe for concurrent use.
type rowReader struct {
	snap  rowSnapshot
	cache [4]inflatedBlock
	turn  int
	z     inflater
}

// inflatedBlock is a sealed block's text inflated: block i of the
// snapshot (-1: none).
type inflatedBlock struct {
	i      int
	text   []byte
	starts []uint32
}

func (s rowSnapshot) reader() *rowReader {
	rd := &rowReader{snap: s}
	for i := range rd.cache {
		rd.cache[i].i = -1
	}
	return rd
}

// row returns row id's text, without its '\n'; the row must be held
// (shown by a screen held at the snapshot). It is valid until the
// reader's next call.
func (rd *rowReader) row(id uint32) []byte {
	s := &rd.snap
	if id >= s.openFirst {
		return lineText(s.open, s.starts, int(id-s.openFirst))
	}
	i := blockOf(s.blocks, id)
	c := rd.block(i)
	return lineText(c.text, c.starts, int(id-s.blocks[i].first))
}

// block returns block i inflated.
func (rd *rowReader) block(i int) *inflatedBlock {
	for k := range rd.cache {
		if rd.cache[k].i == i {
			return &rd.cache[k]
		}
	}
	c := &rd.cache[rd.turn]
	rd.turn = (rd.turn + 1) % len(rd.cache)
	c.i = -1
	c.text, c.starts = rd.z.rows(c.text[:0], c.starts[:0], &rd.snap.blocks[i])
	c.i = i
	return c
}

// deflate returns text compressed, in a slice of its own size.
func deflate(text []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.DefaultCompression) // never fails for a valid level
	w.Write(text)
	w.Close()
	return bytes.Clone(buf.Bytes())
}

// inflater inflates blocks, one flate reader reused for each; the zero
// value is ready.
type inflater struct {
	r io.ReadCloser
}

// searchInflaters are the inflaters of searches (recording makes its
// own: a pooled reader, about 40 KiB, stays live through a garbage
// collection, and a history that is never searched should not keep
// one).
var searchInflaters = sync.Pool{New: func() any { return new(inflater) }}

// rows appends to text block b's text and to starts where each of its
// rows begins. The block's text is what seal deflated: an error is a
// bug, and panics.
func (f *inflater) rows(text []byte, starts []uint32, b *rowBlock) ([]byte, []uint32) {
	zr := bytes.NewReader(b.z)
	if f.r == nil {
		f.r = flate.NewReader(zr)
	} else if err := f.r.(flate.Resetter).Reset(zr, nil); err != nil {
		panic(err)
	}
	at := len(text)
	text = slices.Grow(text, int(b.raw))[:at+int(b.raw)]
	if _, err := io.ReadFull(f.r, text[at:]); err != nil {
		panic("terminal: a history block does not inflate: " + err.Error())
	}
	return text, rowStarts(starts, text[at:])
}

// rowStarts appends to starts where each row of text (each ended by
// '\n') begins.
func rowStarts(starts []uint32, text []byte) []uint32 {
	for p := 0; p < len(text); {
		starts = append(starts, uint32(p))
		i := bytes.IndexByte(text[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return starts
}

// A trigram filter is a bitmap (a Bloom filter with one hash) of every
// three consecutive bytes of a block's text, ASCII letters lower-cased:
// a literal (with its ASCII letters lower-cased) is in the text only if
// each of its trigrams' bits is set. Its size is a power of two bytes,
// between 64 bytes and 1 KiB: the smallest whose bits are set at most
// 40 % (so a literal of 8 bytes the text does not hold passes about once
// in 250), unless the text has more than about 4,000 distinct trigrams
// (a block of terminal text has about 900).
const (
	filterMin = 64
	filterMax = 1 << 10
)

// trigramHash returns the hash of the trigram a, b, c (lower-cased).
func trigramHash(a, b, c byte) uint32 {
	x := uint64(lowerASCII(a)) | uint64(lowerASCII(b))<<8 | uint64(lowerASCII(c))<<16
	return uint32((x * 0x9E3779B97F4A7C15) >> 32)
}

// trigramFilter returns text's trigram filter.
func trigramFilter(text []byte) []byte {
	f := make([]byte, filterMax)
	for i := 0; i+3 <= len(text); i++ {
		h := trigramHash(text[i], text[i+1], text[i+2]) & (filterMax*8 - 1)
		f[h/8] |= 1 << (h % 8)
	}
	// Fold halves together (a bit's index is the hash's low bits) while
	// the half would stay at most 40 % set: about twice the bits of the
	// trigrams.
	for len(f) > filterMin {
		half := len(f) / 2
		set := 0
		for i := range half {
			set += bits.OnesCount8(f[i] | f[i+half])
		}
		if set*10 > half*8*4 {
			break
		}
		for i := range half {
			f[i] |= f[i+half]
		}
		f = f[:half]
	}
	return bytes.Clone(f)
}

// mayHold reports whether a block whose trigram filter is f may hold a
// text with trigrams hashes (nil: any text).
func mayHold(f []byte, hashes []uint32) bool {
	mask := uint32(len(f)*8 - 1)
	for _, h := range hashes {
		h &= mask
		if f[h/8]&(1<<(h%8)) == 0 {
			return false
		}
	}
	return true
}

// trigrams returns the hashes of the trigrams a text matching q must
// hold: those of its literal (a literal query's, or the literal every
// match of its regular expression holds); nil when it has no literal of
// three bytes or more.
func (q *Query) trigrams() []uint32 {
	if q.find == nil || len(q.find.lit) < 3 {
		return nil
	}
	lit := q.find.lit
	hs := make([]uint32, 0, len(lit)-2)
	for i := 0; i+3 <= len(lit); i++ {
		hs = append(hs, trigramHash(lit[i], lit[i+1], lit[i+2]))
	}
	return hs
}
