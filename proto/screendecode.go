package proto

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/paneflow-go/paneflow/internal/jsonscan"
)

// UnmarshalJSON decodes f as [DecodeScreenFrame] does.
func (f *ScreenFrame) UnmarshalJSON(data []byte) error { return DecodeScreenFrame(data, f) }

// DecodeScreenFrame decodes one screen.attach frame into f as json.Unmarshal
// would (members it does not know are skipped, keys match regardless of
// case, a null leaves a member as it was, a list's becomes nil; members are
// merged into what f holds), and rejects what it would reject, but without
// reflection: an attached window decodes every frame of every pane, a
// key's echo among them, and encoding/json's reflection took 16-20 µs of
// CPU per 300-byte echo frame, this 6 (issue 26). On an error f may be
// partly filled.
func DecodeScreenFrame(data []byte, f *ScreenFrame) error {
	if isNull(data) {
		return nil
	}
	return decodeObject(data, "screen frame", func(key string, v []byte) error {
		switch key = foldKey(key, frameKeys); key {
		case "type":
			return decString(v, &f.Type)
		case "surface_id":
			return decUint(v, 64, &f.SurfaceID)
		case "seq":
			return decUint(v, 64, &f.Seq)
		case "full":
			return decBool(v, &f.Full)
		case "output_generation":
			return decUint(v, 64, &f.Generation)
		case "cols":
			return decInt(v, &f.Cols)
		case "rows":
			return decInt(v, &f.Rows)
		case "history_len":
			return decInt(v, &f.HistoryLen)
		case "history_dropped":
			return decUint(v, 64, &f.HistoryDropped)
		case "cursor":
			return decCursor(v, &f.Cursor)
		case "modes":
			return decModes(v, &f.Modes)
		case "alt_screen":
			return decBool(v, &f.AltScreen)
		case "reverse_video":
			return decBool(v, &f.ReverseVideo)
		case "sync_output":
			return decBool(v, &f.SyncOutput)
		case "title":
			return decString(v, &f.Title)
		case "cwd":
			return decString(v, &f.Cwd)
		case "bells":
			return decInt(v, &f.Bells)
		case "colors_changed":
			return decBool(v, &f.ColorsChanged)
		case "colors":
			return decList(v, &f.Colors, decColor)
		case "styles":
			return decList(v, &f.Styles, decStyle)
		case "links":
			return decList(v, &f.Links, decLink)
		case "lines":
			return decList(v, &f.Lines, decRow)
		}
		return nil
	})
}

// The members each decoded object knows, for foldKey.
var (
	frameKeys = []string{"type", "surface_id", "seq", "full", "output_generation", "cols", "rows",
		"history_len", "history_dropped", "cursor", "modes", "alt_screen", "reverse_video", "sync_output",
		"title", "cwd", "bells", "colors_changed", "colors", "styles", "links", "lines"}
	cursorKeys = []string{"x", "y", "visible", "shape", "blink"}
	modesKeys  = []string{"app_cursor", "app_keypad", "bracketed_paste", "focus_events", "mouse",
		"mouse_encoding", "alt_scroll", "kitty_keys"}
	rowKeys = []string{"y", "wrapped", "runs"}
)

// foldKey returns key, or the member of known it matches regardless of
// case (encoding/json's rule) when it is none of them exactly.
func foldKey(key string, known []string) string {
	for _, k := range known {
		if k == key {
			return key
		}
	}
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return key
}

func decCursor(v []byte, c *ScreenCursor) error {
	if isNull(v) {
		return nil
	}
	return decodeObject(v, "cursor", func(key string, v []byte) error {
		switch foldKey(key, cursorKeys) {
		case "x":
			return decInt(v, &c.X)
		case "y":
			return decInt(v, &c.Y)
		case "visible":
			return decBool(v, &c.Visible)
		case "shape":
			return decInt(v, &c.Shape)
		case "blink":
			return decBool(v, &c.Blink)
		}
		return nil
	})
}

