package proto

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// Screen streaming: an attached window (package attach) mirrors panes from
// per-pane screen updates instead of program bytes. screen.attach is a
// stream: an [AttachedFrame], then [ScreenFrame]s (the first one of each
// pane full, then deltas: only the rows that changed since the last frame
// this client took), [ScreenClosedFrame]s and heartbeats. The server
// encodes a pane's next frame only when the client's socket took the
// previous one, at most FPS times a second: a slow client gets fewer,
// larger frames, never a backlog. The rest is on demand: scrollback as
// cells (screen.rows), as text (screen.lines), and the window's writes
// (screen.input, screen.resize, screen.clear_scrollback, screen.reset),
// which name a live attachment by its token.

// The frames of screen.attach that are not heartbeats ([HeartbeatFrame]).
const (
	// FrameAttached is the first frame, the acknowledgement.
	FrameAttached = "attached"
	// FrameScreen is a pane's screen update.
	FrameScreen = "screen"
	// FrameScreenClosed says a pane is gone: no more frames for it.
	FrameScreenClosed = "screen_closed"
	// FrameInputRefused says the server refused a screen.input
	// notification of this attachment ([InputRefusedFrame]).
	FrameInputRefused = "input_refused"
)

// Frame rates of screen.attach: the default and the bounds.
const (
	DefaultAttachFPS = 60
	MinAttachFPS     = 1
	MaxAttachFPS     = 240
)

