package terminal

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// rowsCases are screens' row numbers, each after the screen before
// (prev), and the encoding encodeRows should pick.
var rowsCases = []struct {
	name      string
	prev, ids []uint32
	kind      rowsKind
}{
	{"empty", nil, nil, rowsRuns},
	{"one", nil, []uint32{7}, rowsNarrow}, // a run of one costs the plain number
	{"run", nil, []uint32{10, 11, 12, 13, 14, 15}, rowsRuns},
	{"scattered narrow", nil, []uint32{9000, 3, 7000, 1, 8000}, rowsNarrow},
	{"scattered wide", nil, []uint32{1 << 20, 3, 1 << 30, 1, math.MaxUint32}, rowsWide},
	{"top number", nil, []uint32{math.MaxUint32 - 1, math.MaxUint32}, rowsRuns},
	// An agent's screen: the transcript scrolled two rows, two new rows
	// and a new status row (numbered in a run), the input row.
	{"scrolled", []uint32{40, 41, 43, 44, 46, 47, 49, 50, 51, 5}, []uint32{43, 44, 46, 47, 49, 50, 52, 53, 54, 5}, rowsCopies},
	{"same", []uint32{9000, 3, 7000}, []uint32{9000, 3, 7000}, rowsCopies},
	// Reversed: copies of one row each cost what the plain numbers do.
	{"reversed", []uint32{9000, 3, 7000, 1, 8000}, []uint32{8000, 1, 7000, 3, 9000}, rowsNarrow},
	// A row shown many times (blank rows): copied from the newest places.
	{"blanks", []uint32{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6}, []uint32{5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6}, rowsCopies},
}

// TestRowsEncoding: each case encodes to the expected kind, decodes back
// to its numbers (the runs walk gives them too), and takes no more bytes
// than the plain numbers.
func TestRowsEncoding(t *testing.T) {
	for _, tc := range rowsCases {
		t.Run(tc.name, func(t *testing.T) {
			enc, kind := encodeRows([]byte("x"), tc.ids, tc.prev)
			enc = enc[1:]
			if kind != tc.kind {
				t.Errorf("kind %d, want %d", kind, tc.kind)
			}
			got, err := decodeRows(nil, enc, kind, tc.prev, len(tc.ids))
			if err != nil || !slices.Equal(got, tc.ids) {
				t.Fatalf("decoded %v, %v; want %v", got, err, tc.ids)
			}
			plain := 2 * len(tc.ids)
			if slices.ContainsFunc(tc.ids, func(id uint32) bool { return id > math.MaxUint16 }) {
				plain *= 2
			}
			if len(enc) > plain {
				t.Errorf("%d bytes, plain numbers take %d", len(enc), plain)
			}
			if kind == rowsCopies && tc.prev == nil {
				t.Error("copies without a screen before")
			}
		})
	}
	// The agent's screen: 3 operations (copy, run, copy), 6 bytes where
	// the numbers took 20.
	enc, _ := encodeRows(nil, rowsCases[6].ids, rowsCases[6].prev)
	if len(enc) != 6 {
		t.Errorf("the scrolled screen takes %d bytes, want 6", len(enc))
	}
}

// TestRowsMalformed: bytes no encoding holds are an error, not a panic
// or numbers out of range.
func TestRowsMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		enc  []byte
		kind rowsKind
		prev int
	}{
		{"odd narrow", []byte{1, 2, 3}, rowsNarrow, 0},
		{"odd wide", []byte{1, 2, 3, 4, 5}, rowsWide, 0},
		{"cut header", []byte{0x80}, rowsRuns, 0},
		{"cut operand", []byte{0}, rowsRuns, 0},
		{"copy in a key screen", []byte{1, 0}, rowsRuns, 5},
		{"copy past the screen before", []byte{3, 0}, rowsCopies, 1},
		{"copy before the screen before", []byte{1, 1}, rowsCopies, 5},
		{"run below 0", []byte{0, 1}, rowsRuns, 0},
		{"run past 2³²", binary.AppendUvarint([]byte{2}, zigzag(math.MaxUint32)), rowsRuns, 0},
		{"unknown kind", nil, 9, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := make([]uint32, tc.prev)
			if got, err := decodeRows(nil, tc.enc, tc.kind, prev, 1000); err == nil {
				t.Fatalf("decoded %v, want an error", got)
			}
		})
	}
	if _, err := decodeRows(nil, []byte{0xfe, 0x7f, 0}, rowsRuns, nil, 1000); err == nil {
		t.Fatal("a run of 8,192 numbers decoded under a limit of 1,000")
	}
}

