package termview

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// textDoc is a copyDoc over plain lines (ASCII, one column a byte; a "W"
// stands for a wide character, "中", and a "#" for its second half), absolute line first
// the first. Rows are padded with blanks to cols.
type textDoc struct {
	first int
	cols  int
	lines []string
	reads int // row calls
}

func (d *textDoc) span() (int, int) { return d.first, d.first + len(d.lines) - 1 }

func (d *textDoc) row(line int) []string {
	d.reads++
	i := line - d.first
	if i < 0 || i >= len(d.lines) {
		return nil
	}
	out := make([]string, d.cols)
	for c := range out {
		out[c] = " "
		if c < len(d.lines[i]) {
			out[c] = string(d.lines[i][c])
			switch out[c] {
			case "#":
				out[c] = ""
			case "W":
				out[c] = "中"
			}
		}
	}
	return out
}

// keys turns "5j" or "<C-u>" / "<Esc>" / "<Up>" notation into copy keys.
func keys(s string) []copyKey {
	var out []copyKey
	for len(s) > 0 {
		if s[0] == '<' {
			end := strings.IndexByte(s, '>')
			name := s[1:end]
			s = s[end+1:]
			switch {
			case strings.HasPrefix(name, "C-"):
				out = append(out, copyKey{name: fyne.KeyName(strings.ToUpper(name[2:])), ctrl: true})
			case name == "Esc":
				out = append(out, copyKey{name: fyne.KeyEscape})
			case name == "CR":
				out = append(out, copyKey{name: fyne.KeyReturn})
			default:
				out = append(out, copyKey{name: keyNames[name]})
			}
			continue
		}
		out = append(out, copyKey{r: rune(s[0])})
		s = s[1:]
	}
	return out
}

var keyNames = map[string]fyne.KeyName{
	"Up": fyne.KeyUp, "Down": fyne.KeyDown, "Left": fyne.KeyLeft, "Right": fyne.KeyRight,
	"Home": fyne.KeyHome, "End": fyne.KeyEnd, "PageUp": fyne.KeyPageUp, "PageDown": fyne.KeyPageDown,
	"F1": fyne.KeyF1,
}

// run feeds keys and returns the last action.
func run(m *copyMode, d copyDoc, s string) copyAction {
	var act copyAction
	for _, k := range keys(s) {
		act = m.key(k, d)
	}
	return act
}

