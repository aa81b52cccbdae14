//go:build linux

package gui

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// usageProbe waits for the window's probe of a sidebar usage line (key
// "pane=N", "turn=N" or "workspace=N") showing text, logged after line from of the
// window's stderr, and returns where it is.
func (a *app) usageProbe(key, text string, from int) (x, y int) {
	a.t.Helper()
	re := regexp.MustCompile(`^ui-probe sidebar-usage ` + regexp.QuoteMeta(key+" text="+strconv.Quote(text)) + ` x=(\d+) y=(\d+)$`)
	l, err := a.waitLine(re, from, pollTimeout)
	if err != nil {
		a.t.Fatalf("the sidebar did not show %s's usage %q: %v\nwindow's stderr:\n%s", key, text, err, a.log.String())
	}
	m := re.FindStringSubmatch(l.text)
	x, _ = strconv.Atoi(m[1])
	y, _ = strconv.Atoi(m[2])
	return x, y
}

// sidebarLineInk counts the pixels of the sidebar line centred on row y
// that differ clearly from the line's background (its colour at the
// sidebar's right edge, where no caption line reaches): a drawn line of
// caption text has some hundreds.
func sidebarLineInk(img image.Image, y int) int {
	bg := at(img, sidebarPx-6, y)
	return find(img, image.Rect(4, y-6, sidebarPx-8, y+7), func(c rgb) bool { return !c.close(bg, 60) }).N
}

