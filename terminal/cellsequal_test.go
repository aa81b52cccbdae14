package terminal

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCellsEqual: CellsEqual agrees with slices.Equal, whichever field of
// whichever cell differs.
func TestCellsEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := make([]Cell, 120)
	for i := range base {
		base[i] = Cell{Char: rune('a' + i%26), Style: Style{Fg: IndexedColor(uint8(i)), Attrs: Attr(i)}}
	}
	check := func(a, b []Cell) {
		t.Helper()
		if got, want := CellsEqual(a, b), slices.Equal(a, b); got != want {
			t.Fatalf("CellsEqual %v, slices.Equal %v:\n%v\n%v", got, want, a, b)
		}
	}
	check(nil, nil)
	check(nil, []Cell{})
	check(base, base[:119])
	check(base, slices.Clone(base))
	fields := []func(c *Cell){
		func(c *Cell) { c.Char ^= 1 << r.IntN(32) },
		func(c *Cell) { c.Fg ^= 1 << r.IntN(32) },
		func(c *Cell) { c.Bg ^= 1 << r.IntN(32) },
		func(c *Cell) { c.Underline ^= 1 << r.IntN(32) },
		func(c *Cell) { c.Attrs ^= 1 << r.IntN(16) },
		func(c *Cell) { c.Link ^= 1 << r.IntN(16) },
	}
	for range 1000 {
		b := slices.Clone(base)
		fields[r.IntN(len(fields))](&b[r.IntN(len(b))])
		check(base, b)
	}
}

// BenchmarkCellsEqual compares a 120-cell row with an equal one, as the
// attach encoder does for each unchanged row.
func BenchmarkCellsEqual(b *testing.B) {
	x := make([]Cell, 120)
	for i := range x {
		x[i] = Cell{Char: rune('a' + i%26)}
	}
	y := slices.Clone(x)
	b.Run("CellsEqual", func(b *testing.B) {
		for b.Loop() {
			if !CellsEqual(x, y) {
				b.Fatal()
			}
		}
	})
	b.Run("slices.Equal", func(b *testing.B) {
		for b.Loop() {
			if !slices.Equal(x, y) {
				b.Fatal()
			}
		}
	})
}

// TestSnapshotChanges: a snapshot kept up to date with SnapshotChanges
// equals a fresh Snapshot after each write (scrolls, erases, wraps, the
// alternate screen, a resize), and the rows it names are exactly those
// whose cells or wrap flag changed.
func TestSnapshotChanges(t *testing.T) {
	emu := NewEmulator(20, 6, EmulatorOptions{})
	var kept, before, fresh Snapshot
	var rows []int
	steps := []string{
		"hello", "\r\nworld\x1b[31m red\x1b[0m", "\r\n" + "a line long enough to wrap twice over 20", "\r\n1\r\n2\r\n3\r\n4",
		"\x1b[2;1H\x1b[K", "\x1b[3;5H\x1b[2P", "\x1b[?1049h", "alt", "\x1b[?1049l", "\x1b[2J", "", "\x1b#8", "\x1b#6x",
	}
	for i, step := range steps {
		if i == len(steps)-2 {
			emu.Resize(24, 5)
		}
		before.Cols, before.Rows = kept.Cols, kept.Rows
		before.Cells = slices.Clone(kept.Cells)
		before.Wrapped = slices.Clone(kept.Wrapped)
		emu.Write([]byte(step))
		rows = emu.SnapshotChanges(&kept, rows[:0])
		emu.Snapshot(&fresh)
		if !slices.Equal(kept.Cells, fresh.Cells) || !slices.Equal(kept.Wrapped, fresh.Wrapped) ||
			!slices.Equal(kept.LineSizes, fresh.LineSizes) || kept.Cursor != fresh.Cursor || kept.Generation != fresh.Generation ||
			kept.Cols != fresh.Cols || kept.Rows != fresh.Rows || kept.AltScreen != fresh.AltScreen {
			t.Fatalf("step %d %q: the kept snapshot differs from a fresh one", i, step)
		}
		var want []int
		for y := range fresh.Rows {
			if before.Cols != fresh.Cols || before.Rows != fresh.Rows ||
				before.Wrapped[y] != fresh.Wrapped[y] || !slices.Equal(before.Cells[y*before.Cols:(y+1)*before.Cols], fresh.Row(y)) {
				want = append(want, y)
			}
		}
		if !slices.Equal(rows, want) {
			t.Fatalf("step %d %q: changed rows %v, want %v", i, step, rows, want)
		}
	}
}