// ScreenAttachParams are screen.attach's params.
type ScreenAttachParams struct {
	// Surfaces are the panes to stream; nil (null or absent) means every
	// pane, including the ones created later. Unknown ids are an error.
	Surfaces []uint64 `json:"surfaces"`
	// FPS is the most frames per second per pane the client wants (nil:
	// [DefaultAttachFPS]; [MinAttachFPS]–[MaxAttachFPS]).
	FPS *int `json:"fps,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenAttachParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	if p.Surfaces != nil {
		o.uints("surfaces", p.Surfaces)
	} else {
		o.key("surfaces")
		o.b = append(o.b, "null"...)
	}
	o.intPtr("fps", p.FPS)
	return o.close()
}

// AttachedFrame is screen.attach's first frame. ID numbers the
// attachment; Token names it to screen.input and the other writes of the
// window, which the server accepts only while the attachment lives.
// ReadOnly, when not empty, says why those writes will be refused while
// the scripting gate is closed: the attaching process runs inside one of
// the server's panes (an agent, not a window; see SECURITY.md).
// InputRefused says the server takes screen.input as a notification (a
// request without an id, not answered) and reports one it refuses on
// this stream as an [InputRefusedFrame]; a server without it must be
// sent screen.input as calls, whose error replies say what was refused.
type AttachedFrame struct {
	Type         string `json:"type"`
	ID           uint64 `json:"id"`
	Token        string `json:"token"`
	ReadOnly     string `json:"read_only,omitempty"`
	InputRefused bool   `json:"input_refused,omitempty"`
}

// InputRefusedFrame says the server refused (did not write) the input of
// a screen.input notification with this attachment's token for pane
// SurfaceID: Code and Message are the error reply a call would have had
// (the pane is closed, the scripting gate is closed to this attachment,
// the data is too long, the server is busy).
type InputRefusedFrame struct {
	Type      string `json:"type"`
	SurfaceID uint64 `json:"surface_id"`
	Code      int    `json:"code"`
	Message   string `json:"message"`
}

// ScreenClosedFrame says that pane SurfaceID was closed.
type ScreenClosedFrame struct {
	Type      string `json:"type"`
	SurfaceID uint64 `json:"surface_id"`
}

// ScreenFrame is one pane's screen update. A Full frame replaces the
// client's mirror: a Cols×Rows screen of blank cells with Lines applied.
// A delta (Full false) has the size of the previous frame and replaces
// only the rows in Lines. Everything else is the pane's whole state as of
// Generation, in every frame.
type ScreenFrame struct {
	Type      string `json:"type"`
	SurfaceID uint64 `json:"surface_id"`
	// Seq counts this client's frames of the pane from 1.
	Seq  uint64 `json:"seq"`
	Full bool   `json:"full,omitempty"`
	// Generation is the emulator's output generation the frame shows.
	Generation uint64 `json:"output_generation"`
	Cols       int    `json:"cols"`
	Rows       int    `json:"rows"`
	// HistoryLen is the number of scrollback lines; HistoryDropped the
	// lines that ever left it (evicted or cleared): HistoryDropped+i
	// names scrollback line i for as long as it exists (screen.rows).
	HistoryLen     int          `json:"history_len"`
	HistoryDropped uint64       `json:"history_dropped"`
	Cursor         ScreenCursor `json:"cursor"`
	Modes          ScreenModes  `json:"modes"`
	AltScreen      bool         `json:"alt_screen,omitempty"`
	ReverseVideo   bool         `json:"reverse_video,omitempty"`
	SyncOutput     bool         `json:"sync_output,omitempty"`
	Title          string       `json:"title,omitempty"`
	Cwd            string       `json:"cwd,omitempty"`
	Bells          int          `json:"bells,omitempty"`
	// ColorsChanged says Colors is the program's colour set now (every
	// full frame, and a delta where they changed); otherwise they stand.
	ColorsChanged bool          `json:"colors_changed,omitempty"`
	Colors        []ScreenColor `json:"colors,omitempty"`
	ScreenCells
}

// ScreenCells are rows of cells with the tables their runs index: the
// changed rows of a [ScreenFrame], the scrollback lines of a
// [ScreenRowsResult].
type ScreenCells struct {
	// Styles are the styles the runs of Lines index.
	Styles []ScreenStyle `json:"styles,omitempty"`
	// Links resolve the hyperlink ids of Styles.
	Links []ScreenLink `json:"links,omitempty"`
	Lines []ScreenRow  `json:"lines,omitempty"`
}

// ScreenCursor is the cursor: its cell (0-based on the screen), whether
// it shows, its shape (0 default, 1 block, 2 underline, 3 bar) and blink.
type ScreenCursor struct {
	X       int  `json:"x"`
	Y       int  `json:"y"`
	Visible bool `json:"visible,omitempty"`
	Shape   int  `json:"shape,omitempty"`
	Blink   bool `json:"blink,omitempty"`
}

// ScreenModes are the input modes the program set that the window needs
// to encode keys, pastes, focus and the mouse. Mouse is the reporting mode
// (0 none, 1 X10 clicks, 2 normal, 3 button-event, 4 any-event) and
// MouseEncoding its encoding (0 X10, 1 UTF-8, 2 SGR, 3 urxvt), as
// package terminal numbers them; KittyKeys the kitty keyboard
// flags in effect.
type ScreenModes struct {
	AppCursor      bool `json:"app_cursor,omitempty"`
	AppKeypad      bool `json:"app_keypad,omitempty"`
	BracketedPaste bool `json:"bracketed_paste,omitempty"`
	FocusEvents    bool `json:"focus_events,omitempty"`
	Mouse          int  `json:"mouse,omitempty"`
	MouseEncoding  int  `json:"mouse_encoding,omitempty"`
	AltScroll      bool `json:"alt_scroll,omitempty"`
	KittyKeys      int  `json:"kitty_keys,omitempty"`
}

// ScreenColor is a colour the program set, [index, 0xRRGGBB]: index 0–255
// a palette entry (OSC 4), 256+d the dynamic colour OSC 10+d.
type ScreenColor [2]uint32

// ScreenLink is a hyperlink id and its URI, [id, "uri"].
type ScreenLink struct {
	ID  uint16
	URI string
}

// MarshalJSON encodes l as [id, "uri"].
func (l ScreenLink) MarshalJSON() ([]byte, error) {
	b := strconv.AppendUint([]byte{'['}, uint64(l.ID), 10)
	b = append(b, ',')
	b = jsonscan.AppendQuoted(b, l.URI)
	return append(b, ']'), nil
}

// UnmarshalJSON decodes [id, "uri"].
func (l *ScreenLink) UnmarshalJSON(data []byte) error {
	var v [2]json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if err := json.Unmarshal(v[0], &l.ID); err != nil {
		return err
	}
	return json.Unmarshal(v[1], &l.URI)
}

// ScreenStyle is how a run's cells are drawn, [fg, bg, underline colour,
// attrs, link] with trailing zeros left out. A colour is 0 for the
// default, 0x1000000|i for palette entry i, 0x2000000|0xRRGGBB for a
// truecolour; attrs are package terminal's Attr bits without the width
// bits (bold 1, faint 2, italic 4, blink 8, inverse 16, hidden 32, strike
// 64, overline 128, underline style in bits 8–10, protected 8192); link a
// hyperlink id of the frame's Links (0 none).
type ScreenStyle struct {
	Fg, Bg, Underline uint32
	Attrs             uint16
	Link              uint16
}

// MarshalJSON encodes s as an array of its non-zero prefix.
func (s ScreenStyle) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s ScreenStyle) appendJSON(b []byte) []byte {
	v := [5]uint64{uint64(s.Fg), uint64(s.Bg), uint64(s.Underline), uint64(s.Attrs), uint64(s.Link)}
	n := len(v)
	for n > 0 && v[n-1] == 0 {
		n--
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, v[i], 10)
	}
	return append(b, ']')
}

// UnmarshalJSON decodes an array of up to five numbers.
func (s *ScreenStyle) UnmarshalJSON(data []byte) error {
	var v []uint32
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if len(v) > 5 {
		return errors.New("proto: a screen style has at most 5 members")
	}
	v = append(v, make([]uint32, 5-len(v))...)
	if v[3] > 0xffff || v[4] > 0xffff {
		return errors.New("proto: a screen style's attrs and link are 16-bit")
	}
	*s = ScreenStyle{Fg: v[0], Bg: v[1], Underline: v[2], Attrs: uint16(v[3]), Link: uint16(v[4])}
	return nil
}

// ScreenRow is one row: Y its index (a screen row of a [ScreenFrame]; a
// scrollback line of a [ScreenRowsResult]), whether it wraps onto the
// next, and its cells as runs from column 0. Cells past the runs are
// blank with the default style.
type ScreenRow struct {
	Y       int         `json:"y"`
	Wrapped bool        `json:"wrapped,omitempty"`
	Runs    []ScreenRun `json:"runs,omitempty"`
}

// Widths of a [ScreenRun]'s cells.
const (
	// RunNarrow cells take one column.
	RunNarrow = 1
	// RunWide cells are wide characters: each is followed by its
	// continuation cell (blank, same style).
	RunWide = 2
	// RunWideAlone cells are wide characters without the continuation
	// cell (the next run holds it).
	RunWideAlone = -2
	// RunContinuation cells are right halves of wide characters.
	RunContinuation = 0
)

// ScreenRun is consecutive cells of one style. On the wire it is an array
// [style, cells] or [style, cells, width], width [RunNarrow] when left
// out: cells is a string whose code points are one cell each, an array of
// strings each one cell's grapheme cluster ("" a blank cell), or a number
// of blank cells.
type ScreenRun struct {
	Style int // index into the Styles of the frame
	// Exactly one of Text, Clusters and Blanks says what the cells hold.
	Text     string
	Clusters []string
	Blanks   int
	Width    int
}

// Cells reports how many cells r covers (continuations included).
func (r ScreenRun) Cells() int {
	n := r.Blanks
	switch {
	case r.Clusters != nil:
		n = len(r.Clusters)
	case r.Text != "":
		n = 0
		for range r.Text {
			n++
		}
	}
	if r.Width == RunWide {
		n *= 2
	}
	return n
}

// MarshalJSON encodes r as its array.
func (r ScreenRun) MarshalJSON() ([]byte, error) { return r.appendJSON(nil), nil }

func (r ScreenRun) appendJSON(b []byte) []byte {
	b = strconv.AppendInt(append(b, '['), int64(r.Style), 10)
	b = append(b, ',')
	switch {
	case r.Clusters != nil:
		b = appendStrings(b, r.Clusters)
	case r.Text != "":
		b = jsonscan.AppendQuoted(b, r.Text)
	default:
		b = strconv.AppendInt(b, int64(r.Blanks), 10)
	}
	if r.Width != RunNarrow {
		b = strconv.AppendInt(append(b, ','), int64(r.Width), 10)
	}
	return append(b, ']')
}

// UnmarshalJSON decodes the array form.
func (r *ScreenRun) UnmarshalJSON(data []byte) error {
	var v []json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if len(v) < 2 || len(v) > 3 {
		return errors.New("proto: a screen run is [style, cells] or [style, cells, width]")
	}
	*r = ScreenRun{Width: RunNarrow}
	if err := json.Unmarshal(v[0], &r.Style); err != nil {
		return err
	}
	if len(v) == 3 {
		if err := json.Unmarshal(v[2], &r.Width); err != nil {
			return err
		}
		switch r.Width {
		case RunNarrow, RunWide, RunWideAlone, RunContinuation:
		default:
			return errors.New("proto: a screen run's width is 1, 2, -2 or 0")
		}
	}
	c := bytes.TrimSpace(v[1])
	var err error
	switch {
	case len(c) > 0 && c[0] == '"':
		r.Text, err = jsonscan.String(c)
		if err == nil && r.Text == "" {
			err = errors.New("proto: a screen run's text is not empty")
		}
	case len(c) > 0 && c[0] == '[':
		err = json.Unmarshal(c, &r.Clusters)
		if err == nil && r.Clusters == nil {
			r.Clusters = []string{}
		}
	default:
		err = json.Unmarshal(c, &r.Blanks)
		if err == nil && r.Blanks < 0 {
			err = errors.New("proto: a screen run's blank count is not negative")
		}
	}
	return err
}

// AppendJSON appends f's JSON encoding (encoding/json's, without
// reflection: a frame of a full screen has thousands of runs).
func (f *ScreenFrame) AppendJSON(b []byte) []byte {
	o := openObject(b)
	o.str("type", f.Type)
	o.uint("surface_id", f.SurfaceID)
	o.uint("seq", f.Seq)
	o.boolOmit("full", f.Full)
	o.uint("output_generation", f.Generation)
	o.int("cols", int64(f.Cols))
	o.int("rows", int64(f.Rows))
	o.int("history_len", int64(f.HistoryLen))
	o.uint("history_dropped", f.HistoryDropped)
	o.key("cursor")
	c := openObject(o.b)
	c.int("x", int64(f.Cursor.X))
	c.int("y", int64(f.Cursor.Y))
	c.boolOmit("visible", f.Cursor.Visible)
	c.intOmit("shape", f.Cursor.Shape)
	c.boolOmit("blink", f.Cursor.Blink)
	o.b = c.close()
	o.key("modes")
	m := openObject(o.b)
	md := f.Modes
	m.boolOmit("app_cursor", md.AppCursor)
	m.boolOmit("app_keypad", md.AppKeypad)
	m.boolOmit("bracketed_paste", md.BracketedPaste)
	m.boolOmit("focus_events", md.FocusEvents)
	m.intOmit("mouse", md.Mouse)
	m.intOmit("mouse_encoding", md.MouseEncoding)
	m.boolOmit("alt_scroll", md.AltScroll)
	m.intOmit("kitty_keys", md.KittyKeys)
	o.b = m.close()
	o.boolOmit("alt_screen", f.AltScreen)
	o.boolOmit("reverse_video", f.ReverseVideo)
	o.boolOmit("sync_output", f.SyncOutput)
	o.strOmit("title", f.Title)
	o.strOmit("cwd", f.Cwd)
	o.intOmit("bells", f.Bells)
	o.boolOmit("colors_changed", f.ColorsChanged)
	if len(f.Colors) > 0 {
		o.key("colors")
		o.b = append(o.b, '[')
		for i, c := range f.Colors {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = strconv.AppendUint(append(o.b, '['), uint64(c[0]), 10)
			o.b = strconv.AppendUint(append(o.b, ','), uint64(c[1]), 10)
			o.b = append(o.b, ']')
		}
		o.b = append(o.b, ']')
	}
	f.ScreenCells.appendMembers(&o)
	return o.close()
}

// appendMembers writes the members of c (omitting empty ones).
func (c *ScreenCells) appendMembers(o *object) {
	if len(c.Styles) > 0 {
		o.key("styles")
		o.b = append(o.b, '[')
		for i, s := range c.Styles {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = s.appendJSON(o.b)
		}
		o.b = append(o.b, ']')
	}
	if len(c.Links) > 0 {
		o.key("links")
		o.b = append(o.b, '[')
		for i, l := range c.Links {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			j, _ := l.MarshalJSON()
			o.b = append(o.b, j...)
		}
		o.b = append(o.b, ']')
	}
	if len(c.Lines) > 0 {
		o.key("lines")
		o.b = append(o.b, '[')
		for i, r := range c.Lines {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			ro := openObject(o.b)
			ro.int("y", int64(r.Y))
			ro.boolOmit("wrapped", r.Wrapped)
			if len(r.Runs) > 0 {
				ro.key("runs")
				ro.b = append(ro.b, '[')
				for k, run := range r.Runs {
					if k > 0 {
						ro.b = append(ro.b, ',')
					}
					ro.b = run.appendJSON(ro.b)
				}
				ro.b = append(ro.b, ']')
			}
			o.b = ro.close()
		}
		o.b = append(o.b, ']')
	}
}

// ScreenRowsParams are screen.rows' params: scrollback lines [From, To)
// of a pane (line 0 the oldest; clipped to what exists; at most
// [MaxScreenRows] lines).
type ScreenRowsParams struct {
	SurfaceID uint64 `json:"surface_id"`
	From      int    `json:"from"`
	To        int    `json:"to"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenRowsParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uint("surface_id", p.SurfaceID)
	o.int("from", int64(p.From))
	o.int("to", int64(p.To))
	return o.close()
}

