package terminal

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// heldTexts returns the texts of every held screen, oldest first.
func heldTexts(h *ScreenHistory) []string {
	var out []string
	h.Screens(func(r ScreenRecord) bool {
		out = append(out, r.Text)
		return true
	})
	return out
}

// TestScreenHistoryLeavingAlt: the screen a program leaves is recorded,
// however it leaves (1049, 1047, 47, RIS), and the main screen never is.
func TestScreenHistoryLeavingAlt(t *testing.T) {
	for _, tc := range []struct{ name, enter, leave string }{
		{"1049", "\x1b[?1049h", "\x1b[?1049l"},
		{"1047", "\x1b[?1047h", "\x1b[?1047l"},
		{"47", "\x1b[?47h", "\x1b[?47l"},
		{"RIS", "\x1b[?1049h", "\x1bc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEmulator(20, 4, EmulatorOptions{})
			e.Write([]byte("main text\r\n"))
			e.Write([]byte(tc.enter + "\x1b[H\x1b[2Jfull screen\r\n  second row   "))
			if got := e.ScreenHistory().Len(); got != 0 {
				t.Fatalf("held %d screens before leaving, want 0", got)
			}
			e.Write([]byte(tc.leave + "after\r\n"))
			got := heldTexts(e.ScreenHistory())
			want := []string{"full screen\n  second row"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("held %q, want %q", got, want)
			}
		})
	}
}

// TestScreenHistoryReset: the user's "reset terminal" while a program is
// full screen keeps what it showed.
func TestScreenHistoryReset(t *testing.T) {
	e := NewEmulator(20, 4, EmulatorOptions{})
	e.Write([]byte("\x1b[?1049hbefore reset"))
	e.Reset()
	if got := heldTexts(e.ScreenHistory()); len(got) != 1 || got[0] != "before reset" {
		t.Fatalf("held %q, want [before reset]", got)
	}
}

func TestRecordScreen(t *testing.T) {
	e := NewEmulator(20, 4, EmulatorOptions{})
	e.Write([]byte("on the main screen"))
	if e.RecordScreen() {
		t.Fatal("RecordScreen stored the main screen")
	}
	e.Write([]byte("\x1b[?1049h"))
	if e.RecordScreen() {
		t.Fatal("RecordScreen stored an empty alternate screen")
	}
	e.Write([]byte("\x1b[Hframe A"))
	if !e.RecordScreen() {
		t.Fatal("RecordScreen did not store frame A")
	}
	if e.RecordScreen() {
		t.Fatal("RecordScreen stored frame A twice")
	}
	e.Write([]byte("\x1b[?2026h\x1b[H\x1b[2Jhalf"))
	if e.RecordScreen() {
		t.Fatal("RecordScreen stored a screen in the middle of a synchronized update")
	}
	e.Write([]byte(" drawn\x1b[?2026l"))
	if !e.RecordScreen() {
		t.Fatal("RecordScreen did not store the finished frame")
	}
	// Frame A again: held once, seen three times.
	e.Write([]byte("\x1b[H\x1b[2Jframe A"))
	if e.RecordScreen() {
		t.Fatal("a screen shown again was stored again")
	}
	var recs []ScreenRecord
	e.ScreenHistory().Screens(func(r ScreenRecord) bool { recs = append(recs, r); return true })
	if len(recs) != 2 || recs[0].Text != "frame A" || recs[0].Seen != 3 || recs[1].Text != "half drawn" || recs[1].Seq != 2 {
		t.Fatalf("records = %+v, want frame A (seen 3), half drawn (seq 2)", recs)
	}
	if recs[0].Last.Before(recs[0].First) {
		t.Fatalf("Last %v before First %v", recs[0].Last, recs[0].First)
	}
}

func TestNoScreenHistory(t *testing.T) {
	e := NewEmulator(20, 4, EmulatorOptions{ScreenHistoryBytes: NoScreenHistory})
	e.Write([]byte("\x1b[?1049hfull\x1b[?1049l"))
	if e.ScreenHistory() != nil || e.RecordScreen() {
		t.Fatal("an emulator without screen history recorded one")
	}
	q, _ := NewQuery("full", false, CaseSmart)
	if found, _ := e.Find(q, 10); len(found) != 0 {
		t.Fatalf("Find = %+v, want nothing", found)
	}
}

