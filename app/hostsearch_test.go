//go:build !windows

package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/paneflow-go/paneflow/app/keymap"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/proto"
)

// remoteHeld is how many screens pane id of rc holds in its history.
func remoteHeld(rc *core.Core, id uint64) int {
	sf, ok := rc.Workspaces.Surface(id)
	if !ok {
		return 0
	}
	return sf.Terminal().Emulator().ScreenHistory().Len()
}

// TestHostsSearchView: with one host connected and one that never
// connects, one query finds a line on the window's own pane and a line
// only a full-screen program's earlier screen held on the host's pane;
// the host's pane is listed under the host's name with its window-side
// ids and workspace index, after the window's own; the host that is not
// connected is named in the status line. Activating the host's match
// opens the replay of that pane's screens read from the host (the
// window's own server has a pane of the same id without screens), and it
// steps to the host's next screen; the timeline of the host's pane reads
// the host too.
func TestHostsSearchView(t *testing.T) {
	rc := remoteCore(t, "Remote")
	fh := &fakeHosts{servers: map[string]string{"ssh://build": rc.SocketPath}}
	h := newAttachedHarness(t, func(o *Options) {
		o.Hosts = fh.connect
		o.Config.Hosts = []string{"ssh://build", "ssh://gone"}
	})
	rid := remotePane(t, rc)
	gid := globalID(1, rid)
	var local uint64
	h.waitFor("the host connected, the other failed", func() bool {
		hs := h.s.hosts().hostStatuses()
		local = h.s.pos.focus
		return local != 0 && len(h.cards()) == 2 && len(hs) == 2 && hs[0].State == hostConnected && hs[1].State == hostFailed
	})
	if hostSlot(local) != 0 || localID(local) != rid {
		t.Fatalf("the window's own pane is %d, the host's %d: the test needs the same id on both servers", local, rid)
	}

	if err := h.s.b.Paste(local, `echo "alpha NEE""DLE one"`, true); err != nil {
		t.Fatal(err)
	}
	if err := h.s.b.Paste(gid, `printf '\033[?1049h\033[HNEE%sHIST on screen one\n' DLE; read a; printf '\033[2J\033[Hscreen two\n'; read b; printf '\033[?1049lleft-full-screen\n'`, true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the host's first screen held", func() bool { return remoteHeld(rc, rid) == 1 })
	if err := h.s.b.Paste(gid, "", true); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the host's second screen held", func() bool { return remoteHeld(rc, rid) == 2 })
	if err := h.s.b.Paste(gid, "", true); err != nil {
		t.Fatal(err)
	}
	waitPane(t, h.c.SocketPath, local, "alpha NEEDLE one")
	waitPane(t, rc.SocketPath, rid, "left-full-screen")

	v := searchFor(h, "needle", 5)
	wsID := globalID(1, rc.Workspaces.Workspaces()[0].ID)
	h.s.guard(func() {
		r := v.rows
		if r[0].pane == nil || r[0].match != nil || r[0].pane.SurfaceID != local || r[0].host != "" ||
			r[1].match == nil || r[1].match.Text != "alpha NEEDLE one" ||
			r[2].pane != nil || r[2].host != "ssh://build" ||
			r[3].pane == nil || r[3].match != nil || r[3].pane.SurfaceID != gid || r[3].pane.WorkspaceID != wsID || r[3].pane.Workspace != 1 ||
			r[4].match == nil || r[4].match.Source != proto.SourceHistory || r[4].match.Screen == nil || *r[4].match.Screen != 1 {
			t.Fatalf("rows %s; want pane %d's header and match, host ssh://build's header, pane %d's header (workspace 2) and history screen 1 match", describeRows(r), local, gid)
		}
		st := v.status.Text
		if !strings.Contains(st, "2 matching lines in 2 of 2 panes, ignoring case") || !strings.Contains(st, "not searched: ssh://gone: failed") {
			t.Fatalf("status %q", st)
		}
	})

	v.list.activate(4)
	var rv *replayView
	h.waitFor("the replay of the host's pane at screen 1", func() bool {
		rv = shownPanelAs[*replayView](h.s)
		return shownPanelAs[*searchView](h.s) == nil && rv != nil && len(rv.screens) == 2 && rv.at == 0
	})
	h.s.guard(func() {
		if rv.pane != gid || rv.grid.RowText(0) != "NEEDLEHIST on screen one" || rv.grid.Rows[0].Cells[0].Style == nil {
			t.Fatalf("replay of pane %d, row 0 %q (highlighted %v)", rv.pane, rv.grid.RowText(0), rv.grid.Rows[0].Cells[0].Style != nil)
		}
	})
	rv.keys.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	h.waitFor("the step to the host's screen 2", func() bool { return rv.at == 1 && rv.grid.RowText(0) == "screen two" })
	rv.keys.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})

	h.s.work.mutate("focus", func() error { return h.s.b.Focus(gid) })
	h.waitFor("the host's pane focused", func() bool { return h.s.pos.focus == gid })
	var tv *timelineView
	h.s.guard(func() {
		h.s.runActionLocked(keymap.OpenPaneHistory)
		tv = shownPanelAs[*timelineView](h.s)
	})
	if tv == nil {
		t.Fatal("the timeline did not open")
	}
	h.waitFor("the timeline of the host's pane", func() bool { return len(tv.screens) == 2 && strings.Contains(tv.status.Text, "2 screens held") })
}

