package terminal

import (
	"encoding/binary"
	"errors"
	"math"
)

// This file holds the encoding of a held screen's row numbers (the
// numbers of its rows in the history's rowStore, top row first).
//
// A full-screen agent's screen is mostly its previous screen scrolled:
// the transcript rows it still shows, a few rows new on it, the status
// and input rows. So a screen is encoded as operations on the screen
// before it: copy n of its rows from row a, or take n consecutive row
// numbers from start (rows are numbered in the order the history first
// stored them, so the rows new on a screen run). Each operation takes
// two unsigned varints, and an agent's screen about 8 bytes where its
// row numbers took 2 or 4 bytes a row; a search carries the rows that
// matched on a screen over to the next through its copies, and tests a
// run against the matched rows at once, so it reads a few operations a
// screen, not every row. Every keyEvery'th screen (and the oldest) is a
// key screen, encoded without copies, so that a screen is decoded from
// at most keyEvery screens. A screen whose numbers neither repeat the
// screen before nor run is stored as the plain numbers, whichever is
// smaller.

// rowsKind says how a screen's row numbers are encoded.
type rowsKind uint8

const (
	// rowsRuns is operations (see rowsCopies) that take runs only: a key
	// screen.
	rowsRuns rowsKind = iota
	// rowsNarrow is each number in 2 bytes, little-endian: a key screen.
	rowsNarrow
	// rowsWide is each number in 4 bytes, little-endian: a key screen.
	rowsWide
	// rowsCopies is operations on the screen before: for each, the
	// uvarint of (n-1)<<1 | copy, then for a run of n numbers the
	// zig-zag uvarint of its first number minus the end of the run
	// before it in the screen (0 for the first), for a copy of n rows of
	// the screen before the zig-zag uvarint of the first row copied
	// minus the row it lands on.
	rowsCopies
)

// keyEvery is how many screens at most a key screen is apart from the
// next.
const keyEvery = 32

// errRowsEncoding is returned for bytes no encodeRows output holds.
var errRowsEncoding = errors.New("malformed row numbers")

// zigzag maps a signed number to an unsigned one, small for small
// magnitudes.
func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// encodeRows appends to dst the smallest encoding of ids and reports
// which it is: operations copying rows of prev (the screen before's
// numbers) when prev is not nil, else a key screen's.
func encodeRows(dst []byte, ids, prev []uint32) ([]byte, rowsKind) {
	kind, size := rowsNarrow, 2
	for _, id := range ids {
		if id > math.MaxUint16 {
			kind, size = rowsWide, 4
			break
		}
	}
	raw := size * len(ids)
	start := len(dst)
	// at lists where each number shows on prev (the newest few).
	var at map[uint32][]int32
	if len(prev) > 0 {
		at = make(map[uint32][]int32, len(prev))
		for a, id := range prev {
			if l := at[id]; len(l) < 8 {
				at[id] = append(l, int32(a))
			}
		}
	}
	copies := false
	var end int64 // where the run before ends
	for y := 0; y < len(ids) && len(dst)-start < raw; {
		run := 1
		for y+run < len(ids) && int64(ids[y+run]) == int64(ids[y+run-1])+1 {
			run++
		}
		best, from := 0, 0
		for _, a := range at[ids[y]] {
			n := 1
			for y+n < len(ids) && int(a)+n < len(prev) && prev[int(a)+n] == ids[y+n] {
				n++
			}
			if n > best {
				best, from = n, int(a)
			}
		}
		if best >= run {
			copies = true
			dst = binary.AppendUvarint(dst, uint64(best-1)<<1|1)
			dst = binary.AppendUvarint(dst, zigzag(int64(from-y)))
			y += best
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(run-1)<<1)
		dst = binary.AppendUvarint(dst, zigzag(int64(ids[y])-end))
		end = int64(ids[y+run-1]) + 1
		y += run
	}
	if len(dst)-start < raw || len(ids) == 0 {
		if copies {
			return dst, rowsCopies
		}
		return dst, rowsRuns
	}
	dst = dst[:start]
	for _, id := range ids {
		if kind == rowsWide {
			dst = binary.LittleEndian.AppendUint32(dst, id)
		} else {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(id))
		}
	}
	return dst, kind
}

