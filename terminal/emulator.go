package terminal

import (
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// DefaultScrollback is the number of scrollback lines an emulator keeps when
// [EmulatorOptions.Scrollback] is zero.
const DefaultScrollback = 10000

// NoScrollback, as [EmulatorOptions.Scrollback], keeps no scrollback at all.
const NoScrollback = -1

// Limits on out-of-line tables, so hostile output cannot grow memory without
// bound. Past them, new clusters keep only their first code point and new
// hyperlinks are dropped.
const (
	maxClusters = 1 << 16
	maxLinks    = 1 << 12
	maxTitleLen = 4096
)

// EmulatorOptions configures [NewEmulator]. The zero value is a usable
// default: 10,000 lines of scrollback, no replies, OSC 52 ignored.
type EmulatorOptions struct {
	// Scrollback is the number of lines kept above the screen: 0 means
	// DefaultScrollback and NoScrollback keeps none.
	Scrollback int

	// Reply receives bytes the terminal sends back to the program (answers
	// to DA, DSR, CPR, DECRQM and colour queries). It is called after the
	// emulator's lock is released, from the goroutine that called Write,
	// and must not block; nil discards replies.
	Reply func(p []byte)

	// AllowOSC52 lets programs set the clipboard with OSC 52. When false
	// (the default) such requests are ignored. Queries are never answered.
	AllowOSC52 bool

	// Clipboard receives OSC 52 writes when AllowOSC52 is set: the
	// selection letters (e.g. "c") and the decoded data. It is called
	// after the lock is released and must not block.
	Clipboard func(selection string, data []byte)

	// Bell is called (outside the lock) for each BEL the program prints.
	Bell func()

	// AllowChecksum lets programs ask for the checksum of a rectangle of
	// the screen (DECRQCRA), which conformance suites use to read cells
	// back. Off by default, as in xterm: it lets a program read the screen.
	AllowChecksum bool

	// Foreground and Background are the default colours reported to
	// OSC 10/11 queries. Zero values report a light grey on black.
	Foreground, Background [3]uint8

	// Resized is called (outside the lock) after the program changed the
	// screen's width itself (DECCOLM, deccolm.go), or a full reset undid
	// that, with the new size: the owner of the pseudo-terminal sets its
	// size to match, so the program sees it. nil: nobody is told. It is
	// not called for Resize.
	Resized func(cols, rows int)

	// ScreenHistoryBytes bounds the history of the alternate screen
	// ([Emulator.ScreenHistory]) in bytes: 0 means
	// DefaultScreenHistoryBytes and NoScreenHistory keeps none.
	ScreenHistoryBytes int
}

// Emulator is an xterm-compatible screen model: it parses what a program
// writes (via [Emulator.Write]) into a grid of cells with scrollback, and
// answers read-side queries (snapshots, text, search).
//
// Construct it with [NewEmulator]; the zero value is not usable. All methods
// are safe for concurrent use: one goroutine typically calls Write while
// others take snapshots. Write holds the lock for the duration of one chunk;
// read methods hold it only to copy what they need.
type Emulator struct {
	mu sync.Mutex

	opts    EmulatorOptions
	histCap int

	cols, rows int
	main, alt  *screen
	cur        *screen // main or alt
	hist       history

	// Cursor state on the current screen.
	x, y     int
	wrapNext bool // the last print reached the right margin; next print wraps first
	pen      Style

	top, bot int // scroll region, inclusive rows

	tabs []bool

	// Modes.
	originMode   bool
	autowrap     bool
	insertMode   bool
	newlineMode  bool // LNM: LF also returns the carriage
	cursorHidden bool
	cursorShape  CursorShape
	cursorBlink  bool
	reverseVideo bool
	syncOutput   bool
	in           InputModes
	// reverseWrap (?45) lets BS at the left edge go back into a line that
	// wrapped; reverseWrapAll (?1045) into any line, top to bottom.
	reverseWrap, reverseWrapAll bool
	// lrmm is DECLRMM (?69): left and right (inclusive columns, set by
	// DECSLRM) bound printing, scrolling and editing. While it is off they
	// are the screen's edges and nothing looks at them.
	lrmm        bool
	left, right int
	// protect is which protection the last DECSCA or SPA chose (cells
	// carry one attrProtected flag; the mode says which erasures honour it).
	protect protectMode
	// level is the conformance level DECSCL set (1 = VT100 … 4 = VT400);
	// features of a higher level are ignored below it.
	level int
	// cellW, cellH are a cell's size in pixels for the window reports
	// (SetCellPixels); 0 when unknown.
	cellW, cellH int
	// rectExtent is DECSACE 2: DECCARA/DECRARA work on the exact
	// rectangle rather than the stream of text from its first to last cell.
	rectExtent bool
	// c1 is S8C1T: replies use 8-bit C1 controls (setC1).
	c1 bool
	// allowColm is ?40 (allow 80⇄132): DECCOLM acts only while it is on;
	// col132 is DECCOLM's state (?3). layoutCols is the width the last
	// Resize (or NewEmulator) gave, which a full reset returns to
	// (deccolm.go).
	allowColm, col132 bool
	layoutCols        int

	// Character sets: G0–G3 designations and which is invoked into GL.
	charsets  [4]charset
	gl        int
	gr        int // the set invoked into GR (LS1R/LS2R/LS3R): reported, never used to decode, as input is UTF-8
	singleSS  int // SS2/SS3 single shift pending: 2 or 3, else 0
	lineDraw  bool
	lastPrint rune // for REP

	// colors are the colours programs set (OSC 4, 10-19); nil when none.
	// Replaced, never modified, on each change (see ProgramColors).
	colors *ProgramColors

	title, iconTitle string
	titleStack       []string
	cwd              string

	clusters  []string
	clusterID map[string]int32
	links     []string // index = id-1
	linkID    map[string]uint16

	parser *ansi.Parser
	params [parser.MaxParamsSize]ansi.Param // fastCSI's parameter buffer
	// slowPath disables fastCSI/fastESC (tests compare both paths).
	slowPath bool
	partial  [utf8.UTFMax]byte // an incomplete UTF-8 sequence held over from the last Write
	npart    int

	gen     uint64
	changed chan struct{}
	printed bool // Write was given output at least once
	bells   int

	// shots is the alternate screen's history (nil: none kept;
	// screencapture.go).
	shots *ScreenHistory

	// Deferred callbacks, collected under the lock and run after it.
	replies  []byte
	clipSel  string
	clipData []byte
	clipSet  bool
	rang     int
	resized  bool // the width changed under Write (DECCOLM): tell opts.Resized
}

// CursorShape is the cursor style a program selected with DECSCUSR. The zero
// value is the user's default (a block).
type CursorShape uint8

const (
	CursorDefault CursorShape = iota
	CursorBlock
	CursorUnderline
	CursorBar
)

// charset is a character set designated into G0-G3 (charsets.go).
type charset uint8

const (
	charsetASCII charset = iota
	charsetDECSpecial
	charsetUK
	charsetLatin1       // ISO Latin-1 supplemental, a 96-character set (ESC - A …)
	charsetDECSupp      // DEC Supplemental Graphic (ESC ( <)
	charsetDECTechnical // DEC Technical (ESC ( >)
)

// screen is one of the two screens (main or alternate).
type screen struct {
	rows  []*row
	saved savedCursor
	keys  keyFlagStack // kitty keyboard flags: each screen has its own stack
}

type savedCursor struct {
	valid      bool
	x, y       int
	wrapNext   bool
	pen        Style
	originMode bool
	charsets   [4]charset
	gl, gr     int
}

// row is one screen line.
type row struct {
	cells []Cell
	// used is an upper bound on the written extent: every cell at index
	// used or beyond is the zero Cell.
	used int
	// wrapped reports that the line continues on the next row (soft wrap).
	wrapped bool
	// rich reports that some cell may hold a style or a non-ASCII
	// character. While it is false the row is plain ASCII text in the
	// default style, which scrollback encodes without inspecting styles.
	rich bool
	// size is the line's DECDWL/DECDHL size; a double one holds only
	// halfCols columns of text (linesize.go).
	size LineSize
}

func newRow(cols int) *row { return &row{cells: make([]Cell, cols)} }

func (r *row) clear() {
	clear(r.cells[:r.used])
	r.used = 0
	r.wrapped = false
	r.rich = false
	r.size = LineSingle
}

// isRich reports whether writing c makes a row rich.
func isRich(c Cell) bool { return c.Style != (Style{}) || c.Char >= 0x80 }

// fill sets cells [a, b) to c, keeping used accurate.
func (r *row) fill(a, b int, c Cell) {
	if a >= b {
		return
	}
	if c == (Cell{}) {
		if a >= r.used {
			return
		}
		if b > r.used {
			b = r.used
		}
		clear(r.cells[a:b])
		if b == r.used {
			r.used = a
		}
		return
	}
	r.rich = r.rich || isRich(c)
	for i := a; i < b; i++ {
		r.cells[i] = c
	}
	if b > r.used {
		r.used = b
	}
}

func newScreen(cols, rows int) *screen {
	s := &screen{rows: make([]*row, rows)}
	for i := range s.rows {
		s.rows[i] = newRow(cols)
	}
	return s
}

// NewEmulator returns an emulator with a cols×rows screen (each at least 1).
func NewEmulator(cols, rows int, o EmulatorOptions) *Emulator {
	cols, rows = max(cols, 1), max(rows, 1)
	e := &Emulator{opts: o, cols: cols, rows: rows, layoutCols: cols}
	switch {
	case o.Scrollback == 0:
		e.histCap = DefaultScrollback
	case o.Scrollback < 0:
		e.histCap = 0
	default:
		e.histCap = o.Scrollback
	}
	e.hist.setCap(e.histCap)
	e.shots = newScreenHistoryFor(o.ScreenHistoryBytes)
	e.main = newScreen(cols, rows)
	e.cur = e.main
	e.parser = ansi.NewParser()
	e.parser.SetDataSize(1 << 16)
	e.parser.SetHandler(ansi.Handler{
		Print:     e.handlePrint,
		Execute:   e.execute,
		HandleCsi: e.handleCSI,
		HandleEsc: e.handleESC,
		HandleOsc: e.handleOSC,
		HandleDcs: e.handleDCS,
	})
	e.resetState()
	return e
}

// resetState puts modes, cursor and tabs into their power-on state without
// touching screen contents or scrollback.
func (e *Emulator) resetState() {
	e.x, e.y, e.wrapNext = 0, 0, false
	e.pen = Style{}
	e.top, e.bot = 0, e.rows-1
	e.originMode, e.insertMode, e.newlineMode = false, false, false
	e.autowrap = true
	e.cursorHidden, e.cursorShape, e.cursorBlink = false, CursorDefault, false
	e.reverseVideo, e.syncOutput = false, false
	e.reverseWrap, e.reverseWrapAll = false, false
	e.lrmm, e.left, e.right = false, 0, e.cols-1
	e.protect = protectNone
	e.level = maxLevel
	e.rectExtent, e.c1 = false, false
	e.col132 = false // allowColm stays: xterm's RIS keeps it (deccolm.go)
	e.in = InputModes{}
	e.charsets = [4]charset{}
	e.gl, e.gr, e.singleSS = 0, 2, 0
	e.lineDraw = false
	e.resetTabs()
}

func (e *Emulator) resetTabs() {
	e.tabs = make([]bool, e.cols)
	for i := 8; i < e.cols; i += 8 {
		e.tabs[i] = true
	}
}

// Write parses program output p into the screen. It never fails and never
// blocks on anything but the emulator's own lock; replies the program asked
// for go to [EmulatorOptions.Reply] after the lock is released.
func (e *Emulator) Write(p []byte) (int, error) {
	e.write(p, true)
	return len(p), nil
}

// Notice shows text that Paneflow, not the program, writes into the
// screen (a restored pane's notice, why its program could not start). It
// is parsed as Write parses output, but [Emulator.Printed] does not count
// it: a prompt waiting for the program's first output must not be typed
// ahead of it because of a notice.
func (e *Emulator) Notice(p []byte) {
	e.write(p, false)
}

// write parses p into the screen; program says it is the program's
// output.
func (e *Emulator) write(p []byte, program bool) {
	e.mu.Lock()
	e.writeLocked(p)
	e.printed = e.printed || (program && len(p) > 0)
	ch := e.nextGenLocked()
	replies, clipSet, clipSel, clipData, rang := e.replies, e.clipSet, e.clipSel, e.clipData, e.rang
	e.replies, e.clipSet, e.clipData, e.rang = e.replies[len(e.replies):], false, nil, 0
	resized, cols, rows := e.resized, e.cols, e.rows
	e.resized = false
	e.mu.Unlock()

	if ch != nil {
		close(ch)
	}
	if resized && e.opts.Resized != nil {
		e.opts.Resized(cols, rows)
	}
	if len(replies) > 0 && e.opts.Reply != nil {
		e.opts.Reply(replies)
	}
	if clipSet && e.opts.Clipboard != nil {
		e.opts.Clipboard(clipSel, clipData)
	}
	if e.opts.Bell != nil {
		for range rang {
			e.opts.Bell()
		}
	}
}

// Printed reports whether the program printed anything yet: whether
// [Emulator.Write] was ever given output. A resize or an
// [Emulator.Notice] changes the screen (and the generation
// [Emulator.Watch] reports) without printing.
func (e *Emulator) Printed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.printed
}

