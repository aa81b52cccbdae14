//go:build linux

package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// The scripted answers of the review pipeline: the implementer's turn
// (which the impl step's barrier waits for and captures) and the
// reviewer's.
const (
	implAnswer   = "DONE: added the widget parser with its tests."
	reviewAnswer = "REVIEW-OK: the widget parser looks right."
)

// reviewFlow is the spec's review pipeline (specs.md §7) with both panes
// running Claude Code and both prompts submitted by the flow (so it needs
// the scripting gate). The patterns do not occur in the prompts, which the
// TUI echoes: only the model's answers satisfy the barriers.
const reviewFlow = `name = "review-pipeline"
[defaults]
timeout_secs = 180
on_failure = "fail_fast"

[[step]]
id = "impl"
submit = true
pane = { cwd = "PROJECT", agent = "claude", prompt = "Implement the task in TASK.md; when done, print one line starting with the word DONE and a colon, then a one-sentence summary." }
ready = { pattern = "DONE: added the widget" }
capture = { var = "summary", lines = 40 }

[[step]]
id = "review"
needs = ["impl"]
submit = true
pane = { cwd = "PROJECT", agent = "claude", prompt = "Review the just-completed implementation, summarised here: ${summary} Call out bugs, missing edge cases and tests." }
ready = { pattern = "REVIEW-OK: the widget" }
`

// flowReport is `paneflow flow run --json`'s report.
type flowReport struct {
	Status  string  `json:"status"`
	Aborted *string `json:"aborted"`
	Steps   []struct {
		ID        string  `json:"id"`
		Status    string  `json:"status"`
		SurfaceID *uint64 `json:"surface_id"`
		Error     *string `json:"error"`
	} `json:"steps"`
	Run   string        `json:"run"`
	Usage *usageFigures `json:"usage"`
}

