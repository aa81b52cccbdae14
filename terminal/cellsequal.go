package terminal

import "unsafe"

// cellSize is a Cell's size in memory: its fields with no padding
// between or after them (the assertion below), so two cells are equal
// exactly when their bytes are.
const cellSize = int(unsafe.Sizeof(Cell{}))

// A Cell is a rune and a Style (three Colors, an Attr and a link id):
// 20 bytes, no padding. A field added that brings padding fails to
// compile here.
var _ = [1]struct{}{}[cellSize-int(unsafe.Sizeof(rune(0))+unsafe.Sizeof(Color(0))*3+unsafe.Sizeof(Attr(0))+unsafe.Sizeof(uint16(0)))]

// CellsEqual reports whether a and b hold the same cells, as
// slices.Equal does, by comparing their memory in one pass: an attached
// window's server compares every row of a pane's screen with what it last
// sent for each frame (attach.Encoder), a key's echo among them, and the
// comparison cell by cell was half that frame's CPU; each window's
// renderer compares every row with what it drew last (app/render).
func CellsEqual(a, b []Cell) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), len(a)*cellSize)) ==
		string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), len(b)*cellSize))
}