func decModes(v []byte, m *ScreenModes) error {
	if isNull(v) {
		return nil
	}
	return decodeObject(v, "modes", func(key string, v []byte) error {
		switch foldKey(key, modesKeys) {
		case "app_cursor":
			return decBool(v, &m.AppCursor)
		case "app_keypad":
			return decBool(v, &m.AppKeypad)
		case "bracketed_paste":
			return decBool(v, &m.BracketedPaste)
		case "focus_events":
			return decBool(v, &m.FocusEvents)
		case "mouse":
			return decInt(v, &m.Mouse)
		case "mouse_encoding":
			return decInt(v, &m.MouseEncoding)
		case "alt_scroll":
			return decBool(v, &m.AltScroll)
		case "kitty_keys":
			return decInt(v, &m.KittyKeys)
		}
		return nil
	})
}

// decColor decodes [index, rgb] as encoding/json decodes a Go array:
// missing elements are 0, extra ones dropped.
func decColor(v []byte, c *ScreenColor) error {
	if isNull(v) {
		return nil
	}
	i := 0
	err := decodeArray(v, "colour", func(e []byte) error {
		if i >= len(c) {
			return nil
		}
		n := uint64(c[i])
		err := decUint(e, 32, &n)
		c[i] = uint32(n)
		i++
		return err
	})
	if err == nil {
		clear(c[i:])
	}
	return err
}

// decStyle is ScreenStyle.UnmarshalJSON.
func decStyle(v []byte, s *ScreenStyle) error {
	var w [5]uint64
	n := 0
	if !isNull(v) {
		err := decodeArray(v, "style", func(e []byte) error {
			if n == len(w) {
				return errors.New("proto: a screen style has at most 5 members")
			}
			err := decUint(e, 32, &w[n])
			n++
			return err
		})
		if err != nil {
			return err
		}
	}
	if w[3] > 0xffff || w[4] > 0xffff {
		return errors.New("proto: a screen style's attrs and link are 16-bit")
	}
	*s = ScreenStyle{Fg: uint32(w[0]), Bg: uint32(w[1]), Underline: uint32(w[2]), Attrs: uint16(w[3]), Link: uint16(w[4])}
	return nil
}

// decLink is ScreenLink.UnmarshalJSON: [id, "uri"].
func decLink(v []byte, l *ScreenLink) error {
	var parts [2][]byte
	n, err := decTuple(v, "link", parts[:])
	if err != nil {
		return err
	}
	if n < 2 {
		return errors.New("proto: a screen link is [id, \"uri\"]")
	}
	var id uint64
	if err := decUint(parts[0], 16, &id); err != nil {
		return err
	}
	if !isNull(parts[0]) {
		l.ID = uint16(id)
	}
	return decString(parts[1], &l.URI)
}

func decRow(v []byte, r *ScreenRow) error {
	if isNull(v) {
		return nil
	}
	return decodeObject(v, "row", func(key string, v []byte) error {
		switch foldKey(key, rowKeys) {
		case "y":
			return decInt(v, &r.Y)
		case "wrapped":
			return decBool(v, &r.Wrapped)
		case "runs":
			return decList(v, &r.Runs, decRun)
		}
		return nil
	})
}

// decRun is ScreenRun.UnmarshalJSON.
func decRun(v []byte, r *ScreenRun) error {
	var parts [3][]byte
	n, err := decTuple(v, "run", parts[:])
	if err != nil {
		return err
	}
	if n < 2 || n > 3 {
		return errors.New("proto: a screen run is [style, cells] or [style, cells, width]")
	}
	*r = ScreenRun{Width: RunNarrow}
	if err := decInt(parts[0], &r.Style); err != nil {
		return err
	}
	if n == 3 {
		if err := decInt(parts[2], &r.Width); err != nil {
			return err
		}
		switch r.Width {
		case RunNarrow, RunWide, RunWideAlone, RunContinuation:
		default:
			return errors.New("proto: a screen run's width is 1, 2, -2 or 0")
		}
	}
	switch c := parts[1]; c[0] {
	case '"':
		s, err := jsonscan.String(c)
		if err != nil {
			return err
		}
		if s == "" {
			return errors.New("proto: a screen run's text is not empty")
		}
		r.Text = s
	case '[':
		r.Clusters = []string{}
		return decodeArray(c, "clusters", func(e []byte) error {
			var s string
			err := decString(e, &s)
			r.Clusters = append(r.Clusters, s)
			return err
		})
	default:
		if err := decInt(c, &r.Blanks); err != nil {
			return err
		}
		if r.Blanks < 0 {
			return errors.New("proto: a screen run's blank count is not negative")
		}
	}
	return nil
}