// screenText returns a distinct screen of rows×cols: an agent-like frame
// whose rows change a little from one frame to the next.
func screenText(r *rand.Rand, n, rows, cols int) string {
	var b strings.Builder
	for y := range rows {
		if y > 0 {
			b.WriteByte('\n')
		}
		line := fmt.Sprintf("%3d frame %d: %s", y, n, strings.Repeat("lorem ipsum ", 20))
		if r.IntN(4) == 0 {
			line += fmt.Sprintf(" %x", r.Uint64())
		}
		b.WriteString(line[:min(len(line), cols)])
	}
	return b.String()
}

// TestScreenHistoryBound: past the bound the oldest screens go, the rest
// decode to exactly what was recorded (whole, by Screens and by Screen),
// including screens stored against a dropped one.
func TestScreenHistoryBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const limit = 64 << 10
	h := newScreenHistory(limit)
	var texts []string
	now := time.Unix(0, 0)
	for i := range 2000 {
		s := screenText(r, i, 40, 160)
		texts = append(texts, s)
		if !h.add([]byte(s), uint64(i), now) {
			t.Fatalf("screen %d not stored", i)
		}
		if h.Bytes() > limit {
			t.Fatalf("after screen %d: %d bytes held, limit %d", i, h.Bytes(), limit)
		}
	}
	held := heldTexts(h)
	if len(held) == 0 || h.Dropped() == 0 || uint64(len(held))+h.Dropped() != 2000 {
		t.Fatalf("held %d, dropped %d of 2000", len(held), h.Dropped())
	}
	for i, s := range held {
		if want := texts[2000-len(held)+i]; s != want {
			t.Fatalf("held screen %d differs from what was recorded", i)
		}
	}
	first := uint64(2000 - len(held) + 1)
	for _, seq := range []uint64{first, first + 1, first + uint64(len(held))/2, 2000} {
		rec, ok := h.Screen(seq)
		if !ok || rec.Text != texts[seq-1] || rec.Seq != seq {
			t.Fatalf("Screen(%d) = %v, %v; want the recorded text", seq, rec.Seq, ok)
		}
	}
	if _, ok := h.Screen(first - 1); ok {
		t.Fatal("a dropped screen was returned")
	}
	if _, ok := h.Screen(2001); ok {
		t.Fatal("a screen never recorded was returned")
	}
	t.Logf("%d screens of 40x160 in %d bytes (%.0f bytes each)", len(held), h.Bytes(), float64(h.Bytes())/float64(len(held)))
}

// TestScreenHistoryTooLarge: a screen whose text alone passes the bound
// is not kept (and nothing held is dropped for it).
func TestScreenHistoryTooLarge(t *testing.T) {
	h := newScreenHistory(1000)
	h.add([]byte("small"), 1, time.Time{})
	r := rand.New(rand.NewPCG(3, 4))
	big := make([]byte, 4000)
	for i := range big {
		big[i] = byte('!' + r.IntN(90))
	}
	if h.add(big, 2, time.Time{}) {
		t.Fatal("a screen larger than the bound was stored")
	}
	if got := heldTexts(h); len(got) != 1 || got[0] != "small" {
		t.Fatalf("held %q, want [small]", got)
	}
}

// redraw makes a program redraw its whole alternate screen n times, each
// frame different, recording every frame as a Terminal would when it
// settles (the worst case: every frame recorded).
func redraw(e *Emulator, r *rand.Rand, n int) {
	for i := range n {
		e.Write([]byte("\x1b[H\x1b[2J" + strings.ReplaceAll(screenText(r, i, 50, 200), "\n", "\r\n")))
		e.RecordScreen()
	}
}