func TestCopyModeMotions(t *testing.T) {
	// 100 lines of history (absolute 1000..1099) then a 4-row screen.
	lines := []string{}
	for range 100 {
		lines = append(lines, "history")
	}
	lines = append(lines,
		"  foo.bar(baz) qux",
		"",
		"x W#W# y",
		"last line   ",
	)
	const first, rows, cols = 1000, 4, 20
	screenTop := first + 100
	tests := []struct {
		name    string
		keys    string
		cur     absPoint
		top     int
		wantEnd bool
	}{
		{"l", "l", absPoint{screenTop, 1}, screenTop, false},
		{"h stops at column 0", "hhh", absPoint{screenTop, 0}, screenTop, false},
		{"count", "5l", absPoint{screenTop, 5}, screenTop, false},
		{"count 10", "10l", absPoint{screenTop, 10}, screenTop, false},
		{"l stops at the edge", "99l", absPoint{screenTop, cols - 1}, screenTop, false},
		{"arrows", "<Right><Right><Down><Left>", absPoint{screenTop + 1, 1}, screenTop, false},
		{"^", "^", absPoint{screenTop, 2}, screenTop, false},
		{"$", "$", absPoint{screenTop, 17}, screenTop, true},
		{"0", "$0", absPoint{screenTop, 0}, screenTop, false},
		{"$ sticks to line ends", "$jj", absPoint{screenTop + 2, 7}, screenTop, true},
		{"w over punctuation", "w", absPoint{screenTop, 2}, screenTop, false},
		{"w w", "ww", absPoint{screenTop, 5}, screenTop, false},
		{"w w w", "www", absPoint{screenTop, 6}, screenTop, false},
		{"4w", "4w", absPoint{screenTop, 9}, screenTop, false},
		{"w to the next line", "^7w", absPoint{screenTop + 2, 0}, screenTop, false},
		{"e", "e", absPoint{screenTop, 4}, screenTop, false},
		{"ee", "ee", absPoint{screenTop, 5}, screenTop, false},
		{"b", "$b", absPoint{screenTop, 15}, screenTop, false},
		{"b b", "$bb", absPoint{screenTop, 13}, screenTop, false},
		{"b to the previous line", "jjb", absPoint{screenTop, 15}, screenTop, false},
		{"j onto a wide character's second half", "jj3l", absPoint{screenTop + 2, 2}, screenTop, false},
		{"l over a wide character", "jj4l", absPoint{screenTop + 2, 4}, screenTop, false},
		{"k past the top scrolls into the scrollback", "kk", absPoint{screenTop - 2, 0}, screenTop - 2, false},
		{"j at the bottom stays", "jjjjjj", absPoint{screenTop + 3, 0}, screenTop, false},
		{"g", "g", absPoint{first, 0}, first, false},
		{"G", "gG", absPoint{screenTop + 3, 0}, screenTop, false},
		{"H M L", "kkkkkH", absPoint{screenTop - 5, 0}, screenTop - 5, false},
		{"L", "kkkkkL", absPoint{screenTop - 2, 0}, screenTop - 5, false},
		{"M", "kkkkkM", absPoint{screenTop - 4, 0}, screenTop - 5, false},
		{"Ctrl+U", "<C-u>", absPoint{screenTop - 2, 0}, screenTop - 2, false},
		{"Ctrl+U Ctrl+D", "<C-u><C-u><C-d>", absPoint{screenTop - 2, 0}, screenTop - 2, false},
		{"Ctrl+B", "<C-b>", absPoint{screenTop - 4, 0}, screenTop - 4, false},
		{"Ctrl+B Ctrl+F", "<C-b><C-b><C-f>", absPoint{screenTop - 4, 0}, screenTop - 4, false},
		{"Ctrl+F at the bottom stays", "<C-f>", absPoint{screenTop + 3, 0}, screenTop, false},
		{"Ctrl+B at the top", "g<C-b>", absPoint{first, 0}, first, false},
		{"PageUp", "<PageUp>", absPoint{screenTop - 4, 0}, screenTop - 4, false},
		{"End Home", "<End>j<Home>", absPoint{screenTop + 1, 0}, screenTop, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &textDoc{first: first, cols: cols, lines: lines}
			m := newCopyMode(absPoint{screenTop, 0}, screenTop, rows, cols)
			if act := run(m, d, tc.keys); act != copyMoved {
				t.Errorf("action = %d, want copyMoved", act)
			}
			if m.cur != tc.cur || m.top != tc.top {
				t.Errorf("cursor %v top %d, want %v top %d", m.cur, m.top, tc.cur, tc.top)
			}
			if m.wantEnd != tc.wantEnd {
				t.Errorf("wantEnd = %v, want %v", m.wantEnd, tc.wantEnd)
			}
			if m.count != 0 {
				t.Errorf("count %d left pending", m.count)
			}
		})
	}
}

func TestCopyModeSelection(t *testing.T) {
	d := &textDoc{first: 0, cols: 10, lines: []string{"abcdef", "ghijkl", "mnopqr"}}
	tests := []struct {
		name string
		keys string
		want selection
		act  copyAction
		vis  visual
	}{
		{"none", "l", selection{}, copyMoved, visNone},
		{"v", "lvjl", selection{active: true, unit: unitChar, a0: absPoint{0, 1}, a1: absPoint{0, 2}, h0: absPoint{1, 2}, h1: absPoint{1, 3}}, copyMoved, visChar},
		{"v toggles off", "vlv", selection{}, copyMoved, visNone},
		{"V", "Vj", selection{active: true, unit: unitLine, a0: absPoint{0, 0}, a1: absPoint{0, 10}, h0: absPoint{1, 0}, h1: absPoint{1, 10}}, copyMoved, visLine},
		{"Ctrl+V", "l<C-v>jl", selection{active: true, block: true, unit: unitChar, a0: absPoint{0, 1}, a1: absPoint{0, 2}, h0: absPoint{1, 2}, h1: absPoint{1, 3}}, copyMoved, visBlock},
		{"v then V switches", "vjV", selection{active: true, unit: unitLine, a0: absPoint{0, 0}, a1: absPoint{0, 10}, h0: absPoint{1, 0}, h1: absPoint{1, 10}}, copyMoved, visLine},
		{"o swaps the ends", "vjlo", selection{active: true, unit: unitChar, a0: absPoint{1, 1}, a1: absPoint{1, 2}, h0: absPoint{0, 0}, h1: absPoint{0, 1}}, copyMoved, visChar},
		{"space restarts", "vjl ", selection{active: true, unit: unitChar, a0: absPoint{1, 1}, a1: absPoint{1, 2}, h0: absPoint{1, 1}, h1: absPoint{1, 2}}, copyMoved, visChar},
		{"y yanks the selection", "vly", selection{active: true, unit: unitChar, a0: absPoint{0, 0}, a1: absPoint{0, 1}, h0: absPoint{0, 1}, h1: absPoint{0, 2}}, copyYank, visChar},
		{"y without a selection yanks the line", "jly", selection{active: true, unit: unitLine, a0: absPoint{1, 0}, a1: absPoint{1, 10}, h0: absPoint{1, 0}, h1: absPoint{1, 10}}, copyYank, visLine},
		{"Enter yanks", "v<CR>", selection{active: true, unit: unitChar, a0: absPoint{0, 0}, a1: absPoint{0, 1}, h0: absPoint{0, 0}, h1: absPoint{0, 1}}, copyYank, visChar},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newCopyMode(absPoint{0, 0}, 0, 3, 10)
			if act := run(m, d, tc.keys); act != tc.act {
				t.Errorf("action = %d, want %d", act, tc.act)
			}
			if got := m.selection(); got != tc.want {
				t.Errorf("selection = %+v, want %+v", got, tc.want)
			}
			if m.vis != tc.vis {
				t.Errorf("visual = %d, want %d", m.vis, tc.vis)
			}
		})
	}
}