// nextGenLocked advances the output generation and returns the channel
// to close once the lock is released (nil when nobody watches).
func (e *Emulator) nextGenLocked() chan struct{} {
	e.gen++
	ch := e.changed
	e.changed = nil
	return ch
}

// ClearScrollback drops the scrollback, as the user's "clear scroll
// history" does (and as ED 3 does on the main screen); the screen stays.
func (e *Emulator) ClearScrollback() { e.apply(func() { e.hist.reset() }) }

// Reset brings the terminal back to its power-on state, as RIS does:
// screen, scrollback, modes, character sets and title. The program is not
// told; the user's "reset terminal" uses it to recover from a program that
// left the terminal in a bad state.
func (e *Emulator) Reset() { e.apply(e.fullReset) }

// apply runs f under the lock as a change of the screen: watchers see a
// new generation.
func (e *Emulator) apply(f func()) {
	e.mu.Lock()
	f()
	ch := e.nextGenLocked()
	resized, cols, rows := e.resized, e.cols, e.rows
	e.resized = false
	e.mu.Unlock()
	if ch != nil {
		close(ch)
	}
	if resized && e.opts.Resized != nil {
		e.opts.Resized(cols, rows)
	}
}

// writeLocked is the parser loop. Printable text and the common C0 controls
// are handled here directly; escape sequences go through the x/ansi state
// machine until it returns to the ground state.
func (e *Emulator) writeLocked(p []byte) {
	if e.npart > 0 {
		p = e.finishPartial(p)
	}
	for len(p) > 0 {
		if st := e.parser.State(); st != parser.GroundState {
			// C0 controls inside escape and control sequences are executed
			// as if they came before the sequence. We run them ourselves:
			// x/ansi's execute action overwrites the sequence's packed
			// command, which would corrupt the sequence being collected.
			if c := p[0]; c < 0x20 && c != 0x18 && c != 0x1a && c != 0x1b && executesInState(st) {
				e.execute(c)
			} else {
				e.parser.Advance(c)
			}
			p = p[1:]
			continue
		}
		c := p[0]
		switch {
		case c >= 0x20 && c < 0x7f:
			n := 1 + printableRun(p[1:])
			e.printASCII(p[:n])
			p = p[n:]
		case c >= 0x80:
			n := 1
			for n < len(p) && p[n] >= 0x80 {
				n++
			}
			e.printUTF8(p[:n], n == len(p))
			p = p[n:]
		case c == 0x1b:
			n := 0
			if len(p) > 1 && !e.slowPath {
				if p[1] == '[' {
					n = e.fastCSI(p)
				} else {
					n = e.fastESC(p)
				}
			}
			if n == 0 {
				e.parser.Advance(c)
				n = 1
			}
			p = p[n:]
		case c == 0x7f:
			if e.lineDraw || e.singleSS != 0 {
				e.printDEL()
			}
			p = p[1:]
		default:
			e.execute(c)
			p = p[1:]
		}
	}
}