// flowClaudeSetup is the set-up of a test whose flow's panes run Claude
// Code: they run `claude` with sh -c from the server, so the server's
// environment (not ~/.profile) must find it and point it at model, and
// the project is trusted and onboarded.
func flowClaudeSetup(model *fakemodel.Server) func(*env) {
	return func(e *env) {
		e.environ = append(e.environ,
			"PATH="+filepath.Dir(agents["claude"])+":"+os.Getenv("PATH"),
			"ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY="+claudeKey,
			"DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_AUTOUPDATER=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1")
		e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
			`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
	}
}

// TestFlowReviewPipelineClaude: `paneflow flow run` of the review pipeline
// with real Claude Code 2.1.332 TUIs against the fake model: impl's prompt
// is prefilled and submitted, its barrier sees the scripted answer, the
// captured lines are fed, fenced, into the reviewer's submitted prompt, and
// the reviewer's barrier sees its answer. The model's request log shows
// what each Claude Code sent.
func TestFlowReviewPipelineClaude(t *testing.T) {
	t.Parallel()
	model := fakemodel.Start(t, fakemodel.Turn{Text: implAnswer}, fakemodel.Turn{Text: reviewAnswer})
	e := newEnv(t, model, options{setup: flowClaudeSetup(model)})
	if err := os.WriteFile(filepath.Join(e.project, "review.flow.toml"), []byte(strings.ReplaceAll(reviewFlow, "PROJECT", e.project)), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(filepath.Join(binDir, "paneflow"), "flow", "run", "review.flow.toml", "--json", "--yes")
	cmd.Env, cmd.Dir = e.environ, e.project
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	t.Cleanup(func() {
		if t.Failed() {
			for _, sid := range []string{"2", "3"} {
				out, err := e.cli("read", sid, "--raw")
				t.Logf("pane %s: %v\n%s", sid, err, out)
			}
		}
	})
	var rep flowReport
	if jerr := json.Unmarshal([]byte(stdout.String()), &rep); err != nil || jerr != nil {
		t.Fatalf("paneflow flow run: %v (report: %v)\nstdout:\n%s\nstderr:\n%s", err, jerr, stdout.String(), stderr.String())
	}
	sids := map[string]uint64{}
	for _, st := range rep.Steps {
		if st.Status != "READY" || st.SurfaceID == nil {
			t.Fatalf("step %s is %s (%s); stderr:\n%s", st.ID, st.Status, str(st.Error), stderr.String())
		}
		sids[st.ID] = *st.SurfaceID
	}
	if rep.Status != "ready" || len(sids) != 2 || sids["impl"] == sids["review"] {
		t.Fatalf("report %+v; stderr:\n%s", rep, stderr.String())
	}

	// Turn 0 is impl's Claude Code, sent once the flow submitted its
	// prompt; turn 1 is the reviewer's, which can only come after impl
	// was READY (the review pane opens then).
	var implReq, reviewReq string
	for _, r := range model.Requests() {
		switch r.Turn {
		case 0:
			implReq = userText(t, r.Body)
		case 1:
			reviewReq = userText(t, r.Body)
		}
	}
	if !strings.Contains(implReq, "Implement the task in TASK.md") {
		t.Errorf("impl's model request lacks its prompt:\n%s", implReq)
	}
	// The reviewer got the capture inside the fence the flow reads it
	// with, surrounded by its prompt's text.
	open := `<untrusted_terminal_output source="surface:` + jsonUint(sids["impl"]) + `"`
	i := strings.Index(reviewReq, open)
	j := strings.Index(reviewReq, "</untrusted_terminal_output id=")
	switch {
	case i < 0 || j < i:
		t.Errorf("the reviewer's model request has no fenced capture of pane %d:\n%s", sids["impl"], reviewReq)
	case !strings.Contains(reviewReq[i:j], implAnswer):
		t.Errorf("the fenced capture lacks impl's answer %q:\n%s", implAnswer, reviewReq[i:j])
	case !strings.Contains(reviewReq[:i], "Review the just-completed implementation, summarised here:") ||
		!strings.Contains(reviewReq[j:], "Call out bugs, missing edge cases and tests."):
		t.Errorf("the reviewer's prompt is not around the capture:\n%s", reviewReq)
	}
	if model.Turns() != 2 {
		t.Errorf("the model answered %d turns, want 2 (one per pane)", model.Turns())
	}
}

// userText is the text of the user messages of an Anthropic Messages
// request body, joined by newlines.
func userText(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("model request: %v: %.300s", err, body)
	}
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			b.WriteString(s + "\n")
			continue
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			t.Fatalf("model request content: %v: %.300s", err, m.Content)
		}
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text + "\n")
			}
		}
	}
	return b.String()
}

// jsonUint formats a surface id as the fence's source attribute does.
func jsonUint(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// budgetFlow is one step whose Claude Code TUI, against a model that has
// it run a long command, crosses its step's budget with its first
// response.
const budgetFlow = `name = "budgeted"
[[step]]
id = "impl"
submit = true
pane = { cwd = "PROJECT", command = "claude --permission-mode acceptEdits --allowedTools Bash", prompt = "Wait for the build, then report." }
ready = { pattern = "NEVER-PRINTED", timeout_secs = 180 }
budget = { tokens = 1000 }
`

// TestFlowBudgetClaude: a flow step with a small budget, run by the real
// Claude Code 2.1.332 TUI: its first response (with a Bash call of a long
// command) is over the budget, so Paneflow presses Escape in its pane
// while the command runs (Claude Code stops it and asks the model nothing
// more), the step fails with "budget exceeded", a budget_alert names the
// paused pane, and the run's usage is the model's first answer, to the
// token.
func TestFlowBudgetClaude(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := fakemodel.Start(t,
		fakemodel.Turn{Text: "Running it.", Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{"command": pollLoop(dir, "budget"), "description": "wait for the build"}}}},
		fakemodel.Turn{Text: "the model was asked again"})
	e := newEnv(t, model, options{setup: flowClaudeSetup(model)})
	alerts := exec.Command(filepath.Join(binDir, "paneflow"), "watch", "--type", "budget_alert")
	var alertOut proctest.Buffer
	alerts.Env, alerts.Stdout, alerts.Stderr = e.environ, &alertOut, &alertOut
	w, err := proctest.Start(alerts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Terminate(10 * time.Second) })
	e.waitFor("the alert stream", func() bool { return strings.Contains(alertOut.String(), `"subscribed"`) })
	if err := os.WriteFile(filepath.Join(e.project, "budget.flow.toml"), []byte(strings.ReplaceAll(budgetFlow, "PROJECT", e.project)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(binDir, "paneflow"), "flow", "run", "budget.flow.toml", "--json", "--yes")
	cmd.Env, cmd.Dir = e.environ, e.project
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var rep flowReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil || runErr == nil {
		t.Fatalf("paneflow flow run: %v, want exit 1 (report: %v)\nstdout:\n%s\nstderr:\n%s", runErr, err, stdout.String(), stderr.String())
	}
	if len(rep.Steps) != 1 || rep.Steps[0].Status != "FAILED" || !strings.HasPrefix(str(rep.Steps[0].Error), "budget exceeded: step 'impl'") || rep.Steps[0].SurfaceID == nil {
		t.Fatalf("report %+v; stderr:\n%s", rep, stderr.String())
	}
	sid := *rep.Steps[0].SurfaceID
	t.Cleanup(func() {
		if t.Failed() {
			out, err := e.cli("read", jsonUint(sid), "--raw")
			t.Logf("pane %d: %v\n%s", sid, err, out)
			t.Logf("alerts:\n%s", alertOut.String())
			for _, r := range model.Requests() {
				if i := strings.LastIndex(string(r.Body), `"tool_result"`); i >= 0 {
					t.Logf("model request %d's last tool result: %.600s", r.Turn, r.Body[i:])
				}
			}
		}
	})
	// Claude Code stops the command it was running.
	e.waitFor("the interrupted command to end", func() bool {
		return exec.Command("pgrep", "-f", filepath.Join(dir, "go")).Run() != nil
	})
	// Claude Code says so and waits for its user: the turn is over.
	e.waitFor("Claude Code's interruption on the screen", func() bool {
		out, _ := e.cli("read", jsonUint(sid), "--raw")
		return strings.Contains(out, "Interrupted")
	})
	e.waitFor("the budget_alert", func() bool {
		return strings.Contains(alertOut.String(), `"paused":[`+jsonUint(sid)+`]`)
	})
	var sum struct {
		Groups []struct {
			Key   string       `json:"key"`
			Flow  string       `json:"flow"`
			Usage usageFigures `json:"usage"`
		} `json:"groups"`
	}
	out := e.mustCLI("usage", "--by", "flow", "--json")
	json.Unmarshal([]byte(out), &sum)
	first := model.Requests()
	var want fakemodel.Usage
	for _, r := range first {
		if r.Turn == 0 {
			want = r.Usage
		}
	}
	total := int64(want.Input + want.CacheRead + want.CacheWrite + want.Output)
	if len(sum.Groups) != 1 || sum.Groups[0].Flow != "budgeted" || sum.Groups[0].Usage.Total != total {
		t.Errorf("paneflow usage --by flow = %s; want the budgeted run with the first answer's %+v", out, want)
	}
	// The run's report says what it used (what crossed the budget).
	if len(sum.Groups) == 1 && rep.Run != sum.Groups[0].Key || rep.Usage == nil || rep.Usage.Total != total {
		t.Errorf("the report's run %q and usage %+v; want the run of paneflow usage --by flow (%s) with %d tokens", rep.Run, rep.Usage, out, total)
	}
	// The fleet (paneflow ps, the MCP bridge's list_agents) shows the
	// paused agent's session usage too.
	var fleet struct {
		Agents []struct {
			Tool      string  `json:"tool"`
			SurfaceID *uint64 `json:"surface_id"`
			Usage     *struct {
				Session usageFigures `json:"session"`
			} `json:"usage"`
		} `json:"agents"`
	}
	out = e.mustCLI("ps", "--json")
	json.Unmarshal([]byte(out), &fleet)
	shown := false
	for _, a := range fleet.Agents {
		shown = shown || a.Tool == "claude" && a.SurfaceID != nil && *a.SurfaceID == sid && a.Usage != nil && a.Usage.Session.Total == total
	}
	if !shown {
		t.Errorf("paneflow ps --json = %s; want pane %d's claude with its session's %d tokens", out, sid, total)
	}
	if n := model.Turns(); n != 1 {
		t.Errorf("the model was asked %d times, want once: the interrupted agent went on", n)
	}
}
