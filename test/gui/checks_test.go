//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
)

// TestChecksBadge: checks run in a worktree show in the sidebar row of
// the pane working there, in the window attached to the server: a failing
// run draws "checks ✗ lint" in the error colour, a passing one
// "checks ✓ …" in the success colour.
func TestChecksBadge(t *testing.T) {
	x := display(t)
	a := startApp(t, x)
	first := a.ls().Surfaces[0].ID
	a.waitOutput(fmt.Sprint(first), promptRe)
	wt := cockpitRepo(t)
	config := filepath.Join(wt, ".paneflow.toml")
	setChecks := func(body string) {
		t.Helper()
		if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		a.mustCLI(nil, "trust", config)
	}
	setChecks("[checks.commands]\nlint = \"exit 1\"\n")
	a.rpc(nil, "workspace.create", map[string]any{"name": "feature", "cwd": wt})
	a.rpc(nil, "workspace.select", map[string]any{"index": 1})
	g := a.geometry()
	side := image.Rect(0, 0, min(260, g.W/3), g.H)
	before := a.stable("before", side)
	red0, green0 := find(before, side, isRed).N, find(before, side, isGreen).N

	a.rpc(nil, "checks.run", map[string]any{"worktree": wt})
	a.eventually("checks ✗ lint in the sidebar", func() (bool, string) {
		n := find(a.screenshot("failed"), side, isRed).N
		return n > red0+15, fmt.Sprintf("%d red pixels in the sidebar (%d before)", n, red0)
	})
	setChecks("[checks.commands]\ntest = \"true\"\n")
	a.rpc(nil, "checks.run", map[string]any{"worktree": wt})
	a.eventually("checks ✓ in the sidebar, no red", func() (bool, string) {
		img := a.screenshot("passed")
		red, green := find(img, side, isRed).N, find(img, side, isGreen).N
		return red <= red0 && green > green0+15, fmt.Sprintf("%d red, %d green pixels in the sidebar (%d, %d before)", red, green, red0, green0)
	})
}
