package app

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/paneflow-go/paneflow/proto"
)

// This file turns a unified diff into the Diff view's rows (issue 32):
// unified or side by side, with line numbers, the review comments under
// the lines they are about, and failing checks' output fenced above.

// diffLine is one line of a unified diff, parsed.
type diffLine struct {
	kind byte   // 'h' file header, '@' hunk header, '+', '-', ' ' context, '\\' a git note
	file string // the file (its new path) the line belongs to
	old  int    // its line number in the old file, 0 when none
	new  int    // its line number in the new file, 0 when none
	text string // header lines whole; code lines without their +/-/space
}

// parseDiff parses the text of `git diff` (several files).
func parseDiff(text string) []diffLine {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	out := make([]diffLine, 0, strings.Count(text, "\n")+1)
	var file string
	var old, nw int
	inHunk := false
	for len(text) > 0 {
		l, rest, _ := strings.Cut(text, "\n")
		text = rest
		switch {
		case strings.HasPrefix(l, "diff --git "):
			file, inHunk = gitHeaderPath(l), false
			out = append(out, diffLine{kind: 'h', file: file, text: l})
		case !inHunk && strings.HasPrefix(l, "+++ "):
			if p, ok := strings.CutPrefix(l, "+++ b/"); ok {
				file = p
				for i := len(out) - 1; i >= 0 && out[i].kind == 'h'; i-- {
					out[i].file = file
				}
			}
			out = append(out, diffLine{kind: 'h', file: file, text: l})
		case strings.HasPrefix(l, "@@"):
			old, nw = hunkStarts(l)
			inHunk = true
			out = append(out, diffLine{kind: '@', file: file, text: l})
		case !inHunk:
			out = append(out, diffLine{kind: 'h', file: file, text: l})
		case strings.HasPrefix(l, "+"):
			out = append(out, diffLine{kind: '+', file: file, new: nw, text: l[1:]})
			nw++
		case strings.HasPrefix(l, "-"):
			out = append(out, diffLine{kind: '-', file: file, old: old, text: l[1:]})
			old++
		case strings.HasPrefix(l, "\\"):
			out = append(out, diffLine{kind: '\\', file: file, text: l})
		default:
			out = append(out, diffLine{kind: ' ', file: file, old: old, new: nw, text: strings.TrimPrefix(l, " ")})
			old++
			nw++
		}
	}
	return out
}

// gitHeaderPath is the path of a "diff --git a/P b/P" line (the later
// "+++ b/" line corrects it for a rename).
func gitHeaderPath(l string) string {
	s := strings.TrimPrefix(l, "diff --git ")
	if n := (len(s) - 1) / 2; len(s)%2 == 1 && s[n] == ' ' && strings.HasPrefix(s, "a/") && s[n+1:n+3] == "b/" && s[2:n] == s[n+3:] {
		return s[n+3:]
	}
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return s[i+3:]
	}
	return s
}

