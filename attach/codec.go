package attach

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
)

// Encoder turns one pane's screen into the [proto.ScreenFrame]s one
// client needs: it keeps a copy of what it last sent the client and
// encodes, per update, the rows that differ from it (all of them in the
// first frame and after a resize). The server's attach writer keeps one
// per attached client and pane. The zero value is not usable; call
// [NewEncoder]. An Encoder is not safe for concurrent use.
type Encoder struct {
	id      uint64
	seq     uint64
	started bool
	sent    terminal.Snapshot // what the client has
	changed []int             // the rows of sent the last Update changed
	bells   int
	hist    int
	dropped uint64

	styles map[terminal.Style]int
	f      proto.ScreenFrame
	runs   []proto.ScreenRun
}

// NewEncoder returns an Encoder for pane surfaceID whose first frame is
// full.
func NewEncoder(surfaceID uint64) *Encoder {
	return &Encoder{id: surfaceID, styles: make(map[terminal.Style]int)}
}

// Update snapshots emu and returns the frame that brings the client from
// what it was last sent to the emulator's current state, or ok false when
// nothing the client sees changed. The frame and its slices are valid
// until the next call; the client is assumed to take every frame Update
// returns (a stream that fails a write ends).
func (e *Encoder) Update(emu *terminal.Emulator) (f *proto.ScreenFrame, ok bool) {
	prev := e.sent // its state; its rows are brought up to date in place
	e.changed = emu.SnapshotChanges(&e.sent, e.changed[:0])
	return e.encode(&prev, emu.Bells(), emu.HistoryLen(), emu.DroppedLines())
}

// Generation is the emulator's output generation at the last Update:
// what the client was last sent (or found unchanged) includes every
// output up to it.
func (e *Encoder) Generation() uint64 { return e.sent.Generation }

// encode builds e.f from e.sent, brought up to date with e.changed its
// changed rows, and prev, its state (not its rows) before.
func (e *Encoder) encode(prev *terminal.Snapshot, bells, hist int, dropped uint64) (*proto.ScreenFrame, bool) {
	cur := &e.sent
	full := !e.started || cur.Cols != prev.Cols || cur.Rows != prev.Rows
	colors := full || cur.Colors != prev.Colors
	f := &e.f
	*f = proto.ScreenFrame{
		Type: proto.FrameScreen, SurfaceID: e.id, Full: full,
		Generation: cur.Generation, Cols: cur.Cols, Rows: cur.Rows,
		HistoryLen: hist, HistoryDropped: dropped,
		Cursor: proto.ScreenCursor{
			X: cur.Cursor.X, Y: cur.Cursor.Y, Visible: cur.Cursor.Visible,
			Shape: int(cur.Cursor.Shape), Blink: cur.Cursor.Blink,
		},
		Modes: proto.ScreenModes{
			AppCursor: cur.Modes.AppCursor, AppKeypad: cur.Modes.AppKeypad,
			BracketedPaste: cur.Modes.BracketedPaste, FocusEvents: cur.Modes.FocusEvents,
			Mouse: int(cur.Modes.Mouse), MouseEncoding: int(cur.Modes.MouseEnc),
			AltScroll: cur.Modes.AltScroll, KittyKeys: int(cur.Modes.KittyKeys),
		},
		AltScreen: cur.AltScreen, ReverseVideo: cur.ReverseVideo, SyncOutput: cur.SyncOutput,
		Title: cur.Title, Cwd: cur.Cwd, Bells: bells, ColorsChanged: colors,
		ScreenCells: proto.ScreenCells{Styles: e.f.Styles[:0], Links: e.f.Links[:0], Lines: e.f.Lines[:0]},
	}
	if colors {
		for _, c := range cur.Colors.Entries() {
			f.Colors = append(f.Colors, proto.ScreenColor{uint32(c.Index), c.RGB})
		}
	}
	clear(e.styles)
	e.runs = e.runs[:0]
	if full && len(e.changed) != cur.Rows {
		e.changed = e.changed[:0]
		for y := range cur.Rows {
			e.changed = append(e.changed, y)
		}
	}
	for _, y := range e.changed {
		row := cur.Row(y)
		start := len(e.runs)
		e.runs = e.appendRuns(e.runs, cur, row, &f.ScreenCells)
		f.Lines = append(f.Lines, proto.ScreenRow{Y: y, Wrapped: cur.Wrapped[y], Runs: e.runs[start:len(e.runs):len(e.runs)]})
	}
	changed := full || colors || len(f.Lines) > 0 || cur.Cursor != prev.Cursor ||
		cur.Modes != prev.Modes || cur.AltScreen != prev.AltScreen ||
		cur.ReverseVideo != prev.ReverseVideo || cur.SyncOutput != prev.SyncOutput ||
		cur.Title != prev.Title || cur.Cwd != prev.Cwd || bells != e.bells ||
		hist != e.hist || dropped != e.dropped
	if !changed {
		return nil, false
	}
	e.started = true
	e.bells, e.hist, e.dropped = bells, hist, dropped
	e.seq++
	f.Seq = e.seq
	return f, true
}