// rowsFromBytes makes row numbers from fuzz input: 2 bytes each, a
// number from a small range (so that screens share and run them) or,
// with the high bit set, a large one.
func rowsFromBytes(b []byte) []uint32 {
	var ids []uint32
	for i := 0; i+1 < len(b); i += 2 {
		v := uint32(b[i])<<8 | uint32(b[i+1])
		if v&0x8000 != 0 {
			v = v * 131071
		} else {
			v %= 64
		}
		ids = append(ids, v)
	}
	return ids
}

// FuzzRowsRoundTrip: any screen's numbers, after any screen before, decode
// back from their encoding, which is never larger than the plain numbers.
func FuzzRowsRoundTrip(f *testing.F) {
	f.Add([]byte{}, []byte{0, 1, 0, 2, 0, 3})
	f.Add([]byte{0, 1, 0, 2, 0, 3, 0, 4}, []byte{0, 3, 0, 4, 0, 5, 0, 6, 0, 1})
	f.Add([]byte{0, 5, 0, 5, 0, 5, 0, 6}, []byte{0, 5, 0, 5, 0, 5, 0, 5, 0, 6})
	f.Add([]byte{0x80, 1, 0, 2}, []byte{0x80, 1, 0x90, 0, 0, 2})
	f.Fuzz(func(t *testing.T, prevB, idsB []byte) {
		prev, ids := rowsFromBytes(prevB), rowsFromBytes(idsB)
		for _, p := range [][]uint32{prev, nil} {
			enc, kind := encodeRows(nil, ids, p)
			got, err := decodeRows(nil, enc, kind, p, len(ids))
			if err != nil || !slices.Equal(got, ids) {
				t.Fatalf("encodeRows(%v after %v) = %x (%d), decoded %v, %v", ids, p, enc, kind, got, err)
			}
			if len(enc) > 4*len(ids) {
				t.Fatalf("%d numbers took %d bytes", len(ids), len(enc))
			}
		}
	})
}

// FuzzRowsDecode: decoding any bytes fails or gives numbers within range,
// never more than the limit, and copies only rows of the screen before.
func FuzzRowsDecode(f *testing.F) {
	for _, tc := range rowsCases {
		enc, kind := encodeRows(nil, tc.ids, tc.prev)
		f.Add(enc, uint8(kind), uint8(len(tc.prev)))
	}
	f.Fuzz(func(t *testing.T, enc []byte, kind, prevRows uint8) {
		prev := make([]uint32, prevRows)
		for i := range prev {
			prev[i] = uint32(1000 + i)
		}
		got, err := decodeRows(nil, enc, rowsKind(kind), prev, 4096)
		if err != nil {
			return
		}
		if len(got) > 4096 {
			t.Fatalf("decoded %d numbers, limit 4096", len(got))
		}
	})
}

// TestAnyBit checks anyBit against testing each bit, over word edges.
func TestAnyBit(t *testing.T) {
	bits := make([]uint64, 4)
	for _, b := range []int{0, 63, 64, 130, 255} {
		bits[b/64] |= 1 << (b % 64)
	}
	for start := range 256 {
		for n := 1; start+n <= 256; n++ {
			want := false
			for i := start; i < start+n; i++ {
				want = want || bits[i/64]&(1<<(i%64)) != 0
			}
			if got := anyBit(bits, uint32(start), uint32(n)); got != want {
				t.Fatalf("anyBit(%d, %d) = %v, want %v", start, n, got, want)
			}
		}
	}
}

