package attach

import (
	"fmt"

	"github.com/paneflow-go/paneflow/terminal"
)

// Diff describes the first difference between what two snapshots show
// ("" when none): size, each cell's text (grapheme clusters by their text:
// the tables of a mirror and its emulator differ), style and width, link
// URIs, wrapped rows, the cursor, modes, screen flags, title, cwd and
// program colours. Tests use it to hold a mirror to its server's
// emulator.
func Diff(got, want *terminal.Snapshot) string {
	if got.Cols != want.Cols || got.Rows != want.Rows {
		return fmt.Sprintf("size %dx%d, want %dx%d", got.Cols, got.Rows, want.Cols, want.Rows)
	}
	for y := range want.Rows {
		if got.Wrapped[y] != want.Wrapped[y] {
			return fmt.Sprintf("row %d wrapped %v, want %v", y, got.Wrapped[y], want.Wrapped[y])
		}
		gr, wr := got.Row(y), want.Row(y)
		for x := range wr {
			a, b := gr[x], wr[x]
			if got.Grapheme(a) != want.Grapheme(b) || a.Style != b.Style || (a.Char == 0) != (b.Char == 0) ||
				got.Link(a.Link) != want.Link(b.Link) {
				return fmt.Sprintf("cell %d,%d = %q %+v, want %q %+v (row %q, want %q)",
					x, y, got.Grapheme(a), a, want.Grapheme(b), b, got.RowText(y), want.RowText(y))
			}
		}
	}
	switch {
	case got.Cursor != want.Cursor:
		return fmt.Sprintf("cursor %+v, want %+v", got.Cursor, want.Cursor)
	case got.Modes != want.Modes:
		return fmt.Sprintf("modes %+v, want %+v", got.Modes, want.Modes)
	case got.AltScreen != want.AltScreen || got.ReverseVideo != want.ReverseVideo || got.SyncOutput != want.SyncOutput:
		return fmt.Sprintf("alt/reverse/sync %v %v %v, want %v %v %v", got.AltScreen, got.ReverseVideo, got.SyncOutput,
			want.AltScreen, want.ReverseVideo, want.SyncOutput)
	case got.Title != want.Title || got.Cwd != want.Cwd:
		return fmt.Sprintf("title %q cwd %q, want %q %q", got.Title, got.Cwd, want.Title, want.Cwd)
	case got.Offset != want.Offset:
		return fmt.Sprintf("offset %d, want %d", got.Offset, want.Offset)
	case fmt.Sprint(got.Colors.Entries()) != fmt.Sprint(want.Colors.Entries()):
		return fmt.Sprintf("colours %v, want %v", got.Colors.Entries(), want.Colors.Entries())
	}
	return ""
}
