package app

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/paneflow-go/paneflow/internal/vis"
	"github.com/paneflow-go/paneflow/proto"
)

// historyCallTimeout bounds one call of the search, timeline and replay
// views (surface.search_all, ai.history, surface.screens).
const historyCallTimeout = 10 * time.Second

// goCall runs f on a goroutine of its own, counted in s.life.calls; none
// starts once the shell is quitting (stop then waits for them). The
// caller holds the shell's lock.
func (s *shell) goCall(f func()) {
	if s.life.quitting {
		return
	}
	s.life.calls.Go(f)
}

// historyClient reaches the backend's socket methods for the history
// views (both backends serve them).
func (s *shell) historyClient() proto.Client {
	return proto.Client{Caller: s.b.Caller(historyCallTimeout)}
}

// paneClient reaches the server holding window-side pane id for the
// history views (its host's for another host's pane, see hostsBackend)
// and returns the id that server knows the pane by.
func (s *shell) paneClient(id uint64) (proto.Client, uint64) {
	if slot := hostSlot(id); slot != 0 && s.hosts() != nil {
		return proto.Client{Caller: s.hosts().callerAt(slot, historyCallTimeout)}, localID(id)
	}
	return s.historyClient(), id
}

// searchView is the open search over every pane: one query
// (surface.search_all: literal or regex, smart case by default) over the
// scrollback, screen and full-screen history of every pane of every
// workspace, on the window's own server and every remote host at once
// (hostsearch.go), its matches listed under their pane, a host's panes
// under the host's name. Activating a match
// jumps to it, highlighted: in the pane's scrollback (the pane's view
// scrolls there) or in a history screen (the replay view opens at that
// screen). It is a panel: searches run on their own goroutines
// (host.goCall), cancelled when the view is dismissed; only the newest
// query's result is shown. Its widgets are used holding the shell's lock
// (host.guard, host.do).
type searchView struct {
	widget.BaseWidget
	host   historyHost
	list   *pickList
	regex  *widget.Check
	cases  *widget.Select
	status *widget.Label
	body   fyne.CanvasObject
	calls
	rows  []searchRow
	shown string // the query rows are the answer to
	seq   uint64 // the newest query; results of older ones are dropped
}

// searchRow is one row of the search view: a remote host's header (pane
// nil), a pane's header (match nil) or one of its matches. host is the
// pane's host ("" for the window's own server).
type searchRow struct {
	host  string
	pane  *proto.SearchAllPane
	match *proto.SearchAllMatch
}

// The case choices of the search view, in surface.search_all's terms.
var searchCases = []struct{ label, mode string }{
	{"Smart case", proto.CaseSmart},
	{"Match case", proto.CaseSensitive},
	{"Ignore case", proto.CaseInsensitive},
}

var _ panel = (*searchView)(nil)

// newSearchView builds the search over every pane over h. The caller
// holds the shell's lock.
func newSearchView(h historyHost) *searchView {
	v := &searchView{host: h, list: newPickList("Search every pane: scrollback, screens, full-screen history", h.guard), calls: newCalls()}
	v.ExtendBaseWidget(v)
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.regex = widget.NewCheck("Regex", func(bool) { h.guard(v.search) })
	var labels []string
	for _, c := range searchCases {
		labels = append(labels, c.label)
	}
	v.cases = widget.NewSelect(labels, nil)
	v.cases.SetSelectedIndex(0) // before OnChanged: it would run here, under the lock
	v.cases.OnChanged = func(string) { h.guard(v.search) }
	v.list.build = func(i int) fyne.CanvasObject { return searchRowObject(v.rows[i]) }
	v.list.activate = func(i int) {
		h.guard(func() {
			if h.shown(v) && i < len(v.rows) {
				v.activate(v.rows[i])
			}
		})
	}
	v.list.dismiss = func() { h.closePanel(v) }
	v.list.query.OnChanged = func(string) { h.guard(v.search) }
	v.list.setRows(0, 0)
	header := widget.NewLabelWithStyle("Search every pane", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	opts := container.NewHBox(v.regex, v.cases)
	top := container.NewVBox(header, container.NewBorder(nil, nil, nil, opts, v.list.query), v.status)
	v.body = container.NewBorder(top, nil, nil, nil, v.list.scroll)
	v.search()
	return v
}

// CreateRenderer draws the view.
func (v *searchView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.body) }