// executesInState reports whether the parser state executes C0 controls
// (rather than collecting them into a string or ignoring them).
func executesInState(st parser.State) bool {
	switch st {
	case parser.EscapeState, parser.EscapeIntermediateState,
		parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState,
		parser.DcsEntryState, parser.DcsParamState, parser.DcsIntermediateState:
		return true
	}
	return false
}

// finishPartial completes a UTF-8 sequence split across writes.
func (e *Emulator) finishPartial(p []byte) []byte {
	for len(p) > 0 && p[0] >= 0x80 && p[0] < 0xc0 && e.npart < utf8.UTFMax && !utf8.FullRune(e.partial[:e.npart]) {
		e.partial[e.npart] = p[0]
		e.npart++
		p = p[1:]
	}
	if !utf8.FullRune(e.partial[:e.npart]) && len(p) == 0 {
		return p // still incomplete; wait for more
	}
	buf := e.partial[:e.npart]
	e.npart = 0
	r, _ := utf8.DecodeRune(buf)
	e.printRune(r)
	return p
}

// printUTF8 prints a run of bytes ≥ 0x80 as code points. An incomplete
// sequence at the end is held back for the next Write when the run ends
// the Write (atEnd); else a byte below 0x80 follows it in this Write, so
// it is invalid and printed as U+FFFD where it stands.
func (e *Emulator) printUTF8(b []byte, atEnd bool) {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if atEnd && r == utf8.RuneError && size == 1 && !utf8.FullRune(b) && len(b) < utf8.UTFMax {
			// Possibly a sequence cut by the end of this write. If more
			// input follows in this run it is invalid; otherwise keep it.
			e.npart = copy(e.partial[:], b)
			return
		}
		e.printRune(r)
		b = b[size:]
	}
}

