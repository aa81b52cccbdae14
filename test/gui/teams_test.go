//go:build linux

package gui

import (
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// launchShimEnv builds paneflow-shim and paneflow-ai-hook (the agent
// launch shim and its hook client, which the desktop app installs for its
// panes) and returns the environment that points the app at them.
func launchShimEnv(t *testing.T) []string {
	t.Helper()
	dir := tempDir(t)
	for _, b := range []string{"paneflow-shim", "paneflow-ai-hook"} {
		cmd := exec.Command("go", "build", "-tags", "nogui", "-o", dir+"/", "github.com/paneflow-go/paneflow/cmd/"+b)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", b, err, out)
		}
	}
	return []string{"PANEFLOW_SHIM_BIN=" + filepath.Join(dir, "paneflow-shim"), "PANEFLOW_HOOK_BIN=" + filepath.Join(dir, "paneflow-ai-hook")}
}

// teamClaudeKey is the fake Anthropic key; interactive Claude Code wants
// its last 20 characters approved in ~/.claude.json.
const teamClaudeKey = "sk-ant-fake-0123456789abcdefghijklmnop"

// teamColors are Claude Code's agent colours as the sidebar draws a
// teammate's name (app/teams.go).
var teamColors = map[string]rgb{
	"red": {0xe0, 0x6c, 0x75}, "blue": {0x61, 0xaf, 0xef}, "green": {0x98, 0xc3, 0x79}, "yellow": {0xe5, 0xc0, 0x7b},
	"purple": {0xc6, 0x78, 0xdd}, "orange": {0xd1, 0x9a, 0x66}, "pink": {0xff, 0x79, 0xc6}, "cyan": {0x56, 0xb6, 0xc2},
}

// teamRow is a `paneflow ls` entry with its team.
type teamRow struct {
	ID        uint64 `json:"surface_id"`
	Name      string `json:"name"`
	Workspace int    `json:"workspace"`
	Team      string `json:"team"`
	TeamName  string `json:"team_name"`
	Teammate  string `json:"teammate"`
}

func (a *app) teamRows() []teamRow {
	a.t.Helper()
	var l struct{ Surfaces []teamRow }
	a.mustCLI(&l, "ls")
	return l.Surfaces
}