// eachOp calls fn with each operation enc holds (as encodeRows encoded
// it, of kind), top row first, until fn returns false: n (≥ 1) rows land
// on the screen from row y, a copy of the screen before's rows from row
// a (copy set), or the numbers from a on. The plain numbers of a key
// screen are given as runs. It reports whether every operation was given
// to fn; err is errRowsEncoding when enc is not an encoding of kind, or
// copies a row of the screen before past prevRows (then fn was given the
// operations before the fault).
func eachOp(enc []byte, kind rowsKind, prevRows int, fn func(y int, copy bool, a, n uint32) bool) (all bool, err error) {
	switch kind {
	case rowsNarrow, rowsWide:
		size := 2
		if kind == rowsWide {
			size = 4
		}
		if len(enc)%size != 0 {
			return false, errRowsEncoding
		}
		rows := len(enc) / size
		at := func(y int) uint32 {
			if size == 2 {
				return uint32(binary.LittleEndian.Uint16(enc[2*y:]))
			}
			return binary.LittleEndian.Uint32(enc[4*y:])
		}
		for y := 0; y < rows; {
			start := at(y)
			n := uint32(1)
			for y+int(n) < rows && start+n != 0 && at(y+int(n)) == start+n {
				n++
			}
			if !fn(y, false, start, n) {
				return false, nil
			}
			y += int(n)
		}
		return true, nil
	case rowsRuns, rowsCopies:
		var end int64
		y := 0
		for p := 0; p < len(enc); {
			hd, k := binary.Uvarint(enc[p:])
			if k <= 0 || hd>>1 >= math.MaxInt32 {
				return false, errRowsEncoding
			}
			p += k
			v, k := binary.Uvarint(enc[p:])
			if k <= 0 {
				return false, errRowsEncoding
			}
			p += k
			n := int64(hd>>1) + 1
			if int64(y)+n > math.MaxInt32 {
				return false, errRowsEncoding
			}
			if hd&1 == 1 {
				a := int64(y) + unzigzag(v)
				if kind != rowsCopies || a < 0 || a+n > int64(prevRows) {
					return false, errRowsEncoding
				}
				if !fn(y, true, uint32(a), uint32(n)) {
					return false, nil
				}
			} else {
				start := end + unzigzag(v)
				if start < 0 || start+n > math.MaxUint32+1 {
					return false, errRowsEncoding
				}
				if !fn(y, false, uint32(start), uint32(n)) {
					return false, nil
				}
				end = start + n
			}
			y += int(n)
		}
		return true, nil
	}
	return false, errRowsEncoding
}

// decodeRows appends to dst the numbers enc holds (encoded by
// encodeRows, of kind, after the screen prev), or fails with
// errRowsEncoding, also when they would be more than limit.
func decodeRows(dst []uint32, enc []byte, kind rowsKind, prev []uint32, limit int) ([]uint32, error) {
	base := len(dst)
	var tooMany bool
	_, err := eachOp(enc, kind, len(prev), func(_ int, copy bool, a, n uint32) bool {
		if len(dst)-base+int(n) > limit {
			tooMany = true
			return false
		}
		if copy {
			dst = append(dst, prev[a:a+n]...)
			return true
		}
		for id := a; id-a < n; id++ {
			dst = append(dst, id)
		}
		return true
	})
	if tooMany {
		err = errRowsEncoding
	}
	return dst, err
}

// anyBit reports whether bits has a bit set in [start, start+n) (n ≥ 1);
// bit i is bits[i/64]'s bit i%64, and bits covers the range.
func anyBit(bits []uint64, start, n uint32) bool {
	last := start + n - 1
	lo, hi := start/64, last/64
	for w := lo; w <= hi; w++ {
		m := bits[w]
		if w == lo {
			m &= ^uint64(0) << (start % 64)
		}
		if w == hi {
			m &= ^uint64(0) >> (63 - last%64)
		}
		if m != 0 {
			return true
		}
	}
	return false
}
