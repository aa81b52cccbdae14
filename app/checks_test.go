//go:build !windows

package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/core"
	"github.com/paneflow-go/paneflow/internal/spectrust"
	"github.com/paneflow-go/paneflow/proto"
	"github.com/paneflow-go/paneflow/review"
)

// TestChecksBadge: checks run with checks.run in a worktree show, from
// the server's checks_changed events, in the sidebar row and the agents
// overview row of the pane working there (running with the check that
// runs, then failed naming the failing check, then passed with its
// duration), and not in the row of a pane elsewhere; embedded and
// attached.
func TestChecksBadge(t *testing.T) {
	for _, attach := range []bool{false, true} {
		name := "embedded"
		if attach {
			name = "attached"
		}
		t.Run(name, func(t *testing.T) {
			var getenv func(string) string
			h := startHarnessCore(t, nil, attach, func(o *core.Options) { getenv = o.Getenv })
			store, err := spectrust.Default(getenv, "linux")
			if err != nil {
				t.Fatal(err)
			}
			wt := gitRepo(t)
			gate := filepath.Join(t.TempDir(), "gate")
			config := func(body string) {
				t.Helper()
				path := filepath.Join(wt, review.ConfigFile)
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := store.Trust(path, []byte(body)); err != nil {
					t.Fatal(err)
				}
			}
			// lint fails; test waits for the gate, so the run is seen
			// running.
			config("[checks.commands]\nlint = \"exit 1\"\ntest = \"while [ ! -e '" + gate + "' ]; do sleep 0.02; done\"\n")

			h.waitFor("the first pane", func() bool { return h.s.pos.focus != 0 })
			other := h.s.pos.focus
			ws, err := h.c.Workspaces.CreateWorkspace("wt", wt, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			var pane uint64
			h.waitFor("the pane in the worktree, its root known", func() bool {
				pane = h.s.pos.focus
				return h.s.focusedCwdLocked() == wt && h.s.pos.snap.Roots[pane] == wt
			})
			h.c.Bus.Publish(bus.AgentState{SurfaceID: pane, WorkspaceID: ws.ID, Tool: "claude", PID: 4242, State: stateFinished, Hooked: true})
			h.waitFor("the agent", func() bool { _, ok := h.s.agents.status(pane); return ok })
			h.s.guard(h.s.openOverviewLocked)

			run := func() <-chan error {
				done := make(chan error, 1)
				go func() {
					done <- h.cl.Call(context.Background(), proto.MethodChecksRun, proto.ChecksParams{Worktree: wt}, nil)
				}()
				return done
			}
			shows := func(badge string) bool {
				_, row, ok := h.paneCard(pane)
				_, elsewhere, _ := h.paneCard(other)
				ov := h.s.chrome.ov
				if !ok || row.Checks != badge || elsewhere.Checks != "" || ov == nil || len(ov.rows) != 1 {
					return false
				}
				_, where, _ := ov.rowText(ov.rows[0])
				return strings.Contains(where, " · "+badge+" · ") && slices.Contains(h.shownTexts(), "    "+badge)
			}
			done := run()
			h.waitFor("checks … test", func() bool { return shows("checks … test") })
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			h.waitFor("checks ✗ lint", func() bool { return shows("checks ✗ lint") })

			config("[checks.commands]\ntest = \"true\"\n")
			if err := <-run(); err != nil {
				t.Fatal(err)
			}
			h.waitFor("checks ✓ and the duration", func() bool {
				_, row, _ := h.paneCard(pane)
				return strings.HasPrefix(row.Checks, "checks ✓ ") && strings.HasSuffix(row.Checks, "s") && shows(row.Checks)
			})

			// A tap on the badge opens the Diff view on the worktree.
			var badge *tapBox
			h.s.guard(func() {
				for _, cv := range h.s.chrome.side.views {
					if rv, ok := cv.rows[pane]; ok {
						badge = checksBadgeBox(rv.obj)
					}
				}
			})
			if badge == nil {
				t.Fatal("the sidebar row has no tappable checks badge")
			}
			h.tap(badge)
			h.waitFor("the Diff view on the worktree", func() bool {
				return shownPanelAs[*diffView](h.s) != nil && shownPanelAs[*diffView](h.s).dir == wt && h.s.chrome.ov == nil
			})
		})
	}
}

// checksBadgeBox is the tappable checks badge inside a sidebar row, nil
// when there is none.
func checksBadgeBox(o fyne.CanvasObject) *tapBox {
	switch v := o.(type) {
	case *tapBox:
		if t, ok := v.content.(*canvas.Text); ok && strings.Contains(t.Text, "checks ") {
			return v
		}
		return checksBadgeBox(v.content)
	case *fyne.Container:
		for _, c := range v.Objects {
			if b := checksBadgeBox(c); b != nil {
				return b
			}
		}
	}
	return nil
}

// TestChecksBadgeText: the badge's words for each overall status.
func TestChecksBadgeText(t *testing.T) {
	for _, tt := range []struct {
		ev   bus.ChecksChanged
		want string
	}{
		{bus.ChecksChanged{Status: proto.CheckPass}, ""},
		{bus.ChecksChanged{Status: proto.CheckRunning}, "checks …"},
		{bus.ChecksChanged{Status: proto.CheckRunning, Checks: []proto.CheckResult{{Name: "lint", Status: proto.CheckPass}, {Name: "test", Status: proto.CheckRunning}}}, "checks … test"},
		{bus.ChecksChanged{Status: proto.CheckPass, DurationMS: 12_300, Checks: []proto.CheckResult{{Name: "test", Status: proto.CheckPass}}}, "checks ✓ 12s"},
		{bus.ChecksChanged{Status: proto.CheckPass, DurationMS: 400, Checks: []proto.CheckResult{{Name: "test", Status: proto.CheckPass}}}, "checks ✓ 0.4s"},
		{bus.ChecksChanged{Status: proto.CheckPass, DurationMS: 40, Checks: []proto.CheckResult{{Name: "test", Status: proto.CheckPass}}}, "checks ✓ <0.1s"},
		{bus.ChecksChanged{Status: proto.CheckFail, Checks: []proto.CheckResult{{Name: "build", Status: proto.CheckPass}, {Name: "lint", Status: proto.CheckFail}, {Name: "test", Status: proto.CheckFail}}}, "checks ✗ lint, test"},
	} {
		if got := checksBadge(tt.ev); got != tt.want {
			t.Errorf("checksBadge(%+v) = %q, want %q", tt.ev, got, tt.want)
		}
	}
}