// hunkStarts reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStarts(l string) (old, nw int) {
	f := strings.Fields(l)
	num := func(s string) int {
		s, _, _ = strings.Cut(s[1:], ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	if len(f) >= 3 && strings.HasPrefix(f[1], "-") && strings.HasPrefix(f[2], "+") {
		return num(f[1]), num(f[2])
	}
	return 0, 0
}

// Diff view modes.
const (
	diffUnified = "Unified"
	diffSplit   = "Side by side"
)

// rowRef says what a row of the Diff view shows: a diff line (its index
// in the parsed lines; in side-by-side mode the right side's when it
// has one) or a comment; line is -1 for anything else.
type rowRef struct {
	line    int
	comment string
}

// diffRender is what one rendering of the Diff view needs.
type diffRender struct {
	lines    []diffLine
	mode     string                // diffUnified or diffSplit
	file     string                // the file shown alone, "" for all
	comments []proto.ReviewComment // open comments
	checks   []proto.CheckResult   // the last checks; failing ones are fenced above
}

// Comment and check colours.
var (
	commentFG = color.NRGBA{R: 0xe3, G: 0xb3, B: 0x41, A: 0xff}
	commentBG = color.NRGBA{R: 0xe3, G: 0xb3, B: 0x41, A: 0x30}
	selectBG  = color.NRGBA{R: 0x58, G: 0xa6, B: 0xff, A: 0x50}
)

// maxSplitSide caps a side's width in side-by-side mode; longer lines
// end in "…" there (unified mode shows them whole).
const maxSplitSide = 160

// rows renders r: the grid's rows and what each shows.
func (r diffRender) rows() ([]widget.TextGridRow, []rowRef) {
	rows := make([]widget.TextGridRow, 0, len(r.lines)+len(r.comments))
	refs := make([]rowRef, 0, cap(rows))
	var arena cellArena
	add := func(text string, st widget.TextGridStyle, ref rowRef) {
		rows = append(rows, arena.row(text, st))
		refs = append(refs, ref)
	}
	none := rowRef{line: -1}
	for _, c := range r.checks {
		if c.Status != proto.CheckFail {
			continue
		}
		st := &widget.CustomTextGridStyle{FGColor: diffDel, TextStyle: fyne.TextStyle{Bold: true, Monospace: true}}
		add("✗ check "+c.Name+" failed: "+checkSummary(c)+" — "+c.Command, st, none)
		add("```", nil, none)
		for _, l := range strings.Split(strings.TrimRight(c.Output, "\n"), "\n") {
			add(l, nil, none)
		}
		add("```", nil, none)
		add("", nil, none)
	}
	// Which comment goes under which line: by file and new line; the rest
	// (outdated, or a line the diff does not show) go at the top.
	type key struct {
		file string
		line int
	}
	shown := map[key]bool{}
	for _, l := range r.lines {
		if l.new > 0 && (r.file == "" || l.file == r.file) {
			shown[key{l.file, l.new}] = true
		}
	}
	under := map[key][]proto.ReviewComment{}
	var loose []proto.ReviewComment
	for _, c := range r.comments {
		if r.file != "" && c.Path != r.file {
			continue
		}
		k := key{c.Path, c.EndLine}
		if !c.Outdated && shown[k] {
			under[k] = append(under[k], c)
		} else {
			loose = append(loose, c)
		}
	}
	cst := &widget.CustomTextGridStyle{FGColor: commentFG, BGColor: commentBG}
	addComment := func(pad string, c proto.ReviewComment) {
		for i, b := range strings.Split(c.Body, "\n") {
			head := pad + "  │ "
			if i == 0 {
				head = pad + "  » " + commentTitle(c) + ": "
			}
			add(head+b, cst, rowRef{line: -1, comment: c.ID})
		}
	}
	for _, c := range loose {
		addComment("", c)
	}
	if len(loose) > 0 {
		add("", nil, none)
	}
	// Line numbers as wide as the largest.
	maxNo := 0
	for _, l := range r.lines {
		maxNo = max(maxNo, l.old, l.new)
	}
	w := max(len(strconv.Itoa(maxNo)), 3)
	num := func(n int) string {
		if n == 0 {
			return strings.Repeat(" ", w)
		}
		s := strconv.Itoa(n)
		return strings.Repeat(" ", w-len(s)) + s
	}
	comments := func(l diffLine, pad string) {
		if l.new == 0 {
			return
		}
		for _, c := range under[key{l.file, l.new}] {
			addComment(pad, c)
		}
	}
	lines := r.lines
	if r.mode != diffSplit {
		pad := strings.Repeat(" ", 2*w+1)
		for i, l := range lines {
			if r.file != "" && l.file != r.file {
				continue
			}
			switch l.kind {
			case 'h', '@', '\\':
				add(l.text, lineStyle(l.kind), rowRef{line: i})
			default:
				add(num(l.old)+" "+num(l.new)+" "+string(l.kind)+l.text, lineStyle(l.kind), rowRef{line: i})
				comments(l, pad)
			}
		}
		return rows, refs
	}
	// Side by side: a run of deletions beside the run of additions that
	// follows it; context on both sides.
	side := 0
	for _, l := range lines {
		if l.kind == '+' || l.kind == '-' || l.kind == ' ' {
			side = max(side, len([]rune(l.text)))
		}
	}
	side = min(side, maxSplitSide)
	cell := func(n int, text string) string {
		t := []rune(text)
		if len(t) > side {
			t = append(t[:side-1], '…')
		}
		return num(n) + " " + string(t) + strings.Repeat(" ", side-len(t))
	}
	blank := strings.Repeat(" ", w+1+side)
	pad := strings.Repeat(" ", w+1+side+3+w)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if r.file != "" && l.file != r.file {
			continue
		}
		switch l.kind {
		case 'h', '@', '\\':
			add(l.text, lineStyle(l.kind), rowRef{line: i})
		case ' ':
			add(cell(l.old, l.text)+" │ "+cell(l.new, l.text), nil, rowRef{line: i})
			comments(l, pad)
		default:
			dels, j := []int{}, i
			for ; j < len(lines) && lines[j].kind == '-'; j++ {
				dels = append(dels, j)
			}
			adds := []int{}
			for ; j < len(lines) && lines[j].kind == '+'; j++ {
				adds = append(adds, j)
			}
			for k := range max(len(dels), len(adds)) {
				left, right, ref := blank, blank, rowRef{line: -1}
				if k < len(dels) {
					d := lines[dels[k]]
					left, ref.line = cell(d.old, d.text), dels[k]
				}
				if k < len(adds) {
					a := lines[adds[k]]
					right, ref.line = cell(a.new, a.text), adds[k]
				}
				row := arena.row(left+" │ "+right, nil)
				lw := len([]rune(left))
				for c := range row.Cells {
					if c < lw && k < len(dels) {
						row.Cells[c].Style = styleDel
					} else if c > lw+2 && k < len(adds) {
						row.Cells[c].Style = styleAdd
					}
				}
				rows = append(rows, row)
				refs = append(refs, ref)
				if k < len(adds) {
					comments(lines[adds[k]], pad)
				}
			}
			i = j - 1
		}
	}
	return rows, refs
}

