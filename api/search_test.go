//go:build !windows

package api

import (
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
	"github.com/paneflow-go/paneflow/workspace"
)

// searchAllRes decodes surface.search_all's result (its own types: a test
// sharing proto's could not catch proto changing the wire).
type searchAllRes struct {
	Panes []struct {
		SurfaceID uint64 `json:"surface_id"`
		Name      string `json:"name"`
		Workspace int    `json:"workspace"`
		Matches   []struct {
			Source  string   `json:"source"`
			Line    int      `json:"line"`
			Screen  *uint64  `json:"screen"`
			ShownAt *string  `json:"shown_at"`
			Text    string   `json:"text"`
			Spans   [][2]int `json:"spans"`
		} `json:"matches"`
	} `json:"panes"`
	MatchCount    int  `json:"match_count"`
	Truncated     bool `json:"truncated"`
	CaseSensitive bool `json:"case_sensitive"`
	PanesSearched int  `json:"panes_searched"`
}

// TestSearchAll: one search finds text in a pane's scrollback and text a
// full-screen program showed in another pane and left.
func TestSearchAll(t *testing.T) {
	e := newEnv(t, workspace.Options{}, Options{}).withWorkspace(t.TempDir())
	first, _ := e.m.Surface(1)
	second := e.split("printf 'plain Needle-one\\n\\033[?1049hfull-screen needle-two\\n'; sleep 0.1; printf '\\033[?1049lleft\\n'; exec cat")
	if _, err := first.Terminal().Emulator().Write([]byte("shell needle-zero\r\n")); err != nil {
		t.Fatal(err)
	}
	waitText(t, second, "left")

	var r searchAllRes
	e.ok("surface.search_all", `{"pattern":"needle"}`, &r)
	if r.PanesSearched != 2 || r.MatchCount != 3 || r.Truncated || r.CaseSensitive || len(r.Panes) != 2 {
		t.Fatalf("result %+v; want 3 matches in 2 panes of 2, not truncated, case-insensitive", r)
	}
	if p := r.Panes[0]; p.SurfaceID != 1 || len(p.Matches) != 1 || p.Matches[0].Text != "shell needle-zero" || p.Matches[0].Spans[0] != [2]int{6, 12} {
		t.Errorf("first pane %+v; want surface 1 with 'shell needle-zero' at [6,12)", p)
	}
	p := r.Panes[1]
	if p.SurfaceID != second.ID() || len(p.Matches) != 2 {
		t.Fatalf("second pane %+v; want 2 matches", p)
	}
	if m := p.Matches[0]; m.Source != "screen" || m.Text != "plain Needle-one" {
		t.Errorf("match %+v; want the screen's 'plain Needle-one'", m)
	}
	if m := p.Matches[1]; m.Source != "history" || m.Screen == nil || *m.Screen != 1 || m.ShownAt == nil || m.Line != 1 || m.Text != "full-screen needle-two" {
		t.Errorf("match %+v; want history screen 1, row 1 (1049 keeps the cursor's row) 'full-screen needle-two'", m)
	}

	e.ok("surface.search_all", `{"pattern":"Needle"}`, &r)
	if !r.CaseSensitive || r.MatchCount != 1 {
		t.Errorf("smart case 'Needle': %d matches, case-sensitive %v; want 1, true", r.MatchCount, r.CaseSensitive)
	}
	e.ok("surface.search_all", `{"pattern":"needle-(one|two)$","regex":true,"case":"sensitive"}`, &r)
	if r.MatchCount != 1 || r.Panes[0].Matches[0].Text != "full-screen needle-two" {
		t.Errorf("regex: %+v; want only needle-two", r)
	}
	e.ok("surface.search_all", `{"pattern":"needle","max_matches":2}`, &r)
	if r.MatchCount != 2 || !r.Truncated {
		t.Errorf("max 2: %d matches, truncated %v; want 2, true", r.MatchCount, r.Truncated)
	}
	e.ok("surface.search_all", `{"pattern":"absent"}`, &r)
	if r.MatchCount != 0 || r.Panes == nil || len(r.Panes) != 0 {
		t.Errorf("no match: %+v; want an empty list of panes", r)
	}

	for _, tc := range []struct{ params, msg string }{
		{`{}`, "missing or empty 'pattern' parameter"},
		{`{"pattern":"a(","regex":true}`, "pattern: regular expression: error parsing regexp: missing closing ): `a(`"},
		{`{"pattern":"a","case":"upper"}`, `case must be "smart", "sensitive" or "insensitive", got "upper"`},
		{`{"pattern":"` + strings.Repeat("x", 513) + `"}`, "pattern exceeds 512 bytes"},
	} {
		_, err := e.call("surface.search_all", tc.params)
		if ie := rpcErr(t, err); ie.Code != ipc.CodeInvalidParams || ie.Message != tc.msg {
			t.Errorf("%s: %d %q; want %d %q", tc.params, ie.Code, ie.Message, ipc.CodeInvalidParams, tc.msg)
		}
	}
}