// handlePrint receives printable runes from the x/ansi parser; only reached
// for text that arrives while the parser is mid-sequence, which it then
// hands back as print actions.
func (e *Emulator) handlePrint(r rune) { e.printRune(r) }

// execute handles a C0 control.
func (e *Emulator) execute(c byte) {
	switch c {
	case 0x07: // BEL
		e.bells++
		e.rang++
	case 0x08: // BS
		e.backspace()
	case 0x09: // HT
		e.tabForward(1)
	case 0x0a, 0x0b, 0x0c: // LF, VT, FF
		e.lineFeed()
		if e.newlineMode {
			e.carriageReturn()
		}
	case 0x0d: // CR
		e.carriageReturn()
	case 0x0e: // SO
		e.gl = 1
		e.updateLineDraw()
	case 0x0f: // SI
		e.gl = 0
		e.updateLineDraw()
	}
}

// printDEL prints DEL as the set in GL (or single-shifted) has it when
// that is a 96-character set; otherwise DEL is ignored.
func (e *Emulator) printDEL() {
	g := e.gl
	if e.singleSS != 0 {
		g = e.singleSS
	}
	if e.charsets[g].is96() {
		e.printRune(0x7f)
	}
}

func (e *Emulator) updateLineDraw() {
	e.lineDraw = e.charsets[e.gl] != charsetASCII
}