// AppendRows appends rows [0, s.Rows) of s to c as rows numbered from
// first (screen.rows' scrollback lines).
func AppendRows(c *proto.ScreenCells, s *terminal.Snapshot, first int) {
	styles := make(map[terminal.Style]int)
	var runs []proto.ScreenRun
	for y := range s.Rows {
		start := len(runs)
		runs = appendRuns(runs, s, s.Row(y), c, styles)
		c.Lines = append(c.Lines, proto.ScreenRow{Y: first + y, Wrapped: s.Wrapped[y], Runs: runs[start:len(runs):len(runs)]})
	}
}

func (e *Encoder) appendRuns(runs []proto.ScreenRun, s *terminal.Snapshot, row []terminal.Cell, c *proto.ScreenCells) []proto.ScreenRun {
	return appendRuns(runs, s, row, c, e.styles)
}

// run kinds of appendRuns.
const (
	kindText = iota
	kindClusters
	kindBlanks
)

// appendRuns encodes row as runs, adding their styles (and links) to c.
// Trailing blank default cells are left out.
func appendRuns(runs []proto.ScreenRun, s *terminal.Snapshot, row []terminal.Cell, c *proto.ScreenCells, styles map[terminal.Style]int) []proto.ScreenRun {
	n := len(row)
	for n > 0 && row[n-1] == (terminal.Cell{}) {
		n--
	}
	var text []byte
	cur := -1 // index of the open run, -1 none
	curKind := 0
	// The last style looked up: neighbouring cells mostly share one,
	// and hashing each cell's style took a sixth of the server's
	// encoding of a first full frame (issue 26's attach benchmark).
	lastSt, lastSi := terminal.Style{}, -1
	for i := 0; i < n; {
		cell := row[i]
		st := cell.WithWidth(1).Style
		width, step := proto.RunNarrow, 1
		switch cell.Width() {
		case 0:
			width = proto.RunContinuation
		case 2:
			width = proto.RunWideAlone
			if i+1 < n {
				next := row[i+1]
				if next.Width() == 0 && next.Char == 0 && next.WithWidth(1).Style == st {
					width, step = proto.RunWide, 2
				}
			}
		}
		kind := kindText
		switch {
		case width == proto.RunContinuation || (cell.Char == 0 && width == proto.RunNarrow):
			kind = kindBlanks
		case cell.Char == 0 || !utf8.ValidRune(cell.Char): // a wide blank, or a cluster (its Char is a table index)
			kind = kindClusters
		}
		si, ok := lastSi, lastSi >= 0 && st == lastSt
		if !ok {
			si, ok = styles[st]
		}
		if !ok {
			si = len(c.Styles)
			styles[st] = si
			c.Styles = append(c.Styles, proto.ScreenStyle{
				Fg: uint32(st.Fg), Bg: uint32(st.Bg), Underline: uint32(st.Underline),
				Attrs: uint16(st.Attrs), Link: st.Link,
			})
			if st.Link != 0 {
				c.Links = append(c.Links, proto.ScreenLink{ID: st.Link, URI: s.Link(st.Link)})
			}
		}
		lastSt, lastSi = st, si
		if cur < 0 || runs[cur].Style != si || runs[cur].Width != width || curKind != kind {
			if cur >= 0 && curKind == kindText {
				runs[cur].Text = string(text)
			}
			runs = append(runs, proto.ScreenRun{Style: si, Width: width})
			cur, curKind = len(runs)-1, kind
			text = text[:0]
			if kind == kindClusters {
				runs[cur].Clusters = []string{}
			}
		}
		switch kind {
		case kindText:
			text = utf8.AppendRune(text, cell.Char)
		case kindClusters:
			g := ""
			if cell.Char != 0 {
				g = s.Grapheme(cell)
			}
			runs[cur].Clusters = append(runs[cur].Clusters, g)
		case kindBlanks:
			runs[cur].Blanks++
		}
		i += step
	}
	if cur >= 0 && curKind == kindText {
		runs[cur].Text = string(text)
	}
	return runs
}