// focusTarget is the query field.
func (v *searchView) focusTarget() fyne.Focusable { return v.list.query }

// search searches for the query as the options say, on a goroutine of
// its own; the result replaces the rows if no newer query was asked for
// meanwhile. The caller holds the shell's lock.
func (v *searchView) search() {
	v.seq++
	seq := v.seq
	q := v.list.query.Text
	if q == "" {
		v.rows, v.shown = nil, ""
		v.list.setRows(0, 0)
		v.status.SetText("Type to search the scrollback, screen and full-screen history of every pane. Enter jumps to the match.")
		return
	}
	regex := v.regex.Checked
	mode := proto.CaseSmart
	if i := v.cases.SelectedIndex(); i >= 0 {
		mode = searchCases[i].mode
	}
	p := proto.SearchAllParams{Pattern: q, Regex: &regex, Case: &mode}
	search := v.host.searchAll()
	v.host.goCall(func() {
		m, err := mergeSearches(search(v.ctx, p))
		if v.ctx.Err() != nil {
			return
		}
		v.host.do(func() {
			if v.host.shown(v) && v.seq == seq {
				v.shown = q
				v.showResult(m, err)
			}
		})
	})
}

// showResult shows a search's merged result (or its error). The caller
// holds the shell's lock.
func (v *searchView) showResult(m searchMerged, err error) {
	v.rows = v.rows[:0]
	if err != nil {
		v.list.setRows(0, 0)
		v.status.SetText(searchErrorText(err))
		return
	}
	res := m.res
	cursor := -1
	for i := range res.Panes {
		p, host := &res.Panes[i], m.hosts[i]
		if host != "" && (i == 0 || m.hosts[i-1] != host) {
			v.rows = append(v.rows, searchRow{host: host})
		}
		v.rows = append(v.rows, searchRow{host: host, pane: p})
		for j := range p.Matches {
			if cursor < 0 {
				cursor = len(v.rows)
			}
			v.rows = append(v.rows, searchRow{host: host, pane: p, match: &p.Matches[j]})
		}
	}
	// The cursor starts on the first match, not its pane's header.
	v.list.setRows(len(v.rows), max(cursor, 0))
	status := searchSummary(res)
	if len(m.failed) > 0 {
		status += "; not searched: " + strings.Join(m.failed, "; ")
	}
	v.status.SetText(status)
}

// searchSummary is the status line of a search's result.
func searchSummary(res proto.SearchAllResult) string {
	how := "ignoring case"
	if res.CaseSensitive {
		how = "matching case"
	}
	more := ""
	if res.Truncated {
		more = " (more matched: refine the query)"
	}
	if res.MatchCount == 0 {
		return fmt.Sprintf("%s (%s searched, %s)", searchNoMatchText, count(res.PanesSearched, "pane", "panes"), how)
	}
	return fmt.Sprintf("%s in %d of %s, %s%s", count(res.MatchCount, "matching line", "matching lines"), len(res.Panes), count(res.PanesSearched, "pane", "panes"), how, more)
}

// searchRowObject draws one row of the search view.
func searchRowObject(r searchRow) fyne.CanvasObject {
	muted := theme.Color(theme.ColorNamePlaceHolder)
	if r.pane == nil {
		t := canvas.NewText("on "+vis.String(r.host), theme.Color(theme.ColorNamePrimary))
		t.TextStyle = fyne.TextStyle{Bold: true}
		t.TextSize = nameSize + 2
		return t
	}
	if r.match == nil {
		t := canvas.NewText(fmt.Sprintf("%s — workspace %d, %s", vis.String(r.pane.Name), r.pane.Workspace+1, count(len(r.pane.Matches), "match", "matches")), theme.Color(theme.ColorNameForeground))
		t.TextStyle = fyne.TextStyle{Bold: true}
		t.TextSize = nameSize + 1
		return t
	}
	loc := canvas.NewText(matchPlace(*r.match), muted)
	loc.TextSize = nameSize
	loc.TextStyle = fyne.TextStyle{Monospace: true}
	var segs []widget.RichTextSegment
	for _, sg := range matchSegments(r.match.Text, r.match.Spans, 140) {
		st := widget.RichTextStyle{Inline: true, TextStyle: fyne.TextStyle{Monospace: true}, ColorName: theme.ColorNameForeground}
		if sg.hit {
			st.TextStyle.Bold = true
			st.ColorName = theme.ColorNamePrimary
		}
		segs = append(segs, &widget.TextSegment{Text: vis.String(sg.text), Style: st})
	}
	return container.NewBorder(nil, nil, container.NewCenter(loc), nil, widget.NewRichText(segs...))
}