// printASCII writes a run of printable ASCII bytes with the current pen.
// This is the hot path for plain output.
func (e *Emulator) printASCII(b []byte) {
	if e.lineDraw || e.singleSS != 0 || e.insertMode || e.lrmm {
		for _, c := range b {
			e.printRune(rune(c))
		}
		return
	}
	e.lastPrint = rune(b[len(b)-1])
	cols := e.cols
	for len(b) > 0 {
		if e.wrapNext {
			e.wrapLine()
		}
		r := e.cur.rows[e.y]
		if r.size != LineSingle {
			// Half a line's columns: printRune knows where it ends.
			for _, c := range b {
				e.printRune(rune(c))
			}
			return
		}
		x := e.x
		n := min(cols-x, len(b))
		cells := r.cells[x : x+n]
		if cells[0].Attrs&attrWideCont != 0 && x > 0 {
			r.cells[x-1] = Cell{Style: Style{Bg: r.cells[x-1].Bg}}
		}
		if end := x + n; end < cols && r.cells[end].Attrs&attrWideCont != 0 {
			r.cells[end] = Cell{Style: Style{Bg: r.cells[end].Bg}}
		}
		pen := e.pen
		if pen != (Style{}) {
			r.rich = true
		}
		// Field stores: building a whole Cell value here compiles to a
		// stack temporary with overlapping stores, several times slower.
		for i, c := range b[:n] {
			cell := &cells[i]
			cell.Char = rune(c)
			cell.Style = pen
		}
		if x+n > r.used {
			r.used = x + n
		}
		b = b[n:]
		x += n
		if x >= cols {
			if e.autowrap {
				e.x = cols - 1
				e.wrapNext = true
				continue
			}
			// Without autowrap the rest of the run overwrites the last column.
			if len(b) > 0 {
				cells[n-1].Char = rune(b[len(b)-1])
				b = nil
			}
			x = cols - 1
		}
		e.x = x
	}
}