// Styles of the diff's line kinds, shared by every row.
var (
	styleHeader = &widget.CustomTextGridStyle{FGColor: diffHeader, TextStyle: fyne.TextStyle{Bold: true, Monospace: true}}
	styleHunk   = &widget.CustomTextGridStyle{FGColor: diffHunk}
	styleAdd    = &widget.CustomTextGridStyle{FGColor: diffAdd}
	styleDel    = &widget.CustomTextGridStyle{FGColor: diffDel}
)

// lineStyle is the row style of a line kind (nil: the default).
func lineStyle(kind byte) widget.TextGridStyle {
	switch kind {
	case 'h':
		return styleHeader
	case '@':
		return styleHunk
	case '+':
		return styleAdd
	case '-':
		return styleDel
	}
	return nil
}

// textRow is a grid row of text, tabs as four spaces.
func textRow(text string, st widget.TextGridStyle) widget.TextGridRow {
	var a cellArena
	return a.row(text, st)
}

// cellArena hands out the cells of many rows from a few large blocks:
// a diff of 20,000 lines is 30,000 rows, whose cells allocated one row at
// a time cost more in the allocator and the garbage collector than the
// rest of the view's opening.
type cellArena struct{ free []widget.TextGridCell }

// arenaBlock is how many cells a block holds (at least).
const arenaBlock = 1 << 16

// row is textRow with its cells from a.
func (a *cellArena) row(text string, st widget.TextGridStyle) widget.TextGridRow {
	n := utf8.RuneCountInString(text) + 3*strings.Count(text, "\t")
	if len(a.free) < n {
		a.free = make([]widget.TextGridCell, max(n, arenaBlock))
	}
	cells := a.free[:0:n]
	a.free = a.free[n:]
	for _, c := range text {
		if c == '\t' {
			cells = append(cells, widget.TextGridCell{Rune: ' '}, widget.TextGridCell{Rune: ' '}, widget.TextGridCell{Rune: ' '}, widget.TextGridCell{Rune: ' '})
			continue
		}
		cells = append(cells, widget.TextGridCell{Rune: c})
	}
	return widget.TextGridRow{Cells: cells, Style: st}
}

// commentTitle names a comment: its id, lines, and outdated or sent.
func commentTitle(c proto.ReviewComment) string {
	s := c.ID + " " + c.Path + ":" + strconv.Itoa(c.StartLine)
	if c.EndLine != c.StartLine {
		s += "–" + strconv.Itoa(c.EndLine)
	}
	if c.Outdated {
		s += " (outdated: the code is gone)"
	}
	if c.Sent > 0 {
		s += fmt.Sprintf(" (sent %d×)", c.Sent)
	}
	return s
}

// checkSummary is a check result in a few words: "pass 1.2 s",
// "fail (exit 1) 3.4 s", "running".
func checkSummary(c proto.CheckResult) string {
	s := c.Status
	switch {
	case c.TimedOut:
		s += " (timed out)"
	case c.ExitCode != nil && *c.ExitCode != 0:
		s += fmt.Sprintf(" (exit %d)", *c.ExitCode)
	}
	if c.Status != proto.CheckRunning {
		s += fmt.Sprintf(" %.1f s", float64(c.DurationMS)/1000)
	}
	return s
}
