package terminal

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// blockScreens records n screens into h: a transcript scrolling by one
// or two rows a screen, rows of wide and combining characters, mixed
// case, and a status row new on every screen; row k of the transcript
// holds "Needle-<k>" when k%37 == 0. It returns the texts recorded.
func blockScreens(h *ScreenHistory, n int) []string {
	r := rand.New(rand.NewPCG(34, 7))
	words := []string{"漢字", "e\u0301té", "ＡＢ", "🙂ok", "Read", "EDIT", "tool", "résumé", "a\tb", "Z"}
	line := func(k int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d:", k)
		rr := rand.New(rand.NewPCG(uint64(k), 1))
		for range 3 + rr.IntN(6) {
			b.WriteString(" " + words[rr.IntN(len(words))])
		}
		if k%37 == 0 {
			b.WriteString(fmt.Sprintf(" Needle-%d", k))
		}
		return b.String()
	}
	var texts []string
	top := 0
	for s := range n {
		top += 1 + r.IntN(2)
		var rows []string
		for y := range 12 {
			rows = append(rows, line(top+y))
		}
		rows = append(rows, fmt.Sprintf("status %d", s), "", "> ")
		text := strings.Join(rows, "\n")
		texts = append(texts, text)
		h.add([]byte(text), uint64(s), time.Unix(int64(s), 0))
	}
	return texts
}

// TestRowBlocksRoundTrip: with blocks sealed, deflated and freed many
// times over (a small bound makes small blocks), every held screen reads
// back as recorded, wide and combining characters and tabs included,
// listed and one at a time.
func TestRowBlocksRoundTrip(t *testing.T) {
	h := newScreenHistory(48 << 10)
	texts := blockScreens(h, 1500)
	if h.Dropped() == 0 || h.rows.freed < 10 || len(h.rows.blocks) < 4 {
		t.Fatalf("dropped %d, %d blocks held, %d freed: want the bound reached and blocks freed", h.Dropped(), len(h.rows.blocks), h.rows.freed)
	}
	held := heldTexts(h)
	first := len(texts) - len(held)
	if uint64(first) != h.Dropped() {
		t.Fatalf("held %d of %d, dropped %d", len(held), len(texts), h.Dropped())
	}
	for i, s := range held {
		if s != texts[first+i] {
			t.Fatalf("held screen %d reads\n%q\nrecorded\n%q", first+i+1, s, texts[first+i])
		}
	}
	for _, seq := range []uint64{uint64(first + 1), uint64(first+len(texts)) / 2, uint64(len(texts))} {
		if rec, ok := h.Screen(seq); !ok || rec.Text != texts[seq-1] {
			t.Fatalf("Screen(%d) = %q, %v; want %q", seq, rec.Text, ok, texts[seq-1])
		}
	}
	// What the history counts is what it holds.
	z := 0
	for _, b := range h.rows.blocks {
		z += cap(b.z) + cap(b.filter)
	}
	if z != h.rows.sealed {
		t.Fatalf("blocks hold %d bytes, counted %d", z, h.rows.sealed)
	}
}

// TestRowBlocksFind: a search finds exactly what a brute-force search of
// the held screens finds (literal, folded or not, and regular
// expressions, with and without a literal), whatever block (sealed,
// at its first or last row, or the open one) the matching rows are in.
func TestRowBlocksFind(t *testing.T) {
	h := newScreenHistory(48 << 10)
	blockScreens(h, 1500)
	// Rows that match at the first and the last row of sealed blocks,
	// and in the open block.
	edges := map[string]bool{}
	rd := h.rows.snapshot().reader()
	for _, b := range h.rows.blocks {
		if b.z != nil {
			edges[string(rd.row(b.first))] = true
			edges[string(rd.row(b.first+b.rows-1))] = true
		}
	}
	var patterns []string
	for row := range edges {
		if i := strings.Index(row, ":"); i > 0 {
			patterns = append(patterns, row[:i+1]+" ") // "<k>: " starts exactly one transcript row
		}
	}
	if len(patterns) < 6 || len(h.rows.starts) == 0 {
		t.Fatalf("%d block edges, %d rows in the open block: want several", len(patterns), len(h.rows.starts))
	}
	patterns = append(patterns, "needle-", "NEEDLE-1", "Needle-", "漢字 e\u0301té", "🙂OK", "status 1499", "> ", "a\tb")
	for _, p := range patterns {
		for _, mode := range []CaseMode{CaseSmart, CaseSensitive, CaseInsensitive} {
			got, want := findVsText(t, h, p, false, mode)
			if !slices.Equal(got, want) {
				t.Fatalf("find %q (%v): %d rows, want %d\n got %v\nwant %v", p, mode, len(got), len(want), got, want)
			}
		}
	}
	for _, p := range []string{`Needle-\d*7\b`, `^\d+: [ＡＢ]+`, `(?i)résumé z$`, `ok\s`} {
		got, want := findVsText(t, h, p, true, CaseSmart)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("find /%s/: %d rows, want %d\n got %v\nwant %v", p, len(got), len(want), got, want)
		}
	}
}