// matchPlace says where a match is, padded to one width.
func matchPlace(m proto.SearchAllMatch) string {
	var p string
	switch m.Source {
	case proto.SourceScrollback:
		p = "scrollback"
	case proto.SourceScreen:
		p = "screen"
	case proto.SourceAltScreen:
		p = "full screen"
	case proto.SourceHistory:
		p = "history"
		if m.Screen != nil {
			p += " #" + strconv.FormatUint(*m.Screen, 10)
		}
		if m.ShownAt != nil {
			if at, err := time.Parse(time.RFC3339Nano, *m.ShownAt); err == nil {
				p += " " + at.Local().Format("15:04")
			}
		}
	default:
		p = m.Source
	}
	return fmt.Sprintf("%-18s", p)
}

// segment is a piece of a matching line: matched text (hit) or not.
type segment struct {
	text string
	hit  bool
}

// matchSegments cuts text into the pieces spans ([start, end) byte
// offsets, in order) mark, showing at most most runes: a longer line is
// cut to a window that starts a little before its first match, with "…"
// where it was cut. Spans out of order, out of range or not on a rune
// boundary are ignored.
func matchSegments(text string, spans [][2]int, most int) []segment {
	from, to := 0, len(text)
	if utf8.RuneCountInString(text) > most {
		start := 0
		if len(spans) > 0 && spans[0][0] <= len(text) {
			start = spans[0][0]
		}
		// Up to 20 runes of context before the first match.
		from = start
		for n := 0; n < 20 && from > 0; n++ {
			_, size := utf8.DecodeLastRuneInString(text[:from])
			from -= size
		}
		to = from
		for n := 0; n < most && to < len(text); n++ {
			_, size := utf8.DecodeRuneInString(text[to:])
			to += size
		}
	}
	var out []segment
	add := func(t string, hit bool) {
		if t != "" {
			out = append(out, segment{t, hit})
		}
	}
	if from > 0 {
		add("…", false)
	}
	at := from
	for _, sp := range spans {
		a, b := max(sp[0], at), min(sp[1], to)
		if a >= b || a > len(text) || !utf8.RuneStart(text[a]) || (b < len(text) && !utf8.RuneStart(text[b])) {
			continue
		}
		add(text[at:a], false)
		add(text[a:b], true)
		at = b
	}
	add(text[at:to], false)
	if to < len(text) {
		add("…", false)
	}
	return out
}

// activate jumps to what a row shows (a pane on another host like one
// of the window's own): a pane's header focuses the pane; a match in the
// scrollback or on a screen scrolls the pane's view to it, highlighted; a
// match in a history screen opens the replay at that screen, highlighted.
// A host's header does nothing. The caller holds the shell's lock.
func (v *searchView) activate(r searchRow) {
	if r.pane == nil {
		return // a host's header
	}
	id := r.pane.SurfaceID
	m := r.match
	if m != nil && m.Source == proto.SourceHistory && m.Screen != nil {
		v.host.openReplay(id, r.pane.Name, *m.Screen, &replayMark{screen: *m.Screen, row: m.Line, spans: m.Spans})
		return
	}
	v.host.revealMatch(id, r.pane.Name, m)
}

// revealMatchLocked closes the overlay, scrolls pane id's view (named
// name) to match m, highlighted, unless m is nil, and focuses the pane.
func (s *shell) revealMatchLocked(id uint64, name string, m *proto.SearchAllMatch) {
	s.closeOverlayLocked()
	if m != nil {
		v := s.viewLocked(id)
		if v == nil {
			s.chrome.banner.show(fmt.Sprintf("search: pane %s is closed", vis.String(name)))
			return
		}
		if !v.Reveal(m.Line, m.Text, m.Spans) {
			s.chrome.banner.show(fmt.Sprintf("search: the line is no longer in pane %s", vis.String(name)))
		}
	}
	s.work.mutate("focus", func() error { return s.b.Focus(id) })
}