// TestUsageSidebar: what an agent used, in the sidebar of a window
// attached to its server. A fake Claude Code session runs in the
// server's pane: a script whose hooks are the real paneflow-ai-hook, as
// Claude Code runs it, naming a transcript the test writes as Claude
// Code does (an assistant message with its usage); the server's usage
// subsystem reads it. The window shows the session's tokens and cost
// (claude-haiku-4-5: 100k in at $1/M, 20k out at $5/M) under the pane
// and the workspace's total in its card; a window attached later shows
// them from the start, and the next turn's as it comes; its agents
// overview shows the day's total past 80 % of the configured daily
// budget, in the warning colour.
func TestUsageSidebar(t *testing.T) {
	x := display(t)
	// A daily budget of 25 cents, which pauses nobody: the day's 22
	// cents are 88 % of it, past the 80 % warning.
	sdir := freshDir(t)
	if err := os.MkdirAll(filepath.Join(sdir, "config", "paneflow"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sdir, "config", "paneflow", "paneflow.toml"),
		[]byte("[usage.daily_budget]\ncost = 0.25\npause = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := launchIn(t, nil, cliBin, []string{"serve", "--size", "100x30", "--socket"}, nil, sdir, "")
	srv.waitPing()
	srv.waitOutput("1", promptRe)
	dir := tempDir(t)
	transcript := filepath.Join(dir, "5f3c2a9e.jsonl")
	if err := os.WriteFile(transcript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	payload := func(event, extra string) string {
		p := filepath.Join(dir, event+".json")
		body := fmt.Sprintf(`{"session_id":"5f3c2a9e-1b7d-4c2e-9a61-0d8e4f2b7c11","transcript_path":%q,"cwd":%q,"permission_mode":"default","hook_event_name":%q%s}`,
			transcript, dir, event, extra)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hook := filepath.Join(filepath.Dir(cliBin), "paneflow-ai-hook")
	run := func(event, extra string) string { return hook + " " + event + " < " + payload(event, extra) }
	// The agent: its hooks as Claude Code runs them, each turn's answer
	// written by the test while it waits for a line.
	script := strings.Join([]string{
		"export PANEFLOW_AI_TOOL=claude PANEFLOW_AI_PID=$$",
		run("SessionStart", `,"source":"startup","model":"claude-haiku-4-5"`),
		run("UserPromptSubmit", `,"prompt":"count the tokens"`),
		"echo agent-turn-1",
		"read go",
		run("Stop", `,"stop_hook_active":false,"last_assistant_message":"Counted."`),
		"echo agent-stopped-1",
		"read go",
		run("UserPromptSubmit", `,"prompt":"once more"`),
		"echo agent-turn-2",
		"read go",
		run("Stop", `,"stop_hook_active":false,"last_assistant_message":"Counted."`),
		"echo agent-stopped-2",
		"read go",
	}, "\n") + "\n"
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	answer := func(n int, input, output int64) {
		t.Helper()
		line := fmt.Sprintf(`{"type":"assistant","requestId":"req_%d","message":{"id":"msg_%d","model":"claude-haiku-4-5","usage":{"input_tokens":%d,"output_tokens":%d}},"timestamp":%q}`+"\n",
			n, n, input, output, time.Now().UTC().Format(time.RFC3339Nano))
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	attach := func() *app {
		return windowReady(launchOn(t, x, guiBin, []string{"--attach", "--socket"}, []string{"PANEFLOW_UI_PROBE=1"}, srv.sock))
	}
	var list struct {
		Workspaces []struct {
			ID uint64 `json:"workspace_id"`
		} `json:"workspaces"`
	}
	srv.rpc(&list, "workspace.list", map[string]any{})
	if len(list.Workspaces) != 1 {
		t.Fatalf("workspace.list = %+v, want the server's one workspace", list)
	}
	ws := list.Workspaces[0].ID
	// shows checks the screenshot's sidebar line at y has text.
	shows := func(w *app, name string, y int) {
		t.Helper()
		img := w.screenshot(name)
		if n := sidebarLineInk(img, y); n < 40 {
			t.Errorf("%s: the sidebar line at y=%d has %d pixels of text, want a line of text", name, y, n)
		}
	}

	w := attach()
	srv.mustCLI(nil, "send", "1", "sh "+agent, "--submit")
	srv.waitOutput("1", "agent-turn-1")
	answer(1, 100_000, 20_000)
	srv.mustCLI(nil, "send", "1", "go", "--submit")
	srv.waitOutput("1", "agent-stopped-1")
	_, y := w.usageProbe("pane=1", "session 120k tok · $0.20", 0)
	_, wy := w.usageProbe(fmt.Sprintf("workspace=%d", ws), "agents used 120k tok · $0.20", 0)
	shows(w, "first-turn", y)
	shows(w, "first-turn", wy)
	if err := w.terminate(); err != nil {
		t.Fatal(err)
	}

	// A window attached now shows what was used before it came.
	w = attach()
	_, y = w.usageProbe("pane=1", "session 120k tok · $0.20", 0)
	shows(w, "reattached", y)
	from := w.log.count()
	srv.mustCLI(nil, "send", "1", "go", "--submit")
	srv.waitOutput("1", "agent-turn-2")
	answer(2, 10_000, 2_400)
	srv.mustCLI(nil, "send", "1", "go", "--submit")
	srv.waitOutput("1", "agent-stopped-2")
	_, y = w.usageProbe("pane=1", "session 132k tok · $0.22", from)
	w.usageProbe(fmt.Sprintf("workspace=%d", ws), "agents used 132k tok · $0.22", from)
	_, ty := w.usageProbe("turn=1", "turn 12.4k tok · $0.02", from)
	shows(w, "second-turn", y)
	shows(w, "second-turn", ty)

	// The agents overview: the day's total, past 80 % of its budget, in
	// the warning colour.
	from = w.log.count()
	w.xdo("windowfocus", "--sync", w.win)
	w.xdo("key", "ctrl+shift+a")
	today := "Today: 132k tok · $0.22 — 88 % of the daily budget ($0.25)"
	re := regexp.MustCompile(`^ui-probe overview-today text=` + regexp.QuoteMeta(strconv.Quote(today)) + ` x=(\d+) y=(\d+)$`)
	l, err := w.waitLine(re, from, pollTimeout)
	if err != nil {
		t.Fatalf("the overview did not show %q: %v\nwindow's stderr:\n%s", today, err, w.log.String())
	}
	m := re.FindStringSubmatch(l.text)
	y, _ = strconv.Atoi(m[2])
	img := w.screenshot("overview")
	if n := find(img, image.Rect(sidebarPx, y-8, sidebarPx+500, y+9), isAmber).N; n < 40 {
		t.Errorf("the overview's day line at y=%d has %d amber pixels, want it in the warning colour", y, n)
	}
}