func TestCopyModeActions(t *testing.T) {
	d := &textDoc{first: 0, cols: 10, lines: []string{"abc"}}
	tests := []struct {
		keys    string
		act     copyAction
		search  int
		stepDir int
	}{
		{"q", copyLeave, 0, 0},
		{"<Esc>", copyLeave, 0, 0},
		{"<C-c>", copyLeave, 0, 0},
		{"n", copyIgnored, 0, 0}, // no search yet
		{"/", copySearch, 1, 0},
		{"?", copySearch, -1, 0},
		{"/n", copyNextMatch, 1, 1},
		{"/N", copyNextMatch, 1, -1},
		{"?n", copyNextMatch, -1, -1},
		{"?N", copyNextMatch, -1, 1},
		{"x", copyIgnored, 0, 0},
		{"<C-x>", copyIgnored, 0, 0},
		{"<F1>", copyIgnored, 0, 0},
		{"3", copyMoved, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.keys, func(t *testing.T) {
			m := newCopyMode(absPoint{0, 0}, 0, 1, 10)
			if act := run(m, d, tc.keys); act != tc.act {
				t.Errorf("action = %d, want %d", act, tc.act)
			}
			if m.searchDir != tc.search || m.stepDir != tc.stepDir {
				t.Errorf("searchDir %d stepDir %d, want %d %d", m.searchDir, m.stepDir, tc.search, tc.stepDir)
			}
		})
	}
}

func TestCopyModeLabel(t *testing.T) {
	d := &textDoc{first: 0, cols: 10, lines: []string{"abc"}}
	for keys, want := range map[string]string{"": "COPY", "v": "VISUAL", "V": "V-LINE", "<C-v>": "V-BLOCK", "vv": "COPY"} {
		m := newCopyMode(absPoint{0, 0}, 0, 1, 10)
		run(m, d, keys)
		if got := m.label(); got != want {
			t.Errorf("label after %q = %q, want %q", keys, got, want)
		}
	}
}

// A word motion over a long blank scrollback ends at the document's
// edge instead of walking forever.
func TestCopyModeWordAtEdges(t *testing.T) {
	lines := make([]string, 5000)
	lines[0] = "word"
	d := &textDoc{first: 0, cols: 4, lines: lines}
	m := newCopyMode(absPoint{4999, 0}, 4996, 4, 4)
	run(m, d, "b")
	if m.cur != (absPoint{0, 0}) || m.top != 0 {
		t.Errorf("b over blank lines: cursor %v top %d, want {0 0} top 0", m.cur, m.top)
	}
	run(m, d, "w")
	if m.cur != (absPoint{4999, 3}) {
		t.Errorf("w to the end: cursor %v, want {4999 3}", m.cur)
	}
	run(m, d, "e")
	if m.cur != (absPoint{4999, 3}) {
		t.Errorf("e at the end: cursor %v, want {4999 3}", m.cur)
	}
}

func TestByteCol(t *testing.T) {
	row := []string{"a", "中", "", "b", " "}
	for _, tc := range []struct{ b, col int }{{0, 0}, {1, 1}, {3, 1}, {4, 3}, {5, 4}, {99, 4}} {
		if got := byteCol(row, tc.b); got != tc.col {
			t.Errorf("byteCol(%d) = %d, want %d", tc.b, got, tc.col)
		}
	}
	for _, tc := range []struct{ col, b int }{{0, 0}, {1, 1}, {3, 4}, {4, 5}} {
		if got := colByte(row, tc.col); got != tc.b {
			t.Errorf("colByte(%d) = %d, want %d", tc.col, got, tc.b)
		}
	}
}
