//go:build !windows

package api

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/paneflow-go/paneflow/internal/clock"
	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/ipc/ipctest"
	"github.com/paneflow-go/paneflow/workspace"
)

type waitOut struct {
	Matched bool     `json:"matched"`
	Idle    bool     `json:"idle"`
	Panes   []uint64 `json:"panes"`
	Matches []struct {
		SurfaceID uint64   `json:"surface_id"`
		Lines     []string `json:"lines"`
	} `json:"matches"`
}

type waitReply struct {
	res waitOut
	err error
}

// startWait runs surface.wait in the background.
func (e *env) startWait(params string) <-chan waitReply {
	ch := make(chan waitReply, 1)
	go func() {
		res, err := e.handlers["surface.wait"](context.Background(), json.RawMessage(params))
		var out waitOut
		if err == nil {
			b, _ := json.Marshal(res)
			_ = json.Unmarshal(b, &out)
		}
		ch <- waitReply{out, err}
	}()
	return ch
}

// feed types input into panes every 20 ms until the wait returns: the
// wait only sees output that arrives after it began, and the test cannot
// know when that was.
func feed(t *testing.T, ch <-chan waitReply, input string, panes ...*workspace.Surface) waitReply {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(testDeadline)
	for {
		for _, p := range panes {
			_ = p.Terminal().SendInput([]byte(input))
		}
		select {
		case r := <-ch:
			return r
		case <-tick.C:
		case <-deadline:
			t.Fatal("surface.wait never returned")
		}
	}
}

func wantTimeout(t *testing.T, r waitReply, msg string) {
	t.Helper()
	if r.err == nil {
		t.Fatalf("wait = %+v, want a timeout", r.res)
	}
	if ie := rpcErr(t, r.err); ie.Code != ipc.CodeTimeout || ie.Message != msg {
		t.Errorf("wait error = %d %q, want %d %q", ie.Code, ie.Message, ipc.CodeTimeout, msg)
	}
}

// TestWaitAboveBaseline: output written above the row the cursor was on
// when the wait began (after a clear) counts; unchanged rows do not.
//
// The wait's clock is a fake one only so that the test knows when the wait
// took its baseline (its first timer): then exactly one newline is sent,
// so exactly one redraw happens. (Feeding a newline every 20 ms, as this
// test did, let a loaded machine redraw twice before the wait looked; the
// clear pushed the first redraw into the scrollback and both matched.)
func TestWaitAboveBaseline(t *testing.T) {
	fc := clock.NewFake(time.Time{})
	e := newEnv(t, workspace.Options{}, Options{Clock: fc}).withWorkspace(t.TempDir())
	// Each newline clears the screen and prints at the top; the counter
	// makes every redraw differ from what the wait saw at its start.
	sf := e.split(`stty -echo; echo FINISHED-EARLY; echo READY; n=0; while read x; do n=$((n+1)); printf '\033[H\033[2JFINISHED %s\n' $n; done`)
	waitText(t, sf, "READY")
	ch := e.startWait(`{"surface_ids":[` + itoa(sf.ID()) + `],"pattern":"^FINISHED \\d+$"}`)
	armed(t, fc, 1)
	if err := sf.Terminal().SendInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	r := reply(t, ch)
	if r.err != nil || !r.res.Matched || len(r.res.Matches[0].Lines) != 1 || !strings.HasPrefix(r.res.Matches[0].Lines[0], "FINISHED ") {
		t.Fatalf("wait after a clear = %+v, %v; want FINISHED n matched", r.res, r.err)
	}
}

func TestWaitPanesGone(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	sf := e.split(`read x; echo bye`)
	r := feed(t, e.startWait(`{"surface_ids":[`+itoa(sf.ID())+`],"pattern":"NEVER"}`), "\n", sf)
	if r.err == nil || rpcErr(t, r.err).Message != "all target panes closed before the pattern appeared" {
		t.Fatalf("wait on an exiting pane = %+v, %v", r.res, r.err)
	}
	// A pane that already exited is gone from the start.
	r = feed(t, e.startWait(`{"surface_ids":[`+itoa(sf.ID())+`],"pattern":"NEVER"}`), "")
	if r.err == nil || rpcErr(t, r.err).Code != ipc.CodeInvalidParams {
		t.Fatalf("wait on an exited pane = %+v, %v", r.res, r.err)
	}
	// all: one pane that can never match fails the wait.
	live := e.split(`exec cat`)
	r = feed(t, e.startWait(`{"surface_ids":[`+itoa(sf.ID())+`,`+itoa(live.ID())+`],"pattern":"NEVER","mode":"all"}`), "")
	if want := "target pane " + itoa(sf.ID()) + " closed before the pattern appeared"; r.err == nil || rpcErr(t, r.err).Message != want {
		t.Fatalf("all with an exited pane = %+v, %v; want %q", r.res, r.err, want)
	}
	// Closing the pane ends the wait (or, if the close wins the race,
	// the wait does not find it).
	closing := e.split(`exec cat`)
	ch := e.startWait(`{"surface_ids":[` + itoa(closing.ID()) + `],"pattern":"NEVER"}`)
	if err := e.m.CloseSurface(closing.ID()); err != nil {
		t.Fatal(err)
	}
	r = feed(t, ch, "")
	if r.err == nil || rpcErr(t, r.err).Code != ipc.CodeInvalidParams {
		t.Fatalf("wait on a closed pane = %+v, %v", r.res, r.err)
	}
}