// TestScreenHistoryMemoryBound: a program redrawing its full screen
// without end keeps the live heap of the history within its bound (the
// history's own count, and the heap the garbage collector finds live).
func TestScreenHistoryMemoryBound(t *testing.T) {
	const limit = 128 << 10
	r := rand.New(rand.NewPCG(5, 6))
	e := NewEmulator(200, 50, EmulatorOptions{ScreenHistoryBytes: limit})
	e.Write([]byte("\x1b[?1049h"))
	redraw(e, r, 50) // warm up: pools, the emulator's own buffers
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	redraw(e, r, 1500)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	h := e.ScreenHistory()
	if h.Bytes() > limit || h.Dropped() == 0 {
		t.Fatalf("history holds %d bytes (limit %d), dropped %d", h.Bytes(), limit, h.Dropped())
	}
	// The heap grows by what the history holds (≤ the bound, its count
	// being honest) and a little rounding (the dedup map keeps its peak size); the pooled compressor, shared
	// by all panes, is out of both measurements (two collections empty
	// the pool). A history keeping every frame would hold 1500 × ~1 KB.
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	if grew > limit+32<<10 && !raceOn { // the race detector's shadow memory and pools differ
		t.Fatalf("live heap grew %d bytes over 1500 frames; bound %d", grew, limit)
	}
	runtime.KeepAlive(e)
	t.Logf("%d screens held in %d bytes, %d dropped; heap grew %d bytes", h.Len(), h.Bytes(), h.Dropped(), grew)
}

// BenchmarkScreenHistoryRedraw reports what recording a constantly
// redrawing 200×50 program costs per frame, and the heap the history
// holds once full (bound 1 MiB).
func BenchmarkScreenHistoryRedraw(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	e := NewEmulator(200, 50, EmulatorOptions{})
	e.Write([]byte("\x1b[?1049h"))
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	redraw(e, r, b.N)
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	h := e.ScreenHistory()
	if h.Bytes() > h.Limit() {
		b.Fatalf("history holds %d bytes, limit %d", h.Bytes(), h.Limit())
	}
	b.ReportMetric(float64(h.Bytes()), "history-bytes")
	b.ReportMetric(float64(h.Len()), "screens")
	b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)), "heap-grew-bytes")
}

