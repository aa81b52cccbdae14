package api

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/terminal"
	"github.com/paneflow-go/paneflow/workspace"
)

// surface.wait limits.
const (
	waitDefaultTimeout = 300 * time.Second
	waitMaxPattern     = 4096
	waitMaxLines       = 100 // matching lines reported per pane
	waitOverlap        = 4   // scrollback rows rescanned for multi-line patterns
)

// waitRequest is a validated surface.wait request.
type waitRequest struct {
	pat     *linePattern // nil: idle only
	all     bool
	idle    time.Duration // 0: no idle condition
	timeout time.Duration
	panes   []*workspace.Surface
	// fromStart: all text already in the panes counts as new.
	fromStart bool
	// send: surface.send_text params for the one pane, sent after the
	// baseline; nil for none.
	send json.RawMessage
}

func (s *server) parseWait(params json.RawMessage) (waitRequest, error) {
	var p proto.SurfaceWaitParams
	if err := proto.DecodeParams(params, &p); err != nil {
		return waitRequest{}, err
	}
	r := waitRequest{fromStart: p.FromStart}
	if p.InputReady {
		return r, ipc.InvalidParams("'input_ready' is not a surface.wait condition: surface.send_text waits for an agent pane to read its input itself (its 'input_wait_ms')")
	}
	if len(p.SurfaceIDs) == 0 {
		return r, ipc.InvalidParams("missing or empty 'surface_ids' parameter")
	}
	switch p.Mode {
	case "", proto.WaitAny:
	case proto.WaitAll:
		r.all = true
	default:
		return r, ipc.InvalidParams(`mode must be "any" or "all"`)
	}
	if p.IdleMS != nil {
		if *p.IdleMS < 0 {
			return r, ipc.InvalidParams("idle_ms must not be negative")
		}
		r.idle = time.Duration(*p.IdleMS) * time.Millisecond
	}
	r.timeout = waitDefaultTimeout
	if p.TimeoutMS != nil {
		if *p.TimeoutMS < 0 {
			return r, ipc.InvalidParams("timeout_ms must not be negative")
		}
		r.timeout = time.Duration(*p.TimeoutMS) * time.Millisecond
	}
	hasSend := !proto.IsAbsent(p.Send)
	switch {
	case p.Pattern == "" && r.idle == 0:
		return r, ipc.InvalidParams("missing 'pattern' parameter (required unless idle_ms is set)")
	case len(p.Pattern) > waitMaxPattern:
		return r, ipc.InvalidParams("pattern exceeds %d bytes", waitMaxPattern)
	case p.Pattern != "":
		if _, err := regexp.Compile(p.Pattern); err != nil {
			return r, ipc.InvalidParams("invalid pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		pat, err := compileLinePattern(p.Pattern)
		if err != nil {
			return r, ipc.InvalidParams("invalid pattern: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		r.pat = pat
	}
	if v := bytes.TrimSpace(p.Send); hasSend {
		if len(p.SurfaceIDs) != 1 {
			return r, ipc.InvalidParams("'send' needs exactly one pane in 'surface_ids'")
		}
		send, err := proto.SetSurfaceID(v, p.SurfaceIDs[0])
		if err != nil {
			return r, ipc.InvalidParams("send: %s", proto.JSONDetail(err))
		}
		r.send = send
	}
	seen := map[uint64]bool{}
	for _, id := range p.SurfaceIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		sf, ok := s.m.Surface(id)
		if !ok {
			return r, ipc.InvalidParams("surface_id %d not found", id)
		}
		r.panes = append(r.panes, sf)
	}
	return r, nil
}

// waitPane is one watched pane.
type waitPane struct {
	sf  *workspace.Surface
	emu *terminal.Emulator

	// Set by the pane's notifier goroutine.
	pending atomic.Bool
	exited  atomic.Bool
	closed  atomic.Bool

	// Baseline, taken when the wait began. Absolute rows count every
	// main-buffer row ever written (dropped + history + screen row), so
	// they survive scrolling and eviction.
	baseAbs   uint64   // absolute row of the cursor
	prefix    string   // text of that row left of the cursor
	prefixOn  bool     // prefix applies (the wait began on the main screen)
	topAbs    uint64   // absolute row of the top of the screen
	above     []string // screen rows above the cursor (rows topAbs…baseAbs-1)
	altBase   []string // screen rows when the wait began on the alternate screen
	scannedTo uint64   // absolute row: scrollback below it was examined

	lastGen uint64
	lastOut time.Time
	matched bool
	lines   []string
}

// baseline records where new output starts. It retries while output
// changes the screen under it.
func (wp *waitPane) baseline() {
	var snap terminal.Snapshot
	for range 8 {
		wp.emu.Snapshot(&snap)
		dropped, hist := wp.emu.DroppedLines(), wp.emu.HistoryLen()
		if wp.emu.Generation() != snap.Generation {
			continue
		}
		wp.lastGen = snap.Generation
		top := dropped + uint64(hist)
		wp.topAbs = top
		if snap.AltScreen {
			// The main screen is hidden: all of it counts once it is
			// back; the alternate screen is compared row by row.
			wp.baseAbs, wp.prefixOn = top, false
			wp.altBase = make([]string, snap.Rows)
			for y := range snap.Rows {
				wp.altBase[y] = snap.RowText(y)
			}
		} else {
			wp.baseAbs, wp.prefixOn = top+uint64(snap.Cursor.Y), true
			wp.above = make([]string, snap.Cursor.Y)
			for y := range snap.Cursor.Y {
				wp.above[y] = snap.RowText(y)
			}
			var b strings.Builder
			for _, c := range snap.Row(snap.Cursor.Y)[:min(snap.Cursor.X, snap.Cols)] {
				b.WriteString(snap.Grapheme(c))
			}
			wp.prefix = b.String()
		}
		wp.scannedTo = wp.baseAbs
		return
	}
	// Output never paused: start from the cursor's row as it is now.
	wp.lastGen = wp.emu.Generation()
	wp.topAbs = wp.emu.DroppedLines() + uint64(wp.emu.HistoryLen())
	wp.baseAbs = wp.topAbs + uint64(wp.emu.Cursor().Y)
	wp.scannedTo = wp.baseAbs
}

// baselineFromStart makes every row the pane holds count as new: the
// oldest scrollback row is the baseline and nothing is remembered as seen.
func (wp *waitPane) baselineFromStart() {
	wp.lastGen = wp.emu.Generation()
	wp.baseAbs = wp.emu.DroppedLines()
	wp.topAbs, wp.scannedTo = wp.baseAbs, wp.baseAbs
	wp.prefixOn, wp.above, wp.altBase = false, nil, nil
}

// newLines returns the rows that changed since the baseline; ok is false
// when output moved the buffer during the read (a later wake-up follows).
func (wp *waitPane) newLines() (lines []string, ok bool) {
	emu := wp.emu
	g := emu.Generation()
	alt := emu.AltScreen()
	dropped, hist := emu.DroppedLines(), emu.HistoryLen()
	_, rows := emu.Size()
	if alt {
		cur := emu.ScreenLines()
		if emu.Generation() != g {
			return nil, false
		}
		for i, l := range cur {
			if l != "" && (i >= len(wp.altBase) || l != wp.altBase[i]) {
				lines = append(lines, l)
			}
		}
		return lines, true
	}
	rel := func(abs uint64) int {
		if abs < dropped {
			return -1
		}
		return int(abs - dropped)
	}
	base := rel(wp.baseAbs)
	// Rows that were above the cursor count where they changed (a clear
	// or a redraw writes there).
	var above []string
	if aFrom, aTo := max(rel(wp.topAbs), 0), max(base, 0); aFrom < aTo {
		above = emu.Lines(aFrom, aTo)
		for i, l := range above {
			if j := dropped + uint64(aFrom+i) - wp.topAbs; l != "" && l != wp.above[j] {
				lines = append(lines, l)
			}
		}
	}
	from := max(base, 0)
	if wp.scannedTo > wp.baseAbs {
		from = max(from, rel(wp.scannedTo)-waitOverlap)
	}
	cur := emu.Lines(from, hist+rows)
	if emu.Generation() != g || emu.DroppedLines() != dropped {
		return nil, false
	}
	wp.scannedTo = dropped + uint64(hist)
	if wp.prefixOn && base >= from && base-from < len(cur) {
		cur[base-from] = suffixAfter(cur[base-from], wp.prefix)
	}
	for len(cur) > 0 && cur[len(cur)-1] == "" {
		cur = cur[:len(cur)-1]
	}
	return append(lines, cur...), true
}

// suffixAfter returns the part of row cur written after the baseline
// prefix: what follows it when the row still starts with it, nothing when
// the row is (a trimmed form of) the prefix, the whole row when it was
// rewritten (a carriage return, a redraw).
func suffixAfter(cur, prefix string) string {
	switch {
	case strings.HasPrefix(cur, prefix):
		return cur[len(prefix):]
	case strings.HasPrefix(prefix, cur):
		return ""
	}
	return cur
}

// linePattern is a compiled surface.wait pattern: the regexp, with ^ and $
// anchoring at each line, and a literal that every match contains, when
// there is one. The literal is a prefilter: text without it cannot match,
// and strings.Contains rules that out many times faster than the regexp
// engine, which cannot skip ahead on a pattern that starts with (?m)^ and
// otherwise runs over every line a flood of output brings.
// A linePattern is immutable and safe for concurrent use.
type linePattern struct {
	re  *regexp.Regexp
	lit string // "" when no literal is required
}

// compileLinePattern compiles a pattern in Go's regexp syntax for per-line
// matching.
func compileLinePattern(pattern string) (*linePattern, error) {
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, err
	}
	p := &linePattern{re: re}
	if tree, err := syntax.Parse("(?m)"+pattern, syntax.Perl); err == nil {
		if lit, fold := terminal.RequiredLiteral(tree.Simplify()); !fold {
			p.lit = lit
		}
	}
	return p, nil
}

// matchLines reports the lines a match of p touches (at most
// waitMaxLines), or nil when p does not match the lines joined with "\n".
func (p *linePattern) matchLines(lines []string) []string {
	if p.lit != "" && !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, p.lit) }) {
		// A literal cannot span lines unless it holds a newline, and
		// then it is looked for in the joined text by the regexp itself.
		if !strings.Contains(p.lit, "\n") {
			return nil
		}
	}
	return matchLines(p.re, lines)
}