func TestMatchLines(t *testing.T) {
	tests := []struct {
		re    string
		lines []string
		want  []string
	}{
		{`(?m)^OK$`, []string{"xOK", "OK", "OKx", "OK"}, []string{"OK", "OK"}},
		{`(?m)B\nC`, []string{"A", "B", "C", "D"}, []string{"B", "C"}},
		{`(?m)^$`, []string{"a", "", "b"}, []string{""}},
		{`(?m)Z`, []string{"a"}, nil},
		{`(?m)a`, slices.Repeat([]string{"a"}, 500), slices.Repeat([]string{"a"}, waitMaxLines)},
	}
	for _, tt := range tests {
		got := matchLines(regexp.MustCompile(tt.re), tt.lines)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("matchLines(%s) mismatch (-want +got):\n%s", tt.re, diff)
		}
	}
}

func TestSuffixAfter(t *testing.T) {
	tests := []struct{ cur, prefix, want string }{
		{"$ ls", "$ ", "ls"},
		{"$", "$ ", ""},
		{"", "", ""},
		{"DONE", "Build: ", "DONE"},
		{"abc", "abc", ""},
	}
	for _, tt := range tests {
		if got := suffixAfter(tt.cur, tt.prefix); got != tt.want {
			t.Errorf("suffixAfter(%q, %q) = %q, want %q", tt.cur, tt.prefix, got, tt.want)
		}
	}
}

// TestWaitOverSocket checks surface.wait is Long: it outlives the
// dispatch timeout.
func TestWaitOverSocket(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	sf := e.split(`exec cat`)
	srv := ipctest.StartServer(t, &ipc.Server{Registry: e.reg, DispatchTimeout: 50 * time.Millisecond})
	c := &ipc.Client{Path: srv.Path, Timeout: testDeadline}
	var out waitOut
	err := c.Call(context.Background(), "surface.wait", map[string]any{"surface_ids": []uint64{sf.ID()}, "idle_ms": 200}, &out)
	if err != nil || !out.Idle {
		t.Fatalf("surface.wait over the socket = %+v, %v; want idle", out, err)
	}
}

// TestRequiredLiteral checks the literal every match must contain, which
// linePattern looks for before running the regexp.
func TestRequiredLiteral(t *testing.T) {
	for pattern, want := range map[string]string{
		`^DONE-42$`:           "DONE-42",
		`error: (\d+) files?`: "error: ",
		`(build (ok|failed))`: "build ",
		`(?i)done`:            "",
		`ok|fail`:             "",
		`a*`:                  "",
		`(xyz)+ end`:          " end",
		`x{2,3}yz`:            "yz",
		`^\$ $`:               "$ ",
		`caf\x{e9} ouvert`:    "café ouvert",
		`line1\nline2`:        "line1\nline2",
		`[abc]def`:            "def",
		`\bword\b`:            "word",
	} {
		p, err := compileLinePattern(pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		if p.lit != want {
			t.Errorf("literal of %s = %q, want %q", pattern, p.lit, want)
		}
	}
}

// TestLinePatternPrefilter checks that the prefilter never changes what
// matches: linePattern.matchLines against the regexp alone.
func TestLinePatternPrefilter(t *testing.T) {
	patterns := []string{`^DONE-42$`, `error: (\d+) files?`, `(?i)done`, `ok|fail`, `line1\nline2`,
		`^\$ $`, `x{2,3}yz`, `caf\x{e9}`, `DONE`, `^$`}
	texts := [][]string{
		{"DONE-42"}, {"xx DONE-42"}, {"a", "DONE-42", "b"}, {"done", "DONE"},
		{"error: 3 files", "error: x"}, {"line1", "line2"}, {"line1line2"}, {"$ ", "$"},
		{"xxyz", "xyz"}, {"café", "cafe"}, {""}, {}, {"nothing here"},
	}
	for _, pattern := range patterns {
		p, err := compileLinePattern(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, lines := range texts {
			got, want := p.matchLines(lines), matchLines(p.re, lines)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s on %q: prefiltered result differs (-regexp +prefiltered):\n%s", pattern, lines, diff)
			}
		}
	}
}

// BenchmarkWaitMatch is surface.wait's work on a screenful of new output
// that does not match: 50 lines of 200 columns against ^DONE-…$.
func BenchmarkWaitMatch(b *testing.B) {
	lines := make([]string, 50)
	for i := range lines {
		lines[i] = strings.Repeat("the quick brown fox jumps over the lazy dog ", 5)[:200]
	}
	p, err := compileLinePattern(`^DONE-1234$`)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("prefiltered", func(b *testing.B) {
		for b.Loop() {
			if p.matchLines(lines) != nil {
				b.Fatal("matched")
			}
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			if matchLines(p.re, lines) != nil {
				b.Fatal("matched")
			}
		}
	})
}