// wrapLine performs the deferred autowrap: the current row is marked as
// continuing and the cursor moves to the start of the next line.
func (e *Emulator) wrapLine() {
	e.cur.rows[e.y].wrapped = true
	e.wrapNext = false
	x := 0
	if e.lrmm && e.x <= e.right {
		x = e.left
	}
	e.lineFeed()
	e.x = x
}

// printRune prints one code point: it handles character-set translation,
// combining characters (which join the previous cell) and wide characters.
func (e *Emulator) printRune(r rune) {
	if r < 0x80 && (e.lineDraw || e.singleSS != 0) {
		cs := e.charsets[e.gl]
		if e.singleSS != 0 {
			cs = e.charsets[e.singleSS]
			e.singleSS = 0
		}
		r = translateCharset(cs, r)
	}
	if r >= 0x80 && r < 0xa0 {
		return // C1 controls encoded as UTF-8 are not text
	}
	w := runeWidth(r)
	if w == 0 || isRegionalIndicator(r) || isPictographic(r) {
		// Combining marks join the cell before the cursor (dropped at the
		// start of a line, as tmux does); so do emoji after a ZWJ and the
		// second half of a flag.
		c, ok := e.previousCell()
		if ok && (w == 0 || e.joinsCell(c, r)) {
			e.appendToCluster(c, r)
			e.cur.rows[e.y].rich = true
			return
		}
		if w == 0 {
			return
		}
	}
	e.lastPrint = r
	e.putGrapheme(r, w)
}

// previousCell returns the cell the next combining character would join:
// the one just before the cursor on its row.
func (e *Emulator) previousCell() (*Cell, bool) {
	x := e.x
	if !e.wrapNext {
		x--
	}
	if x < 0 {
		return nil, false
	}
	r := e.cur.rows[e.y]
	if r.cells[x].Attrs&attrWideCont != 0 && x > 0 {
		x--
	}
	c := &r.cells[x]
	if c.Char == 0 {
		return nil, false
	}
	return c, true
}

// graphemeLocked returns the text of a cell's Char.
func (e *Emulator) graphemeLocked(ch rune) string {
	if ch&clusterBit != 0 {
		return e.clusters[ch&^clusterBit]
	}
	if ch == 0 {
		return " "
	}
	return string(ch)
}

// clusterEnds returns the last and first code points of a cell's cluster
// and how many code points it has.
func (e *Emulator) clusterEnds(ch rune) (last, first rune, n int) {
	if ch&clusterBit == 0 {
		return ch, ch, 1
	}
	s := e.clusters[ch&^clusterBit]
	first, _ = utf8.DecodeRuneInString(s)
	last, _ = utf8.DecodeLastRuneInString(s)
	return last, first, utf8.RuneCountInString(s)
}