// MaxScreenRows bounds the lines of one screen.rows or screen.lines call.
const MaxScreenRows = 1000

// ScreenRowsResult is screen.rows' result: the lines as rows of the
// screen's width (Cols; cut or padded as a scrolled-back view shows
// them), each row's Y its line index; HistoryLen and HistoryDropped as in
// [ScreenFrame], read with the lines. The server may return fewer lines
// than asked (the reply must fit a frame); a client asks again from the
// last Y+1.
type ScreenRowsResult struct {
	Cols           int    `json:"cols"`
	HistoryLen     int    `json:"history_len"`
	HistoryDropped uint64 `json:"history_dropped"`
	ScreenCells
}

// MarshalJSON encodes r without reflection.
func (r ScreenRowsResult) MarshalJSON() ([]byte, error) {
	o := openObject(nil)
	o.int("cols", int64(r.Cols))
	o.int("history_len", int64(r.HistoryLen))
	o.uint("history_dropped", r.HistoryDropped)
	r.ScreenCells.appendMembers(&o)
	return o.close(), nil
}

// ScreenLinesParams are screen.lines' params: rows [From, To) of the
// pane's main buffer as text, row 0 the oldest scrollback line (see
// terminal.Emulator.Lines); at most [MaxScreenRows].
type ScreenLinesParams struct {
	SurfaceID uint64 `json:"surface_id"`
	From      int    `json:"from"`
	To        int    `json:"to"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenLinesParams) AppendJSON(dst []byte) []byte {
	return ScreenRowsParams(p).AppendJSON(dst)
}

// ScreenLinesResult is screen.lines' result: the rows' text,
// right-trimmed, from From (possibly fewer than asked: the reply must fit
// a frame).
type ScreenLinesResult struct {
	Text []string `json:"text"`
}

// ScreenInputParams are screen.input's params: Data is written to pane
// SurfaceID's program as it is (keys the window encoded, a paste), by an
// attached window: Token is its [AttachedFrame]'s.
type ScreenInputParams struct {
	Token     string `json:"token"`
	SurfaceID uint64 `json:"surface_id"`
	Data      []byte `json:"data"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenInputParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("token", p.Token)
	o.uint("surface_id", p.SurfaceID)
	o.key("data")
	if p.Data == nil {
		o.b = append(o.b, "null"...)
	} else {
		o.b = append(o.b, '"')
		o.b = base64Append(o.b, p.Data)
		o.b = append(o.b, '"')
	}
	return o.close()
}