// TestMergeSearches: the answers of the window's own server and its
// hosts merge in that order, with window-side ids, cut at the match
// limit as one server's answer would be; a host that failed is named,
// the window's own server's error is the answer's.
func TestMergeSearches(t *testing.T) {
	pane := func(id uint64, n int) proto.SearchAllPane {
		p := proto.SearchAllPane{SurfaceID: id, WorkspaceID: 10, Workspace: 0}
		for i := range n {
			p.Matches = append(p.Matches, proto.SearchAllMatch{Source: proto.SourceScreen, Line: i, Text: "x"})
		}
		return p
	}
	answer := func(trunc bool, panes ...proto.SearchAllPane) proto.SearchAllResult {
		r := proto.SearchAllResult{Panes: panes, Truncated: trunc, PanesSearched: len(panes) + 1}
		for _, p := range panes {
			r.MatchCount += len(p.Matches)
		}
		return r
	}
	own := func(r proto.SearchAllResult) hostSearch { return hostSearch{res: r} }
	host := func(slot, base int, r proto.SearchAllResult, err error) hostSearch {
		return hostSearch{searchTarget: searchTarget{slot: slot, host: fmt.Sprintf("ssh://h%d", slot)}, base: base, res: r, err: err}
	}
	type want struct {
		panes   string // "id:matches" per pane
		hosts   string
		trunc   bool
		searchd int
		failed  string
	}
	describe := func(m searchMerged) want {
		var ps []string
		for _, p := range m.res.Panes {
			ps = append(ps, fmt.Sprintf("%x/%x/%d:%d", p.SurfaceID, p.WorkspaceID, p.Workspace, len(p.Matches)))
		}
		return want{strings.Join(ps, " "), strings.Join(m.hosts, ","), m.res.Truncated, m.res.PanesSearched, strings.Join(m.failed, ";")}
	}
	g := func(slot int, id uint64) uint64 { return globalID(slot, id) }
	for _, tc := range []struct {
		name  string
		parts []hostSearch
		want  want
	}{
		{"own then host", []hostSearch{own(answer(false, pane(1, 2))), host(1, 3, answer(false, pane(1, 1), pane(2, 4)), nil)},
			want{fmt.Sprintf("1/a/0:2 %x/%x/3:1 %x/%x/3:4", g(1, 1), g(1, 10), g(1, 2), g(1, 10)), ",ssh://h1,ssh://h1", false, 5, ""}},
		{"cut at the limit", []hostSearch{own(answer(false, pane(1, 150))), host(1, 1, answer(false, pane(1, 30), pane(2, 30)), nil)},
			want{fmt.Sprintf("1/a/0:150 %x/%x/1:30 %x/%x/1:20", g(1, 1), g(1, 10), g(1, 2), g(1, 10)), ",ssh://h1,ssh://h1", true, 5, ""}},
		{"a truncated answer ends the list", []hostSearch{own(answer(true, pane(1, 5))), host(1, 1, answer(false, pane(1, 3)), nil)},
			want{"1/a/0:5", "", true, 4, ""}},
		{"a failed host is named", []hostSearch{own(answer(false)), host(1, 0, proto.SearchAllResult{}, errors.New("boom")), host(2, 1, answer(false, pane(7, 1)), nil)},
			want{fmt.Sprintf("%x/%x/1:1", g(2, 7), g(2, 10)), "ssh://h2", false, 3, "ssh://h1: boom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mergeSearches(tc.parts)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(m); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if _, err := mergeSearches([]hostSearch{{err: errors.New("bad pattern")}, host(1, 0, answer(false), nil)}); err == nil || err.Error() != "bad pattern" {
		t.Fatalf("the window's own error: got %v", err)
	}
}