// decList decodes a JSON array into *dst with dec per element, as
// encoding/json decodes a slice: null makes it nil, [] empty, and an
// element within the old slice's capacity is decoded into what it held.
func decList[T any](v []byte, dst *[]T, dec func([]byte, *T) error) error {
	if isNull(v) {
		*dst = nil
		return nil
	}
	old := (*dst)[:cap(*dst)]
	out := old[:0]
	if out == nil {
		out = []T{}
	}
	err := decodeArray(v, "list", func(e []byte) error {
		var x T
		if i := len(out); i < len(old) {
			x = old[i]
		}
		err := dec(e, &x)
		out = append(out, x)
		return err
	})
	*dst = out
	return err
}

// decodeObject calls fn with each member of the object v, stopping at
// the first error.
func decodeObject(v []byte, what string, fn func(key string, v []byte) error) error {
	var ferr error
	err := jsonscan.Members(v, func(key string, v []byte) {
		if ferr == nil {
			ferr = fn(key, v)
		}
	})
	switch {
	case err != nil && !isSyntax(err):
		return fmt.Errorf("proto: a screen frame's %s is not an object", what)
	case err != nil:
		return err
	}
	return ferr
}

// decTuple reads the members of the JSON array v (null: none) into
// parts, as many as fit, and returns how many v has.
func decTuple(v []byte, what string, parts [][]byte) (int, error) {
	n := 0
	if isNull(v) {
		return 0, nil
	}
	err := decodeArray(v, what, func(e []byte) error {
		if n < len(parts) {
			parts[n] = e
		}
		n++
		return nil
	})
	return n, err
}

// decodeArray calls fn with each element of the array v, stopping at the
// first error.
func decodeArray(v []byte, what string, fn func(e []byte) error) error {
	if len(v) == 0 || v[0] != '[' {
		if err := jsonscan.Elements(v, fn); isSyntax(err) {
			return err
		}
		return fmt.Errorf("proto: a screen frame's %s is not an array", what)
	}
	return jsonscan.Elements(v, fn)
}

func isSyntax(err error) bool {
	var se *jsonscan.SyntaxError
	return errors.As(err, &se)
}

// isNull reports whether the value v is null (values come trimmed).
func isNull(v []byte) bool {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t' || v[len(v)-1] == '\n' || v[len(v)-1] == '\r') {
		v = v[:len(v)-1]
	}
	return string(v) == "null"
}

var errNotInteger = errors.New("proto: a screen frame's number is not an integer in range")

func decString(v []byte, dst *string) error {
	if isNull(v) {
		return nil
	}
	if len(v) == 0 || v[0] != '"' {
		return errors.New("proto: a screen frame's string member is not a string")
	}
	s, err := jsonscan.String(v)
	if err == nil {
		*dst = s
	}
	return err
}

func decBool(v []byte, dst *bool) error {
	switch string(v) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return errors.New("proto: a screen frame's flag is not true or false")
	}
	return nil
}

// decUint decodes a JSON integer of bits bits, unsigned.
func decUint(v []byte, bits int, dst *uint64) error {
	if isNull(v) {
		return nil
	}
	n, ok := parseUint(v, bits)
	if !ok {
		return errNotInteger
	}
	*dst = n
	return nil
}

// decInt decodes a JSON integer that fits an int.
func decInt(v []byte, dst *int) error {
	if isNull(v) {
		return nil
	}
	neg := len(v) > 0 && v[0] == '-'
	u := v
	if neg {
		u = v[1:]
	}
	n, ok := parseUint(u, 64)
	switch {
	case !ok, !neg && n > math.MaxInt, neg && n > -math.MinInt:
		return errNotInteger
	case neg:
		*dst = -int(n)
	default:
		*dst = int(n)
	}
	return nil
}

// parseUint parses decimal digits only (a JSON number with a fraction or
// an exponent is not an integer to encoding/json either), at most bits
// bits.
func parseUint(v []byte, bits int) (uint64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if bits < 64 && n >= 1<<bits {
		return 0, false
	}
	return n, true
}