// ScreenResizeParams are screen.resize's params: the pane's terminal
// size in cells, set by an attached window (Token).
type ScreenResizeParams struct {
	Token     string `json:"token"`
	SurfaceID uint64 `json:"surface_id"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenResizeParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("token", p.Token)
	o.uint("surface_id", p.SurfaceID)
	o.int("cols", int64(p.Cols))
	o.int("rows", int64(p.Rows))
	return o.close()
}

// ScreenPaneParams are the params of screen.clear_scrollback and
// screen.reset: the pane, and the attached window's Token.
type ScreenPaneParams struct {
	Token     string `json:"token"`
	SurfaceID uint64 `json:"surface_id"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenPaneParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("token", p.Token)
	o.uint("surface_id", p.SurfaceID)
	return o.close()
}

// ScreenShownParams are screen.shown's params: the panes the attached
// window (Token) shows now. Its stream sends the others' frames at most
// [HiddenAttachFPS] a second; nil (null or absent) shows every pane again
// (the stream's start).
type ScreenShownParams struct {
	Token    string   `json:"token"`
	Surfaces []uint64 `json:"surfaces"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p ScreenShownParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.str("token", p.Token)
	o.uints("surfaces", p.Surfaces)
	return o.close()
}

// HiddenAttachFPS is the most frames a second a screen.attach stream
// sends of a pane its window does not show (screen.shown): the mirror
// stays roughly current (a switch to it shows the latest screen at once,
// with one frame's catch-up) while a flooding pane out of sight costs the
// server, the link and the window little.
const HiddenAttachFPS = 1

// ScreenDoneResult is the result of the screen.* writes.
type ScreenDoneResult struct {
	Done bool `json:"done"`
}

// MarshalJSON encodes f with [ScreenFrame.AppendJSON].
func (f ScreenFrame) MarshalJSON() ([]byte, error) { return f.AppendJSON(nil), nil }

// intOmit writes "k":v unless v is 0 (omitempty).
func (o *object) intOmit(k string, v int) {
	if v != 0 {
		o.int(k, int64(v))
	}
}

// base64Append appends data in standard base64, as encoding/json encodes
// a []byte.
func base64Append(dst, data []byte) []byte {
	return base64.StdEncoding.AppendEncode(dst, data)
}
