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