// maxCells bounds a mirrored screen (cols × rows) against a bad frame.
const maxCells = 4 << 20

// Mirror is a client's copy of one pane's screen, built from the
// [proto.ScreenFrame]s of screen.attach. The zero value is an empty
// mirror waiting for its first (full) frame. A Mirror is not safe for
// concurrent use.
type Mirror struct {
	// Screen is the mirrored screen (its Generation is the server's
	// output generation of the last frame).
	Screen terminal.Snapshot
	// Seq is the last frame's sequence number; HistoryLen,
	// HistoryDropped and Bells as that frame said.
	Seq            uint64
	HistoryLen     int
	HistoryDropped uint64
	Bells          int

	clusters map[string]rune
	styles   []terminal.Style
}

// Apply updates m with f. An error (a malformed frame, or a delta before
// the first full frame) leaves m partly updated: the stream is broken.
func (m *Mirror) Apply(f *proto.ScreenFrame) error {
	s := &m.Screen
	if f.Full {
		if f.Cols < 1 || f.Rows < 1 || f.Cols*f.Rows > maxCells {
			return fmt.Errorf("attach: frame size %dx%d out of range", f.Cols, f.Rows)
		}
		n := f.Cols * f.Rows
		if cap(s.Cells) < n {
			s.Cells = make([]terminal.Cell, n)
		}
		s.Cells = s.Cells[:n]
		clear(s.Cells)
		if cap(s.Wrapped) < f.Rows {
			s.Wrapped = make([]bool, f.Rows)
		}
		s.Wrapped = s.Wrapped[:f.Rows]
		clear(s.Wrapped)
		s.Cols, s.Rows = f.Cols, f.Rows
	} else if m.Seq == 0 || f.Cols != s.Cols || f.Rows != s.Rows {
		return errors.New("attach: a delta frame without a full frame of its size")
	}
	if err := m.tables(&f.ScreenCells); err != nil {
		return err
	}
	for _, r := range f.Lines {
		if r.Y < 0 || r.Y >= s.Rows {
			return fmt.Errorf("attach: row %d out of range", r.Y)
		}
		if err := m.decodeRow(s.Row(r.Y), r.Runs); err != nil {
			return err
		}
		s.Wrapped[r.Y] = r.Wrapped
	}
	s.Cursor = terminal.Cursor{
		X: f.Cursor.X, Y: f.Cursor.Y, Visible: f.Cursor.Visible,
		Shape: terminal.CursorShape(f.Cursor.Shape), Blink: f.Cursor.Blink,
	}
	md := f.Modes
	s.Modes = terminal.InputModes{
		AppCursor: md.AppCursor, AppKeypad: md.AppKeypad, BracketedPaste: md.BracketedPaste,
		FocusEvents: md.FocusEvents, Mouse: terminal.MouseMode(md.Mouse),
		MouseEnc: terminal.MouseEncoding(md.MouseEncoding), AltScroll: md.AltScroll,
		KittyKeys: uint8(md.KittyKeys),
	}
	s.AltScreen, s.ReverseVideo, s.SyncOutput = f.AltScreen, f.ReverseVideo, f.SyncOutput
	s.Title, s.Cwd = f.Title, f.Cwd
	if f.ColorsChanged {
		entries := make([]terminal.ColorEntry, len(f.Colors))
		for i, c := range f.Colors {
			entries[i] = terminal.ColorEntry{Index: int(c[0]), RGB: c[1]}
		}
		s.Colors = terminal.NewProgramColors(entries)
	}
	s.Generation, s.Offset = f.Generation, 0
	m.Seq, m.HistoryLen, m.HistoryDropped, m.Bells = f.Seq, f.HistoryLen, f.HistoryDropped, f.Bells
	return nil
}

// tables takes in c's styles and links.
func (m *Mirror) tables(c *proto.ScreenCells) error {
	m.styles = m.styles[:0]
	for _, st := range c.Styles {
		m.styles = append(m.styles, terminal.Style{
			Fg: terminal.Color(st.Fg), Bg: terminal.Color(st.Bg), Underline: terminal.Color(st.Underline),
			Attrs: terminal.Attr(st.Attrs), Link: st.Link,
		})
	}
	for _, l := range c.Links {
		m.Screen.SetLink(l.ID, l.URI)
	}
	return nil
}