// findVsText returns, as "row@screen", the rows h.find gives for the
// query and those a brute-force search of the held screens' texts finds.
func findVsText(t *testing.T, h *ScreenHistory, pattern string, regex bool, mode CaseMode) (got, want []string) {
	t.Helper()
	q, err := NewQuery(pattern, regex, mode)
	if err != nil {
		t.Fatal(err)
	}
	h.Screens(func(rec ScreenRecord) bool {
		for y, row := range strings.Split(rec.Text, "\n") {
			var hit bool
			switch {
			case regex:
				hit = q.re.MatchString(row)
			case q.fold:
				hit = bytes.Contains(bytes.ToLower([]byte(row)), bytes.ToLower([]byte(pattern)))
			default:
				hit = strings.Contains(row, pattern)
			}
			if hit {
				want = append(want, fmt.Sprintf("%d@%d", y, rec.Seq))
			}
		}
		return true
	})
	h.find(q, func(f Found) bool {
		rec, _ := h.Screen(f.Screen)
		if row := strings.Split(rec.Text, "\n")[f.Line]; row != f.Text {
			t.Fatalf("found %q at %d@%d, which reads %q", f.Text, f.Line, f.Screen, row)
		}
		got = append(got, fmt.Sprintf("%d@%d", f.Line, f.Screen))
		return true
	})
	return got, want
}

// TestTrigramFilter: a block's filter holds every trigram of its text in
// either case (no literal in the text is ever skipped), and passes few
// literals the text does not hold.
func TestTrigramFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{10, 300, 3000, 8000} {
		text := make([]byte, size)
		for i := range text {
			text[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -\n\xc3\xa9"[r.IntN(67)]
		}
		f := trigramFilter(text)
		if len(f) < filterMin || len(f) > filterMax || len(f)&(len(f)-1) != 0 {
			t.Fatalf("filter of %d bytes is %d bytes", size, len(f))
		}
		for i := 0; i+3 <= size; i++ {
			for _, fold := range []bool{false, true} {
				lit := text[i:min(size, i+3+r.IntN(6))]
				if fold && !isASCII(lit) {
					continue // a folded literal is ASCII (NewQuery)
				}
				if fold { // what a folded query of it matches: its ASCII letters upper-cased
					lit = bytes.Clone(lit)
					for k, c := range lit {
						if c >= 'a' && c <= 'z' {
							lit[k] = c - 'a' + 'A'
						}
					}
				}
				q := &Query{find: newFinder(lit, fold), fold: fold}
				if !mayHold(f, q.trigrams()) {
					t.Fatalf("text of %d bytes holds %q (fold %v); its filter skips it", size, lit, fold)
				}
			}
		}
		if size > filterMax*8/2 {
			continue // more trigrams than the largest filter has room for at 40 %
		}
		// Literals of 8 bytes the text does not hold: the filter passes
		// few (each trigram's bit is set at most about 40 % of the time).
		passed, absent := 0, 0
		for range 1000 {
			lit := []byte(fmt.Sprintf("%08x", r.Uint32()))
			if bytes.Contains(bytes.ToLower(text), lit) {
				continue
			}
			absent++
			if mayHold(f, (&Query{find: newFinder(lit, true)}).trigrams()) {
				passed++
			}
		}
		if passed*20 > absent {
			t.Fatalf("text of %d bytes (filter %d bytes): %d of %d absent literals pass", size, len(f), passed, absent)
		}
	}
	if (&Query{find: newFinder([]byte("ab"), false)}).trigrams() != nil {
		t.Fatal("a literal of 2 bytes has trigrams")
	}
}

// TestRowBlocksRebase: once row numbers pass rowRebaseAt they start
// again from 0, and every held screen still reads back and is found.
func TestRowBlocksRebase(t *testing.T) {
	defer func(at uint32) { rowRebaseAt = at }(rowRebaseAt)
	plain := newScreenHistory(48 << 10)
	blockScreens(plain, 1500)
	rowRebaseAt = 500
	h := newScreenHistory(48 << 10)
	texts := blockScreens(h, 1500)
	if h.rows.next() >= plain.rows.next()-rowRebaseAt/2 || h.rows.base() > rowRebaseAt/2 {
		t.Fatalf("rows numbered up to %d (%d without rebasing): want a rebase", h.rows.next(), plain.rows.next())
	}
	held := heldTexts(h)
	for i, s := range held {
		if s != texts[len(texts)-len(held)+i] {
			t.Fatalf("held screen %d differs from what was recorded", i)
		}
	}
	for _, p := range []string{"needle-", "status 14"} {
		if got, want := findVsText(t, h, p, false, CaseSmart); len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("find %q: %d rows, want %d", p, len(got), len(want))
		}
	}
}

