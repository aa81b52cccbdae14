package terminal

// SnapshotAt copies into s the view scrolled back offset lines into the
// scrollback: the top min(offset, rows) rows are the scrollback lines just
// above that point, the rest the top of the screen. offset <= 0 is the
// same as [Emulator.Snapshot]; it is clamped to [Emulator.HistoryLen], and
// ignored while the alternate screen shows (full-screen programs have no
// scrollback). s.Offset reports the offset applied. While scrolled back the
// cursor is reported not visible.
//
// Scrollback lines are stored trimmed and may be wider or narrower than the
// screen; they are cut or padded with blank cells to the screen width. Like
// Snapshot, it reuses s's storage, so a warm s does not allocate (except to
// intern a grapheme cluster the emulator has not seen before).
func (e *Emulator) SnapshotAt(s *Snapshot, offset int) {
	if offset <= 0 {
		e.Snapshot(s)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cur == e.alt {
		offset = 0
	}
	offset = min(offset, e.hist.n)
	cols, rows := e.cols, e.rows
	n := cols * rows
	if cap(s.Cells) < n {
		s.Cells = make([]Cell, n)
	}
	s.Cells = s.Cells[:n]
	if cap(s.Wrapped) < rows {
		s.Wrapped = make([]bool, rows)
	}
	s.Wrapped = s.Wrapped[:rows]
	s.LineSizes = growLineSizes(s.LineSizes, rows)
	fromHist := min(offset, rows)
	first := e.hist.n - offset // history index of the top row
	for y := 0; y < fromHist; y++ {
		e.histRowLocked(s, y, first+y, cols)
		s.LineSizes[y] = LineSingle
	}
	for y := fromHist; y < rows; y++ {
		r := e.cur.rows[y-offset]
		copy(s.Cells[y*cols:(y+1)*cols], r.cells)
		s.Wrapped[y] = r.wrapped
		s.LineSizes[y] = r.size
	}
	s.Cols, s.Rows = cols, rows
	s.Cursor = e.cursorLocked()
	if offset > 0 {
		s.Cursor.Visible = false
	}
	s.Offset = offset
	s.Modes = e.in
	s.AltScreen = e.cur == e.alt
	s.ReverseVideo = e.reverseVideo
	s.SyncOutput = e.syncOutput
	s.Title, s.Cwd = e.title, e.cwd
	s.Colors = e.colors
	s.Generation = e.gen
	s.clusters, s.links = e.clusters, e.links // after decoding, which may intern clusters
}