// DecodeRows decodes the rows of c (tables included) into dst, one
// slice of cols cells per row, interning graphemes and links into m's
// screen tables (scrollback rows of screen.rows).
func (m *Mirror) DecodeRows(c *proto.ScreenCells, cols int, dst func(r proto.ScreenRow, cells []terminal.Cell)) error {
	if err := m.tables(c); err != nil {
		return err
	}
	for _, r := range c.Lines {
		cells := make([]terminal.Cell, cols)
		if err := m.decodeRow(cells, r.Runs); err != nil {
			return err
		}
		dst(r, cells)
	}
	return nil
}

// decodeRow writes runs into row from column 0 and blanks the rest.
func (m *Mirror) decodeRow(row []terminal.Cell, runs []proto.ScreenRun) error {
	x := 0
	put := func(c terminal.Cell) error {
		if x >= len(row) {
			return errors.New("attach: a row's runs overflow the screen width")
		}
		row[x] = c
		x++
		return nil
	}
	for _, r := range runs {
		if r.Style < 0 || r.Style >= len(m.styles) {
			return fmt.Errorf("attach: style %d out of range", r.Style)
		}
		st := m.styles[r.Style]
		one := func(ch rune) error {
			c := terminal.Cell{Char: ch, Style: st}
			switch r.Width {
			case proto.RunWide:
				if err := put(c.WithWidth(2)); err != nil {
					return err
				}
				return put(terminal.Cell{Style: st}.WithWidth(0))
			case proto.RunWideAlone:
				return put(c.WithWidth(2))
			case proto.RunContinuation:
				return put(c.WithWidth(0))
			}
			return put(c.WithWidth(1))
		}
		switch {
		case r.Clusters != nil:
			for _, g := range r.Clusters {
				if err := one(m.intern(g)); err != nil {
					return err
				}
			}
		case r.Text != "":
			for _, ch := range r.Text {
				if err := one(ch); err != nil {
					return err
				}
			}
		default:
			if r.Blanks > len(row)-x {
				return errors.New("attach: a row's runs overflow the screen width")
			}
			for range r.Blanks {
				if err := one(0); err != nil {
					return err
				}
			}
		}
	}
	clear(row[x:])
	return nil
}

// intern returns the Char for grapheme g, adding a cluster to the
// screen's table once per distinct text.
func (m *Mirror) intern(g string) rune {
	if r, ok := m.clusters[g]; ok {
		return r
	}
	r := m.Screen.InternGrapheme(g)
	if m.clusters == nil {
		m.clusters = make(map[string]rune)
	}
	m.clusters[g] = r
	return r
}

// Frames is [Encoder.Update] encoded as JSON frames appended to dst (nil
// when nothing changed). An update whose encoding exceeds max bytes is
// split by rows: the first frame carries the state (and is full when the
// update is), the others are deltas with the remaining rows, each with
// its own styles; a row alone always fits (a screen row of the largest
// pane encodes in far less than ipc.MaxFrame).
func (e *Encoder) Frames(emu *terminal.Emulator, max int, dst [][]byte) [][]byte {
	f, ok := e.Update(emu)
	if !ok {
		return dst
	}
	return e.split(f, max, dst)
}

func (e *Encoder) split(f *proto.ScreenFrame, max int, dst [][]byte) [][]byte {
	b := f.AppendJSON(nil)
	if len(b) <= max || len(f.Lines) < 2 {
		return append(dst, b)
	}
	// Re-encode the rows in halves, each with the styles it uses.
	half := len(f.Lines) / 2
	first, second := chunk(f, f.Lines[:half]), chunk(f, f.Lines[half:])
	dst = e.split(first, max, dst)
	second.Full = false
	e.seq++
	second.Seq = e.seq
	return e.split(second, max, dst)
}

// chunk returns a copy of f with only lines, and the styles and links
// they use renumbered.
func chunk(f *proto.ScreenFrame, lines []proto.ScreenRow) *proto.ScreenFrame {
	c := *f
	c.Styles, c.Links, c.Lines = nil, nil, make([]proto.ScreenRow, len(lines))
	index := make(map[int]int)
	for i, r := range lines {
		runs := slices.Clone(r.Runs)
		for k := range runs {
			old := runs[k].Style
			n, ok := index[old]
			if !ok {
				n = len(c.Styles)
				index[old] = n
				st := f.Styles[old]
				c.Styles = append(c.Styles, st)
				if st.Link != 0 {
					for _, l := range f.Links {
						if l.ID == st.Link {
							c.Links = append(c.Links, l)
							break
						}
					}
				}
			}
			runs[k].Style = n
		}
		c.Lines[i] = proto.ScreenRow{Y: r.Y, Wrapped: r.Wrapped, Runs: runs}
	}
	return &c
}