// TestClaudeTeamInApp runs a real Claude Code lead with agent teams on in
// a pane of the desktop app, against the scripted model: the lead spawns
// teammates alpha and beta, which open as panes named after them in the
// lead's workspace (through the launch shim's tmux mode) while the lead
// keeps the focus; the sidebar lists them under the lead, each name in the
// colour Claude Code gave it, the team named as its config.json says; the
// lead hears back from both, and its /exit closes their panes. The
// sidebar is kept as a screenshot (…-team-sidebar.png).
func TestClaudeTeamInApp(t *testing.T) {
	x := display(t)
	claude := agentBin(t, "claude")
	const (
		answer = "hello from the team"
		lead   = "SPAWN_TEAM please"
	)
	names := []string{"alpha", "beta"}
	script, prompts := fakemodel.TeamScript(answer, names...)
	model := fakemodel.Start(t, script...)
	env := append(launchShimEnv(t),
		// bash: the shell integration keeps the launch shim's directory
		// first in PATH after the startup files.
		"SHELL=/bin/bash",
		"ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY="+teamClaudeKey, "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1",
		"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1")
	a := startApp(t, x, env...)
	project := filepath.Join(a.dir, "project")
	if err := os.Mkdir(project, 0o700); err != nil {
		t.Fatal(err)
	}
	claudeJSON := `{"hasCompletedOnboarding":true,"projects":{"` + project + `":{"hasTrustDialogAccepted":true}},` +
		`"customApiKeyResponses":{"approved":["` + teamClaudeKey[len(teamClaudeKey)-20:] + `"],"rejected":[]}}` + "\n"
	if err := os.WriteFile(filepath.Join(a.dir, ".claude.json"), []byte(claudeJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			for _, r := range model.Requests() {
				t.Logf("model request %s turn %d: %.300s", r.Path, r.Turn, r.Body)
			}
		}
	}()

	leadID := a.ls().Surfaces[0].ID
	leadSel := strconv.FormatUint(leadID, 10)
	a.waitOutput(leadSel, promptRe)
	g := a.geometry()
	side := image.Rect(0, 0, sidebarPx, g.H)

	// As a user's profile would: the real claude on PATH after the shim.
	a.mustCLI(nil, "send", leadSel, `export PATH="$PATH:`+filepath.Dir(claude)+`"; cd `+project+" && claude --permission-mode acceptEdits", "--submit")
	a.within(agentTimeout, "the Claude Code prompt", func() (bool, string) {
		out := a.readRaw(leadSel)
		return strings.Contains(out, "accept edits on"), out
	})
	// The sidebar before the team: the colours of teammates' names are
	// not there yet (or only as much as anything else shows of them).
	before := a.stable("before-team", side)

	a.mustCLI(nil, "send", leadSel, lead, "--submit")
	mates := map[string]teamRow{}
	var leadRow teamRow
	a.within(agentTimeout, "panes named alpha and beta in the lead's team", func() (bool, string) {
		rows := a.teamRows()
		for _, r := range rows {
			switch {
			case r.ID == leadID:
				leadRow = r
			case r.Teammate != "" && r.Name == r.Teammate && r.Team != "":
				mates[r.Name] = r
			}
		}
		return len(mates) == len(names) && leadRow.Team != "", fmt.Sprintf("%+v", rows)
	})
	for _, n := range names {
		if m := mates[n]; m.Workspace != 0 || m.Team != leadRow.Team || leadRow.Teammate != "" || leadRow.Workspace != 0 {
			t.Fatalf("teammate %s = %+v, lead = %+v: want both in workspace 0, in the lead's team", n, m, leadRow)
		}
	}
	// Both teammates beside the lead in its workspace; Claude Code splits
	// with -d, so the lead keeps the focus.
	c := a.current()
	if c.Index != 0 || c.Panes != 3 || c.focused() != leadID {
		t.Errorf("workspace.current = index %d, %d panes, focus on %d; want 0, 3, the lead %d", c.Index, c.Panes, c.focused(), leadID)
	}
	for _, n := range names {
		a.within(agentTimeout, n+"'s model request and the lead hearing back", func() (bool, string) {
			asked, heard := false, false
			for _, r := range model.Requests() {
				b := string(r.Body)
				if r.Turn > 0 && strings.Contains(b, prompts[n]) && !strings.Contains(b, lead) {
					asked = true
				}
				if r.Turn > 0 && strings.Contains(b, lead) && fakemodel.TeammateResult(r.Body, n, answer) {
					heard = true
				}
			}
			return asked && heard, fmt.Sprintf("teammate asked: %v, lead heard: %v", asked, heard)
		})
	}

	// The team as Claude Code wrote it under the lead's HOME (the app's):
	// its name is the one the socket and the sidebar show.
	var cfg struct {
		Name    string `json:"name"`
		Members []struct {
			Name, Color, TmuxPaneID, BackendType string
		} `json:"members"`
	}
	cfgPath := filepath.Join(a.dir, ".claude", "teams", leadRow.Team, "config.json")
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatalf("Claude Code's team config: %v", err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s: %v\n%s", cfgPath, err, data)
	}
	shown := leadRow.Team
	if leadRow.TeamName != "" {
		shown = leadRow.TeamName
	}
	if cfg.Name == "" || cfg.Name != shown {
		t.Errorf("the team is shown as %q; Claude Code's config.json names it %q", shown, cfg.Name)
	}
	colors := map[string]string{}
	for _, m := range cfg.Members {
		if m.BackendType == "tmux" {
			colors[m.Name] = m.Color
		}
	}
	for _, n := range names {
		if _, ok := teamColors[colors[n]]; !ok || colors[names[0]] == colors[names[1]] {
			t.Fatalf("config.json's teammates and colours = %v, want %q, each with its own known colour\n%s", colors, names, data)
		}
	}

	// The sidebar: each teammate's name in its colour, one row each,
	// under the lead (teammates follow their lead), in the order the
	// socket lists them.
	var order []string
	for _, r := range a.teamRows() {
		if r.Teammate != "" {
			order = append(order, r.Teammate)
		}
	}
	if len(order) != len(names) {
		t.Fatalf("teammates listed: %q", order)
	}
	rows := map[string]box{}
	a.within(agentTimeout, "the teammates' coloured names in the sidebar", func() (bool, string) {
		img := a.stable("team", side)
		var state []string
		ok := true
		for _, n := range names {
			c := teamColors[colors[n]]
			// The names are small antialiased text on the card's
			// highlight: the glyphs' cores come within 24 of the colour
			// (about 50 px per name), nothing else in the sidebar does.
			match := func(p rgb) bool { return p.close(c, 24) }
			was, now := find(before, side, match), find(img, side, match)
			rows[n] = now
			ok = ok && now.N > was.N+20
			state = append(state, fmt.Sprintf("%s (%s): %d px, %d before", n, colors[n], now.N, was.N))
		}
		return ok, strings.Join(state, "; ")
	})
	upper, lower := rows[order[0]], rows[order[1]]
	if upper.Max.Y > lower.Min.Y || upper.Dy() > 30 || lower.Dy() > 30 {
		t.Errorf("%s's name at %v, %s's at %v: want one row each, in that order", order[0], upper.Rectangle, order[1], lower.Rectangle)
	}
	a.saveSidebar("team-sidebar", side)

	// /exit, and Enter on a dialog below, start no turn: send --submit
	// says so (exit 1), which is no error here.
	a.typeCommand(leadSel, "/exit")
	a.within(agentTimeout, "the teammates' panes closing", func() (bool, string) {
		rows := a.teamRows()
		for _, r := range rows {
			if r.ID == mates["alpha"].ID || r.ID == mates["beta"].ID {
				// With a teammate running, Claude Code may ask first;
				// its first, selected choice exits and stops the team.
				if out := a.readRaw(leadSel); strings.Contains(out, "Exit and stop") {
					a.typeCommand(leadSel, "")
				}
				return false, fmt.Sprintf("%+v", rows)
			}
		}
		return true, ""
	})
}

// saveSidebar screenshots the window and keeps its sidebar, r, as a PNG
// artifact of its own.
func (a *app) saveSidebar(name string, r image.Rectangle) {
	a.t.Helper()
	img := a.screenshot(name)
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		a.t.Fatalf("screenshot %T cannot be cropped", img)
	}
	base := strings.NewReplacer("/", "-", " ", "_").Replace(a.t.Name())
	path := filepath.Join(artifacts, base+"-"+name+"-cropped.png")
	f, err := os.Create(path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, sub.SubImage(r.Intersect(img.Bounds()))); err != nil {
		a.t.Fatal(err)
	}
	a.t.Logf("sidebar %s", path)
}

// typeCommand types line with `send --submit` into the agent TUI of pane
// sel where it may start no turn (a slash command, Enter on a dialog's
// choice): send's "no turn start was confirmed" (exit 1) is no error.
func (a *app) typeCommand(sel, line string) {
	a.t.Helper()
	if r := a.cli("send", sel, line, "--submit"); r.code != 0 && !strings.Contains(r.stderr, "no turn start was confirmed") {
		a.t.Fatalf("want exit 0, or 1 with no turn start:\n%s", r)
	}
}