// matchLines reports the lines a match of re touches (at most
// waitMaxLines), or nil when re does not match the lines joined with "\n".
func matchLines(re *regexp.Regexp, lines []string) []string {
	locs := re.FindAllStringIndex(strings.Join(lines, "\n"), -1)
	if locs == nil {
		return nil
	}
	out := []string{}
	start, k := 0, 0 // byte offset of the line; first match not yet behind it
	for _, l := range lines {
		end := start + len(l)
		// Skip matches that ended before this line (an empty match at its
		// start still touches it).
		for k < len(locs) && locs[k][1] <= start && (locs[k][0] != locs[k][1] || locs[k][0] < start) {
			k++
		}
		if k < len(locs) && locs[k][0] <= end {
			out = append(out, l)
			if len(out) == waitMaxLines {
				break
			}
		}
		start = end + 1
	}
	return out
}

// surfaceWait blocks until output that arrived after the call matches a
// pattern, or the panes went quiet, in one pane ("any") or every pane
// ("all"). It is driven by the emulators' change notifications.
func (s *server) surfaceWait(ctx context.Context, params json.RawMessage) (any, error) {
	r, err := s.parseWait(params)
	if err != nil {
		return nil, err
	}
	clk := s.o.Clock
	start := clk.Now()
	deadline := start.Add(r.timeout)
	wake := make(chan struct{}, 1)
	tick := make(chan struct{}, 1) // the clock's timer fired
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(quit)
		wg.Wait()
	}()
	panes := make([]*waitPane, len(r.panes))
	for i, sf := range r.panes {
		wp := &waitPane{sf: sf, emu: sf.Terminal().Emulator(), lastOut: start}
		_, ch := wp.emu.Watch() // before the baseline: nothing after it is missed
		if r.fromStart {
			wp.baselineFromStart()
			if r.pat != nil {
				// What is already there is checked now; a concurrent change
				// that spoils this read wakes the loop below.
				if lines, ok := wp.newLines(); ok {
					if m := r.pat.matchLines(lines); m != nil {
						wp.matched, wp.lines = true, m
					}
				}
			}
		} else {
			wp.baseline()
		}
		panes[i] = wp
		wg.Go(func() { notify(wp, ch, wake, quit) })
	}
	var sent *proto.SurfaceSendTextResult
	if r.send != nil {
		// After the baseline, so an answer to the text cannot be missed.
		if err := s.sendTextReady(ctx, r.send); err != nil {
			return nil, err
		}
		res, err := s.sendText(ctx, r.send)
		if err != nil {
			return nil, err
		}
		st := res.(proto.SurfaceSendTextResult)
		sent = &st
		deadline = clk.Now().Add(r.timeout) // the wait for the pane's input is not the barrier's time
	}
	for {
		now := clk.Now()
		for _, wp := range panes {
			if !wp.pending.Swap(false) || wp.closed.Load() {
				continue
			}
			if g := wp.emu.Generation(); g != wp.lastGen {
				wp.lastGen, wp.lastOut = g, now
				if r.pat != nil && !wp.matched {
					if lines, ok := wp.newLines(); ok {
						if m := r.pat.matchLines(lines); m != nil {
							wp.matched, wp.lines = true, m
						}
					}
				}
			}
		}
		if res, err, done := r.decide(panes, now); done {
			res.Sent = sent
			return res, err
		}
		if !now.Before(deadline) {
			secs := strconv.FormatFloat(r.timeout.Seconds(), 'f', -1, 64)
			return nil, ipc.Errorf(ipc.CodeTimeout, "wait timed out after %ss", secs)
		}
		next := deadline
		if r.idle > 0 {
			for _, wp := range panes {
				// Panes already idle stay idle until they print again.
				if t := wp.lastOut.Add(r.idle); !wp.closed.Load() && t.After(now) && t.Before(next) {
					next = t
				}
			}
		}
		// A tick from a timer replaced here only costs one more pass.
		if timer != nil {
			timer.Stop()
		}
		timer = clk.AfterFunc(next.Sub(now), func() {
			select {
			case tick <- struct{}{}:
			default:
			}
		})
		select {
		case <-wake:
		case <-tick:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// decide reports whether the wait is over, with its result or error.
func (r *waitRequest) decide(panes []*waitPane, now time.Time) (proto.SurfaceWaitResult, error, bool) {
	res := proto.SurfaceWaitResult{Panes: []uint64{}, Matches: []proto.WaitMatch{}}
	open, matched, idle, dead := 0, 0, 0, 0
	for _, wp := range panes {
		closed := wp.closed.Load()
		if !closed {
			open++
		}
		if wp.matched {
			matched++
		}
		if !closed && r.idle > 0 && now.Sub(wp.lastOut) >= r.idle {
			idle++
		}
		// A pane that closed, or whose program ended, without matching
		// can never match.
		if !wp.matched && (closed || wp.exited.Load() && wp.lastGen == wp.emu.Generation()) {
			dead++
		}
	}
	if r.pat != nil && matched > 0 && (!r.all || matched == len(panes)) {
		res.Matched = true
		for _, wp := range panes {
			if wp.matched {
				res.Panes = append(res.Panes, wp.sf.ID())
				res.Matches = append(res.Matches, proto.WaitMatch{SurfaceID: wp.sf.ID(), Lines: wp.lines})
			}
		}
		return res, nil, true
	}
	if r.idle > 0 && idle > 0 && (!r.all || idle == open) {
		res.Idle = true
		for _, wp := range panes {
			if !wp.closed.Load() && now.Sub(wp.lastOut) >= r.idle {
				res.Panes = append(res.Panes, wp.sf.ID())
			}
		}
		return res, nil, true
	}
	if open == 0 {
		if r.pat != nil {
			return res, ipc.InvalidParams("all target panes closed before the pattern appeared"), true
		}
		return res, ipc.InvalidParams("all target panes closed before going idle"), true
	}
	if r.pat != nil && r.idle == 0 {
		if dead == len(panes) {
			return res, ipc.InvalidParams("all target panes closed before the pattern appeared"), true
		}
		if r.all && dead > 0 {
			for _, wp := range panes {
				if !wp.matched && (wp.closed.Load() || wp.exited.Load()) {
					return res, ipc.InvalidParams("target pane %d closed before the pattern appeared", wp.sf.ID()), true
				}
			}
		}
	}
	return res, nil, false
}

// notify forwards a pane's output, exit and close to wake. It takes the
// next Watch channel before signalling, so output after the wait loop's
// read always signals again.
func notify(wp *waitPane, ch <-chan struct{}, wake chan<- struct{}, quit <-chan struct{}) {
	signal := func() {
		wp.pending.Store(true)
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	done := wp.sf.Terminal().Done()
	for {
		select {
		case <-ch:
			_, ch = wp.emu.Watch()
			signal()
		case <-done:
			done = nil
			wp.exited.Store(true)
			signal()
		case <-wp.sf.Closed():
			wp.closed.Store(true)
			signal()
			return
		case <-quit:
			return
		}
	}
}