// TestScreenHistoryAfterResize: a screen recorded before the pane is
// resized reads back as it was shown (the history holds text as shown;
// it is not reflowed), and is found.
func TestScreenHistoryAfterResize(t *testing.T) {
	e := NewEmulator(20, 4, EmulatorOptions{})
	e.Write([]byte("\x1b[?1049h\x1b[Hwide 漢字 row one is long\r\nsecond\x1b[?1049l"))
	e.Resize(8, 3)
	rec, ok := e.ScreenHistory().Screen(1)
	if want := "wide 漢字 row one is\n long\nsecond"; !ok || rec.Text != want {
		t.Fatalf("screen 1 reads %q, want %q", rec.Text, want)
	}
	q, _ := NewQuery("漢字", false, CaseSmart)
	found, _ := e.Find(q, 10)
	if len(found) != 1 || found[0].Source != FoundHistory || found[0].Line != 0 {
		t.Fatalf("found %+v; want row 0 of the history screen", found)
	}
}

// TestRowBlocksLargeScreen: a screen larger than a block (a wide, dense
// TUI) shown again and again with only its status row changing stores
// one new row a screen: its unchanged rows, in older blocks, are still
// deduplicated.
func TestRowBlocksLargeScreen(t *testing.T) {
	h := newScreenHistory(1 << 20)
	rows := make([]string, 100)
	for y := range rows {
		rows[y] = fmt.Sprintf("%3d %s", y, strings.Repeat(fmt.Sprintf("cell%d ", y), 60))[:300]
	}
	for s := range 300 {
		rows[99] = fmt.Sprintf("spinner %d", s)
		h.add([]byte(strings.Join(rows, "\n")), uint64(s), time.Unix(int64(s), 0))
	}
	if n := h.rows.next() - h.rows.base(); n > 100+300 {
		t.Fatalf("%d rows stored for 300 screens of 100 rows, one new a screen; want 399", n)
	}
	if sealed := len(h.rows.blocks); sealed < 3 {
		t.Fatalf("%d blocks sealed; want the screen's rows past two blocks", sealed)
	}
}

// TestScreenHistoryMeta: each held screen reads back when it was first
// and last shown, how many times, and its output generation — through
// key screens and the screens encoded after them, times going backwards
// (a clock step), generations far apart, screens shown again old and
// new, drops and a rebase — listed and one at a time.
func TestScreenHistoryMeta(t *testing.T) {
	defer func(at uint32) { rowRebaseAt = at }(rowRebaseAt)
	type model struct {
		first, last int64
		seen        int
		gen         uint64
	}
	feed := func(h *ScreenHistory) map[string]*model {
		r := rand.New(rand.NewPCG(34, 9))
		byText := map[string]*model{}
		var texts []string
		now := int64(1_700_000_000_000_000_000)
		gen := uint64(1)
		for s := range 2000 {
			now += int64(r.IntN(3_000_000_000)) - 200_000_000 // sometimes backwards
			gen += uint64(r.IntN(1 << 20))
			if s == 1000 {
				gen += 1 << 62
			}
			var text string
			if k := r.IntN(10); k < 3 && len(texts) > 0 {
				text = texts[len(texts)-1-r.IntN(min(len(texts), 40))] // shown again
			} else {
				text = fmt.Sprintf("screen %d\nrow %d\nrow %d\n> ", s, s/3, r.IntN(50))
				texts = append(texts, text)
			}
			if h.add([]byte(text), gen, time.Unix(0, now)) {
				byText[text] = &model{first: now, last: now, seen: 1, gen: gen}
			} else if m := byText[text]; m != nil {
				m.last, m.seen = now, m.seen+1
			}
		}
		return byText
	}
	plain := newScreenHistory(24 << 10)
	feed(plain)
	rowRebaseAt = 400
	h := newScreenHistory(24 << 10)
	byText := feed(h)
	held := 0
	h.Screens(func(rec ScreenRecord) bool {
		held++
		m := byText[rec.Text]
		if m == nil || !rec.First.Equal(time.Unix(0, m.first)) || !rec.Last.Equal(time.Unix(0, m.last)) || rec.Seen != m.seen || rec.Generation != m.gen {
			t.Fatalf("screen %d reads first %v last %v seen %d gen %d; recorded %+v", rec.Seq, rec.First.UnixNano(), rec.Last.UnixNano(), rec.Seen, rec.Generation, m)
		}
		one, ok := h.Screen(rec.Seq)
		if !ok || one.Text != rec.Text || !one.First.Equal(rec.First) || !one.Last.Equal(rec.Last) || one.Seen != rec.Seen || one.Generation != rec.Generation {
			t.Fatalf("Screen(%d) = %+v, listed as %+v", rec.Seq, one, rec)
		}
		return true
	})
	if h.Dropped() == 0 || held < 50 || h.rows.next() >= plain.rows.next()-rowRebaseAt/2 {
		t.Fatalf("held %d, dropped %d, rows up to %d (%d without rebasing): want drops and a rebase", held, h.Dropped(), h.rows.next(), plain.rows.next())
	}
	if len(h.again) == 0 || h.again[0].seq < uint64(h.Dropped())+1 {
		t.Fatalf("again holds %d screens from %v; want those held shown again only", len(h.again), h.again)
	}
}
