package terminal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// refHistory is the scrollback as a plain slice of separately allocated
// lines, the way history stored them before the blocks: what
// TestHistoryMatchesReference compares it with.
type refHistory struct {
	lines   []histLine
	cap     int
	dropped uint64
}

func (r *refHistory) push(l histLine) {
	if r.cap <= 0 {
		r.dropped++
		return
	}
	if len(r.lines) == r.cap {
		r.lines = r.lines[1:]
		r.dropped++
	}
	r.lines = append(r.lines, append(histLine(nil), l...))
}

// randomLine returns an encoded line of a random kind: empty, short,
// styled, wrapped, a screen wide, and now and then longer than a block.
func randomLine(r *rand.Rand) histLine {
	n := r.IntN(200)
	switch r.IntN(20) {
	case 0:
		n = 0
	case 1:
		n = histBlockMax - histTrailer - r.IntN(3) // fills a block, or nearly
	case 2:
		n = histBlockMax + r.IntN(5000) // longer than any block
	}
	text := bytes.Repeat([]byte{byte('a' + r.IntN(26))}, n)
	meta := uint32(len(text))
	if r.IntN(3) == 0 {
		meta |= histWrapped
	}
	l := append(histLine(nil), text...)
	if r.IntN(4) == 0 { // a styled line: some run bytes before the trailer
		l = append(l, bytes.Repeat([]byte{byte(r.IntN(256))}, 1+r.IntN(40))...)
		meta |= histStyled
	}
	return binary.LittleEndian.AppendUint32(l, meta)
}

// TestHistoryMatchesReference runs random pushes, pops, cap changes,
// rebuilds (as a reflow does) and clears on the block-stored history and
// on refHistory, and checks after each step that both hold the same lines
// in the same order and count the same dropped lines.
func TestHistoryMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	for round := range 40 {
		capacity := []int{0, 1, 3, 100, 1000}[r.IntN(5)]
		var h history
		h.setCap(capacity)
		ref := refHistory{cap: capacity}
		for step := range 3000 {
			op := r.IntN(100)
			what := ""
			switch {
			case op < 80:
				l := randomLine(r)
				what = fmt.Sprintf("push %d bytes", len(l))
				if capacity > 0 {
					h.pushLine(l)
				} else {
					h.dropped++ // as pushCells does with no scrollback
				}
				ref.push(l)
			case op < 90:
				what = "pop"
				if h.n > 0 {
					got := append(histLine(nil), h.popNewest()...)
					want := ref.lines[len(ref.lines)-1]
					ref.lines = ref.lines[:len(ref.lines)-1]
					if !bytes.Equal(got, want) {
						t.Fatalf("round %d step %d: popNewest = %d bytes, want %d", round, step, len(got), len(want))
					}
				}
			case op < 94:
				what = "rebuild"
				h.replace(h.all())
			case op < 97:
				capacity = []int{0, 1, 3, 100, 1000}[r.IntN(5)]
				what = fmt.Sprintf("cap %d", capacity)
				h.setCap(capacity)
				ref.cap = capacity
				if len(ref.lines) > capacity {
					ref.dropped += uint64(len(ref.lines) - capacity)
					ref.lines = ref.lines[len(ref.lines)-capacity:]
				}
			case op < 98:
				what = "reset"
				h.reset()
				ref.dropped += uint64(len(ref.lines))
				ref.lines = nil
			default:
				what = "check only"
			}
			if h.n != len(ref.lines) || h.dropped != ref.dropped {
				t.Fatalf("round %d step %d (%s): %d lines, %d dropped; want %d, %d", round, step, what, h.n, h.dropped, len(ref.lines), ref.dropped)
			}
			for i := range h.n {
				if g, w := h.at(i), ref.lines[i]; !bytes.Equal(g, w) {
					t.Fatalf("round %d step %d (%s): line %d is %d bytes, want %d", round, step, what, i, len(g), len(w))
				}
			}
		}
	}
}

// TestHistoryLineCapacity checks that a line taken from the history
// cannot be appended to in place (that would overwrite the next line).
func TestHistoryLineCapacity(t *testing.T) {
	var h history
	h.setCap(10)
	h.pushLine(histLine("ab\x02\x00\x00\x00"))
	h.pushLine(histLine("cd\x02\x00\x00\x00"))
	l := h.at(0)
	_ = append(l, 'x')
	if g := string(h.at(1).text()); g != "cd" {
		t.Fatalf("line 1 = %q after appending to line 0, want cd", g)
	}
}

// TestScrollbackHeapPerLine checks what 10,000 lines of 120 characters
// cost on the heap, screen excluded: at most 148 bytes a line (the text,
// a 4-byte trailer and an 8-byte reference, plus the blocks' slack; 136
// when written). One slice per line, the storage before the blocks, cost
// 160.
func TestScrollbackHeapPerLine(t *testing.T) {
	line := []byte(strings.Repeat("0123456789abcdefghij", 6) + "\r\n")
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	e := NewEmulator(200, 50, EmulatorOptions{})
	for range 10050 {
		e.Write(line)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if e.HistoryLen() != 10000 {
		t.Fatalf("history = %d lines, want 10000", e.HistoryLen())
	}
	// The 200×50 screen: 50 rows of 200 20-byte cells.
	per := (float64(m1.HeapAlloc) - float64(m0.HeapAlloc) - 50*200*20) / 10000
	runtime.KeepAlive(e)
	if per > 148 {
		t.Errorf("the scrollback costs %.1f bytes a line, want at most 148", per)
	}
	t.Logf("%.1f heap bytes a line", per)
}