// TestSettler walks the settle state machine through a program's life
// on the alternate screen.
func TestSettler(t *testing.T) {
	var s settler
	t0 := time.Unix(100, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	if !s.note(1, at(0)) {
		t.Fatal("the first output did not arm a check")
	}
	if s.note(2, at(10*time.Millisecond)) {
		t.Fatal("output while a check is pending armed another")
	}
	// Output since the note: not settled, check again.
	if rec, again := s.check(true, 3, at(settleQuiet)); rec || !again {
		t.Fatalf("check after output = %v, %v; want no record, again", rec, again)
	}
	// Quiet for a whole interval: record, stop checking.
	if rec, again := s.check(true, 3, at(2*settleQuiet)); !rec || again {
		t.Fatalf("check after quiet = %v, %v; want record, stop", rec, again)
	}
	// A program that never stops: recorded every settleBusy.
	start := at(time.Second)
	if !s.note(10, start) {
		t.Fatal("output after settling did not arm a check")
	}
	var records int
	gen := uint64(10)
	for i := 1; i <= 40; i++ {
		gen++
		rec, again := s.check(true, gen, start.Add(time.Duration(i)*settleQuiet))
		if !again {
			t.Fatalf("check %d stopped while output kept coming", i)
		}
		if rec {
			records++
		}
	}
	every := int((settleBusy + settleQuiet - 1) / settleQuiet) // checks per record
	if want := 40 / every; records != want {
		t.Fatalf("recorded %d times over %v of constant output, want %d", records, 40*settleQuiet, want)
	}
	// Leaving the alternate screen stops the checks without a record
	// (the emulator took the last screen itself).
	if rec, again := s.check(false, gen+1, start.Add(41*settleQuiet)); rec || again {
		t.Fatalf("check after leaving = %v, %v; want neither", rec, again)
	}
	if !s.note(gen+2, start.Add(42*settleQuiet)) {
		t.Fatal("output after leaving did not arm a check")
	}
}

// agentFrame returns frame i of a full-screen agent: a transcript that
// scrolls one line every 8 frames, a spinner and clock row that changes
// every frame, and an input row.
func agentFrame(i, rows int) string {
	var b strings.Builder
	for y := range rows - 2 {
		fmt.Fprintf(&b, "transcript line %d: read file, ran tests, %d passed\n", i/8+y, (i/8+y)*7%100)
	}
	fmt.Fprintf(&b, "%c Working (%d.%02ds, esc to interrupt)\n> ", `|/-\`[i%4], i/60, i%60)
	return b.String()
}

// TestScreenHistoryRows: screens that share rows keep each row once; after
// the bound dropped the oldest and blocks of rows were freed, every held
// screen reads back as recorded and Find finds a row on each screen that
// shows it, by screen and row.
func TestScreenHistoryRows(t *testing.T) {
	const limit = 32 << 10
	h := newScreenHistory(limit)
	var texts []string
	for i := range 3000 {
		s := agentFrame(i, 12)
		texts = append(texts, s)
		h.add([]byte(s), uint64(i), time.Unix(int64(i), 0))
		if h.Bytes() > limit {
			t.Fatalf("after screen %d: %d bytes held, limit %d", i, h.Bytes(), limit)
		}
	}
	held := heldTexts(h)
	first := 3000 - len(held)
	if h.Dropped() == 0 || uint64(first) != h.Dropped() || h.rows.freed == 0 {
		t.Fatalf("held %d, dropped %d, %d blocks freed: want the bound reached and blocks freed", len(held), h.Dropped(), h.rows.freed)
	}
	for i, s := range held {
		if s != texts[first+i] {
			t.Fatalf("held screen %d reads %q, recorded %q", i, s, texts[first+i])
		}
	}
	// Each transcript row is shown on up to 10 screens and stored once.
	if rows := int(h.rows.next() - h.rows.base()); rows > 3*len(held) {
		t.Fatalf("%d rows stored for %d screens", rows, len(held))
	}
	// The transcript line shown by the newest frames: on 8 screens per
	// row position it holds.
	line := (2999/8 + 3)
	q, _ := NewQuery(fmt.Sprintf("transcript line %d:", line), false, CaseSmart)
	var got []string
	h.find(q, func(f Found) bool {
		got = append(got, fmt.Sprintf("%d@%d", f.Line, f.Screen))
		return true
	})
	var want []string
	for i := first; i < 3000; i++ {
		if y := line - i/8; y >= 0 && y < 10 {
			want = append(want, fmt.Sprintf("%d@%d", y, i+1))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("find = %v, want %v", got, want)
	}
	t.Logf("%d screens held in %d bytes (%d rows), %d blocks freed", len(held), h.Bytes(), h.rows.next()-h.rows.base(), h.rows.freed)
}

// TestScreenHistorySixtyHertz (issue 34's memory proof): a program
// redrawing its full screen 60 times a second for a minute — 3,600
// frames, each recorded (a Terminal records far fewer: when output
// settles, every 2 s while it does not) — keeps the history inside its
// bound: its own count after every frame, and the live heap the garbage
// collector finds.
func TestScreenHistorySixtyHertz(t *testing.T) {
	const limit = 128 << 10 // reached within the minute (the frames take about 170 KiB)
	e := NewEmulator(120, 40, EmulatorOptions{ScreenHistoryBytes: limit})
	e.Write([]byte("\x1b[?1049h"))
	frame := func(i int) {
		e.Write([]byte("\x1b[H\x1b[2J" + strings.ReplaceAll(agentFrame(i, 40), "\n", "\r\n")))
		e.RecordScreen()
	}
	for i := range 60 { // warm up: pools, the emulator's own buffers
		frame(i)
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	h := e.ScreenHistory()
	for i := 60; i < 3600; i++ {
		frame(i)
		if n := h.Bytes(); n > limit {
			t.Fatalf("frame %d: history holds %d bytes, bound %d", i, n, limit)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if h.Dropped() == 0 {
		t.Fatalf("nothing dropped after 3600 frames (%d held in %d bytes): the bound was never reached", h.Len(), h.Bytes())
	}
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	if grew > limit+32<<10 && !raceOn {
		t.Fatalf("live heap grew %d bytes over 3600 frames; bound %d", grew, limit)
	}
	runtime.KeepAlive(e)
	t.Logf("%d screens held in %d bytes, %d dropped; heap grew %d bytes", h.Len(), h.Bytes(), h.Dropped(), grew)
}

// BenchmarkHistoryOverhead reports what the full-screen history adds to
// a pane's memory in a typical agent session (issue 34: at most 10 % more
// than the scrollback alone): the live heap of an 80×40 pane with 10,000
// lines of transcript in its scrollback and 1,000 screens of a TUI (the
// search benchmark's session, agentSession), recorded with the default
// bound and with no history.
func BenchmarkHistoryOverhead(b *testing.B) {
	heap := func(o EmulatorOptions) (int64, *Emulator) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		e := NewEmulator(80, 40, o)
		e.Write(agentSession(10000+40, 1000, 80, 40, ""))
		runtime.GC()
		runtime.ReadMemStats(&m1)
		return int64(m1.HeapAlloc) - int64(m0.HeapAlloc), e
	}
	var with, without int64
	for range b.N {
		w, e1 := heap(EmulatorOptions{})
		wo, e2 := heap(EmulatorOptions{ScreenHistoryBytes: NoScreenHistory})
		with, without = with+w, without+wo
		if e1.ScreenHistory().Len() == 0 {
			b.Fatal("the session recorded no screen")
		}
		runtime.KeepAlive(e1)
		runtime.KeepAlive(e2)
	}
	b.ReportMetric(float64(without)/float64(b.N)/(1<<20), "scrollback-MiB")
	b.ReportMetric(float64(with)/float64(b.N)/(1<<20), "with-history-MiB")
	b.ReportMetric(100*float64(with-without)/float64(without), "overhead-%")
}

// TestScreenHistoryWideRows: past 2¹⁶ distinct rows (a bound far above
// the default), with screens whose row numbers run (new rows) and screens
// whose numbers do not (the screen before, rows reversed), every screen
// reads back as recorded and is searched as before, numbers past 2¹⁶
// included.
func TestScreenHistoryWideRows(t *testing.T) {
	h := newScreenHistory(16 << 20)
	var texts []string
	var rows []string
	for s := range 120 {
		if s%3 == 2 {
			slices.Reverse(rows[:1000])
		} else {
			rows = rows[:0]
			for y := range 1000 {
				rows = append(rows, fmt.Sprintf("r%d", s*1000+y))
			}
			rows = append(rows, "prompt") // one row every screen shows
		}
		text := strings.Join(rows, "\n")
		texts = append(texts, text)
		if !h.add([]byte(text), uint64(s), time.Unix(int64(s), 0)) {
			t.Fatalf("screen %d not stored", s)
		}
	}
	if h.Dropped() != 0 {
		t.Fatalf("dropped %d screens; want all held", h.Dropped())
	}
	kinds := map[rowsKind]int{}
	for i := range h.entries {
		kinds[h.entries[i].kind()]++
	}
	wide := 0
	walkScreens(h.entries, h.ids, 0, func(_ int, _ screenMeta, rows []uint32) bool {
		if slices.Max(rows) > 1<<16 {
			wide++
		}
		return true
	})
	if kinds[rowsRuns] == 0 || kinds[rowsNarrow] == 0 || kinds[rowsCopies] == 0 || wide == 0 {
		t.Fatalf("screens by encoding %v, %d with numbers past 2¹⁶: want key screens as runs and narrow numbers, screens copying the one before, and numbers past 2¹⁶", kinds, wide)
	}
	// The prompt, which every screen shows, is deduplicated against the
	// newest blocks only: stored again at most once a block sealed.
	sealed := uint32(len(h.rows.blocks)) + uint32(h.rows.freed)
	if n := h.rows.next() - h.rows.base(); n < 80*1000+1 || n > 80*1000+1+sealed {
		t.Fatalf("%d rows stored in %d blocks, want 80,001 and the prompt once more a block at most (reversed screens store none)", n, sealed)
	}
	if got := heldTexts(h); fmt.Sprint(got) != fmt.Sprint(texts) {
		t.Fatal("held screens do not read back as recorded")
	}
	for _, pattern := range []string{"^r118998$", "^r1002$", "^prompt$", "^r10[0-9]{3}5$"} {
		if got, want := findVsScan(t, h, pattern); len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("find %q = %v, want %v", pattern, got, want)
		}
	}
}

// findVsScan returns, as "row@screen", the rows h.find gives for the
// regular expression pattern and those the expression matches in the
// held screens' texts.
func findVsScan(t *testing.T, h *ScreenHistory, pattern string) (got, want []string) {
	t.Helper()
	q, err := NewQuery(pattern, true, CaseSensitive)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(pattern)
	h.Screens(func(rec ScreenRecord) bool {
		for y, row := range strings.Split(rec.Text, "\n") {
			if re.MatchString(row) {
				want = append(want, fmt.Sprintf("%d@%d", y, rec.Seq))
			}
		}
		return true
	})
	h.find(q, func(f Found) bool {
		got = append(got, fmt.Sprintf("%d@%d", f.Line, f.Screen))
		return true
	})
	return got, want
}