// putGrapheme writes a new cell holding ch of width w (1 or 2).
func (e *Emulator) putGrapheme(ch rune, w int) {
	if e.wrapNext {
		e.wrapLine()
	}
	cols := e.lineEnd(e.cur.rows[e.y]) + 1
	if w > cols {
		w = 1
	}
	if e.x+w > cols {
		if !e.autowrap {
			e.x = max(cols-w, 0)
		} else {
			// A wide character that does not fit wraps to the next line,
			// leaving the last column blank.
			r := e.cur.rows[e.y]
			e.clearWideAt(r, e.x)
			r.fill(e.x, cols, e.eraseCell())
			e.wrapLine()
		}
	}
	r := e.cur.rows[e.y]
	r.rich = r.rich || ch >= 0x80 || e.pen != (Style{})
	if e.insertMode {
		e.insertBlanksTo(r, e.x, w, cols)
	}
	e.clearWideAt(r, e.x)
	if w == 2 {
		e.clearWideAt(r, e.x+1)
		r.cells[e.x] = Cell{Char: ch, Style: e.pen}
		r.cells[e.x].Attrs |= attrWide
		r.cells[e.x+1] = Cell{Style: e.pen}
		r.cells[e.x+1].Attrs |= attrWideCont
	} else {
		r.cells[e.x] = Cell{Char: ch, Style: e.pen}
	}
	if e.x+w > r.used {
		r.used = e.x + w
	}
	e.x += w
	if e.x >= cols {
		e.x = cols - 1
		e.wrapNext = e.autowrap
	}
}

// clearWideAt blanks the other half of a wide character that overlaps
// column x, so overwriting half of a wide glyph never leaves the other half.
func (e *Emulator) clearWideAt(r *row, x int) {
	if x < 0 || x >= len(r.cells) {
		return
	}
	c := r.cells[x]
	switch {
	case c.Attrs&attrWideCont != 0 && x > 0:
		r.cells[x-1] = Cell{Style: Style{Bg: r.cells[x-1].Bg}}
		r.cells[x].Attrs &^= attrWideCont
	case c.Attrs&attrWide != 0 && x+1 < len(r.cells):
		r.cells[x+1] = Cell{Style: Style{Bg: r.cells[x+1].Bg}}
		r.cells[x].Attrs &^= attrWide
	}
}

// eraseCell is what erased cells become: blank, keeping the pen's
// background colour (xterm's "background colour erase").
func (e *Emulator) eraseCell() Cell {
	return Cell{Style: Style{Bg: e.pen.Bg}}
}

// lineFeed moves the cursor down one line, scrolling the region when the
// cursor is on its bottom margin.
func (e *Emulator) lineFeed() {
	e.wrapNext = false
	switch {
	case e.y == e.bot:
		if e.lrmm && (e.x < e.left || e.x > e.right) {
			return // outside the margins the cursor neither passes nor scrolls
		}
		e.scrollUp(1)
	case e.y < e.rows-1:
		e.y++
	}
}

// reverseIndex moves the cursor up, scrolling down at the top margin.
func (e *Emulator) reverseIndex() {
	e.wrapNext = false
	switch {
	case e.y == e.top:
		if e.lrmm && (e.x < e.left || e.x > e.right) {
			return
		}
		e.scrollDown(1)
	case e.y > 0:
		e.y--
	}
}

// scrollUp scrolls the scroll region up by n lines. Lines leaving the top
// of a full-width main-screen region go to scrollback.
func (e *Emulator) scrollUp(n int) {
	top, bot := e.top, e.bot
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	if e.partialWidth() {
		e.scrollRect(n, true)
		return
	}
	rows := e.cur.rows
	toHistory := e.cur == e.main && top == 0
	for i := 0; i < n; i++ {
		r := rows[top]
		if toHistory {
			e.hist.push(e, r)
		}
		copy(rows[top:bot], rows[top+1:bot+1])
		r.clear()
		rows[bot] = r
		if c := e.eraseCell(); c != (Cell{}) {
			r.fill(0, e.cols, c)
		}
	}
}