// TestScreenHistoryRandomScreens: screens made of rows drawn from a small
// pool (rows shown again in any order, blank rows, screens shown again),
// under a bound that drops screens and frees blocks many times: every held screen
// reads back as recorded (listed and one at a time) and Find finds each
// row a brute-force search of the held texts finds, in order.
func TestScreenHistoryRandomScreens(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 1))
	pool := make([]string, 300)
	for i := range pool {
		pool[i] = fmt.Sprintf("row %d %s", i, strings.Repeat("x", r.IntN(40)))
	}
	pool[0] = ""
	h := newScreenHistory(24 << 10)
	var texts []string // by seq-1
	var rows []string
	for s := range 3000 {
		switch k := r.IntN(10); {
		case k < 5 && len(rows) > 0: // scroll by 1–3 rows
			n := 1 + r.IntN(3)
			rows = rows[min(n, len(rows)):]
			for range n {
				rows = append(rows, pool[r.IntN(len(pool))])
			}
		case k < 7 && len(texts) > 0: // a screen shown again
			rows = strings.Split(texts[r.IntN(len(texts))], "\n")
		default: // a new screen
			rows = rows[:0]
			for range 5 + r.IntN(20) {
				rows = append(rows, pool[r.IntN(len(pool))])
			}
		}
		rows[0] = fmt.Sprint("top ", r.IntN(4)) // never an empty screen
		text := strings.Join(rows, "\n")
		texts = append(texts, text)
		h.add([]byte(text), uint64(s), time.Unix(int64(s), 0))
		if h.Bytes() > h.Limit() {
			t.Fatalf("screen %d: %d bytes held, limit %d", s, h.Bytes(), h.Limit())
		}
	}
	if h.Dropped() == 0 || h.rows.freed < 2 {
		t.Fatalf("dropped %d, %d blocks freed: want the bound reached", h.Dropped(), h.rows.freed)
	}
	// A screen shown again is held once, under the seq it was first
	// stored with: map each held seq to its text through Screens.
	held := map[uint64]string{}
	var seqs []uint64
	h.Screens(func(rec ScreenRecord) bool {
		held[rec.Seq] = rec.Text
		seqs = append(seqs, rec.Seq)
		return true
	})
	first, last, _ := h.Span()
	if len(seqs) != h.Len() || seqs[0] != first || seqs[len(seqs)-1] != last {
		t.Fatalf("listed %d screens from %d to %d; held %d from %d to %d", len(seqs), seqs[0], seqs[len(seqs)-1], h.Len(), first, last)
	}
	recorded := map[string]bool{}
	for _, s := range texts {
		recorded[s] = true
	}
	for _, seq := range seqs {
		rec, ok := h.Screen(seq)
		if !ok || rec.Text != held[seq] || !recorded[rec.Text] {
			t.Fatalf("screen %d reads %q (%v); listed as %q", seq, rec.Text, ok, held[seq])
		}
	}
	for _, pattern := range []string{"^row 1[0-9] ", "^$", "top 3", "x{39}"} {
		if got, want := findVsScan(t, h, pattern); len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("find %q: %d rows, want %d\n got %v\nwant %v", pattern, len(got), len(want), got, want)
		}
	}
}

// TestScreenHistoryFindWhileRecording: searches and reads run while
// screens are recorded, shown again, dropped and their blocks freed (under -race:
// the entries and arenas they read without the lock are never written
// in place). Every row found holds the text searched for, on a screen
// that reads back with it at that row.
func TestScreenHistoryFindWhileRecording(t *testing.T) {
	h := newScreenHistory(16 << 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 4000 {
			s := agentFrame(i, 12)
			if i%7 == 3 {
				s = agentFrame(i-3, 12) // shown again
			}
			h.add([]byte(s), uint64(i), time.Unix(int64(i), 0))
		}
	}()
	q, _ := NewQuery("passed", false, CaseSmart)
	for {
		n := 0
		h.find(q, func(f Found) bool {
			if !strings.Contains(f.Text, "passed") || f.Spans[0].End-f.Spans[0].Start != 6 {
				t.Fatalf("found %+v", f)
			}
			if n++; n%50 == 0 {
				if rec, ok := h.Screen(f.Screen); ok && strings.Split(rec.Text, "\n")[f.Line] != f.Text {
					t.Fatalf("screen %d row %d reads %q, found %q", f.Screen, f.Line, strings.Split(rec.Text, "\n")[f.Line], f.Text)
				}
			}
			return true
		})
		h.Screens(func(rec ScreenRecord) bool { return rec.Text != "" })
		select {
		case <-done:
			return
		default:
		}
	}
}