// scrollDown scrolls the scroll region down by n lines.
func (e *Emulator) scrollDown(n int) {
	top, bot := e.top, e.bot
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	if e.partialWidth() {
		e.scrollRect(n, false)
		return
	}
	rows := e.cur.rows
	for i := 0; i < n; i++ {
		r := rows[bot]
		copy(rows[top+1:bot+1], rows[top:bot])
		r.clear()
		rows[top] = r
		if c := e.eraseCell(); c != (Cell{}) {
			r.fill(0, e.cols, c)
		}
	}
}

// tabForward is HT and CHT: n tab stops right, stopping at the line's end
// (lineEnd). A cursor that cannot move keeps a pending wrap, as in xterm:
// text after a tab at the end of a line goes on the next one.
func (e *Emulator) tabForward(n int) {
	last := e.lineEnd(e.cur.rows[e.y])
	for ; n > 0 && e.x < last; n-- {
		e.wrapNext = false
		x := e.x + 1
		for x < last && !e.tabs[x] {
			x++
		}
		e.x = x
	}
}

// tabBackward is CBT: n tab stops left, stopping at the line's start, or
// in origin mode at the left margin.
func (e *Emulator) tabBackward(n int) {
	e.wrapNext = false
	first := 0
	if e.originMode && e.lrmm {
		first = e.left
	}
	for ; n > 0 && e.x > first; n-- {
		x := e.x - 1
		for x > first && !e.tabs[x] {
			x--
		}
		e.x = x
	}
}

// insertBlanks shifts cells at x and to the right by n, blanking [x, x+n).
func (e *Emulator) insertBlanks(r *row, x, n int) { e.insertBlanksTo(r, x, n, e.cols) }

// insertBlanksTo is insertBlanks within [x, end): what moves past end
// (the right margin) is lost, cells from end on stay.
func (e *Emulator) insertBlanksTo(r *row, x, n, end int) {
	cols := e.cols
	n = min(n, end-x)
	if n <= 0 {
		return
	}
	e.clearWideAt(r, x)
	if end < cols {
		e.clearWideAt(r, end-1)
	}
	copy(r.cells[x+n:end], r.cells[x:end-n])
	// A wide character cut in half at the right margin goes away.
	if last := &r.cells[end-1]; last.Attrs&attrWide != 0 {
		*last = Cell{Style: Style{Bg: last.Bg}}
	}
	blank := e.eraseCell()
	for i := x; i < x+n; i++ {
		r.cells[i] = blank
	}
	r.rich = r.rich || isRich(blank)
	if end < cols {
		r.used = max(r.used, end)
	} else {
		r.used = min(cols, max(r.used+n, x+n))
	}
}

// deleteCells removes n cells at x, shifting the rest left.
func (e *Emulator) deleteCells(r *row, x, n int) { e.deleteCellsTo(r, x, n, e.cols) }

// deleteCellsTo is deleteCells within [x, end): blanks come in at end.
func (e *Emulator) deleteCellsTo(r *row, x, n, end int) {
	cols := e.cols
	n = min(n, end-x)
	if n <= 0 {
		return
	}
	e.clearWideAt(r, x)
	e.clearWideAt(r, x+n)
	if end < cols {
		e.clearWideAt(r, end-1)
	}
	copy(r.cells[x:end-n], r.cells[x+n:end])
	blank := e.eraseCell()
	for i := end - n; i < end; i++ {
		r.cells[i] = blank
	}
	if blank != (Cell{}) {
		r.used = max(r.used, end)
		r.rich = true
	}
}

// moveTo puts the cursor at (x, y), honouring origin mode (relative to
// the scroll region and, with DECLRMM, the left and right margins).
func (e *Emulator) moveTo(x, y int) {
	e.wrapNext = false
	if e.originMode {
		y += e.top
		e.y = clamp(y, e.top, e.bot)
		if e.lrmm {
			e.x = clamp(x+e.left, e.left, e.right)
			return
		}
	} else {
		e.y = clamp(y, 0, e.rows-1)
	}
	e.x = clamp(x, 0, e.cols-1)
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
