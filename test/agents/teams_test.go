//go:build linux

package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
	"github.com/paneflow-go/paneflow/test/internal/proctest"
)

// teamPane is one entry of `paneflow ls`.
type teamPane struct {
	ID        uint64 `json:"surface_id"`
	Name      string `json:"name"`
	Workspace int    `json:"workspace"`
	Team      string `json:"team"`
	Teammate  string `json:"teammate"`
	Cmd       string `json:"cmd"`
}

// panes lists every pane.
func (e *env) panes() []teamPane {
	e.t.Helper()
	var ls struct{ Surfaces []teamPane }
	if err := json.Unmarshal([]byte(e.mustCLI("ls")), &ls); err != nil {
		e.t.Fatalf("paneflow ls: %v", err)
	}
	return ls.Surfaces
}

// teammateMessages finds the teammates' messages in a model request.
var teammateMessages = regexp.MustCompile(`<teammate-message[^>]*>[^<]{0,300}`)

// teamLead is the lead's prompt in the team runs.
const teamLead = "SPAWN_TEAM please"

// claudeTeamSetup is the ~/.claude.json of a team run: onboarding done,
// the project trusted, the fake key approved.
func claudeTeamSetup(write func(rel, content string), project string) {
	write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+project+`":{"hasTrustDialogAccepted":true}},`+
		`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
}

// TestClaudeAgentTeam runs a real Claude Code lead with agent teams on:
// its model spawns teammates named alpha and beta, which open as panes
// named after them in the lead's workspace (through the launch shim's
// tmux mode), each runs a real teammate that asks the model and is
// answered, the lead hears back from both, and the teammates' panes close
// when the lead exits.
func TestClaudeAgentTeam(t *testing.T) {
	t.Parallel()
	prove(t, "claude", "teams", "yes")
	const answer = "hello from the team"
	names := []string{"alpha", "beta"}
	script, prompts := fakemodel.TeamScript(answer, names...)
	model := fakemodel.Start(t, script...)
	logDir, err := os.MkdirTemp("", "pfa-hooklog-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(logDir) })
	hookLog := filepath.Join(logDir, "hook.log")
	e := newEnv(t, model, options{
		// DEBUG=1 has Claude Code keep its debug log in
		// ~/.claude/debug/<session>.txt: the lead's and the teammates'
		// mailbox writes and reads, logged below when the test fails.
		profile: claudeProfile(model) + "export CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 DEBUG=1\nexport PANEFLOW_HOOK_LOG=" + hookLog + "\n",
		setup:   func(e *env) { claudeTeamSetup(e.write, e.project) },
	})
	// Every pane's events: a teammate's pane closes once its turn ends
	// (Claude Code stops it), often before a status poll could read it,
	// so its finished turn is looked for in the stream.
	var all proctest.Buffer
	w := exec.Command(filepath.Join(binDir, "paneflow"), "watch")
	w.Env, w.Stdout, w.Stderr = e.environ, &all, &all
	watch, err := proctest.Start(w)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Terminate(10 * time.Second)
	mates := map[string]teamPane{}
	// On failure: the teammates' panes, which pane each agent frame and
	// state went to, and what paneflow-ai-hook logged (teammates should
	// post http hooks).
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		var b strings.Builder
		for _, line := range strings.Split(all.String(), "\n") {
			var ev event
			if json.Unmarshal([]byte(line), &ev) == nil && (ev.Type == "agent_state" || strings.HasPrefix(ev.Type, "ai.")) {
				b.WriteString(line + "\n")
			}
		}
		t.Logf("teammate panes: %+v", mates)
		t.Logf("every pane's agent events:\n%s", proctest.Indent(b.String()))
		log, err := os.ReadFile(hookLog)
		t.Logf("hook log (%v):\n%s", err, proctest.Indent(string(log)))
		// The team's mailboxes as Claude Code left them: whether a
		// teammate's message to the lead was written, and read.
		inboxes, _ := filepath.Glob(filepath.Join(e.home, ".claude", "teams", "*", "inboxes", "*.json"))
		for _, f := range inboxes {
			data, err := os.ReadFile(f)
			t.Logf("%s (%v):\n%s", f, err, proctest.Indent(fmt.Sprintf("%.4000s", data)))
		}
		// What each Claude Code process logged of its mailboxes: a
		// failed or refused write says why a message never arrived.
		logs, _ := filepath.Glob(filepath.Join(e.home, ".claude", "debug", "*.txt"))
		for _, f := range logs {
			data, err := os.ReadFile(f)
			var mail strings.Builder
			for _, line := range strings.Split(string(data), "\n") {
				if !strings.Contains(line, "TeammateMailbox") && !strings.Contains(line, "inbox") {
					continue
				}
				// Not the empty polls, once a second for as long as the
				// test waited.
				if strings.Contains(line, "getInboxPath") || strings.Contains(line, "readMailbox: path=") ||
					strings.Contains(line, "read 0 message") || strings.Contains(line, " 0 unread of") {
					continue
				}
				mail.WriteString(line + "\n")
			}
			t.Logf("%s (%v), its mailbox lines:\n%s", f, err, proctest.Indent(mail.String()))
		}
		// What each model request heard from the teammates (the harness
		// logs only the start of each body).
		for i, r := range model.Requests() {
			for _, m := range teammateMessages.FindAllString(string(r.Body), -1) {
				t.Logf("model request %d (turn %d) holds %.400s", i, r.Turn, m)
			}
		}
	})
	e.waitFor("every pane's event stream", func() bool { return strings.Contains(all.String(), `"subscribed"`) })
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitFor("the Claude Code prompt", func() bool {
		out, _ := e.cli("read", "1")
		return strings.Contains(out, "accept edits on")
	})
	e.submitPrompt(teamLead)

	e.waitFor("panes named alpha and beta in the lead's workspace", func() bool {
		for _, p := range e.panes() {
			// Named first (select-pane -T) on the `cat` placeholder, which
			// is in the team already when it was split from a teammate that
			// runs (Claude Code splits the second teammate from the first):
			// the teammate's pane is the one respawn-pane started it in
			// (a new surface), whose command names it.
			if p.Teammate != "" && p.Name == p.Teammate && p.Team != "" && strings.Contains(p.Cmd, " --agent-name "+p.Teammate+" ") {
				mates[p.Name] = p
			}
		}
		return len(mates) == len(names)
	})
	for _, n := range names {
		if m := mates[n]; m.Workspace != 0 || m.ID == 1 || m.Team == "" {
			t.Fatalf("teammate pane %s = %+v, want a new pane in workspace 0 in a team", n, m)
		}
	}
	if mates["alpha"].ID == mates["beta"].ID || mates["alpha"].Team != mates["beta"].Team {
		t.Fatalf("teammates = %+v, want two panes in one team", mates)
	}
	for _, n := range names {
		// The teammate's own request: its prompt without the lead's.
		e.waitFor(n+"'s model request", func() bool {
			for _, r := range model.Requests() {
				b := string(r.Body)
				if r.Turn > 0 && strings.Contains(b, prompts[n]) && !strings.Contains(b, teamLead) {
					return true
				}
			}
			return false
		})
		// The lead hears back: a lead request carries the teammate's
		// message with its result.
		e.waitFor("the lead's request with "+n+"'s result", func() bool {
			for _, r := range model.Requests() {
				if r.Turn > 0 && strings.Contains(string(r.Body), teamLead) && fakemodel.TeammateResult(r.Body, n, answer) {
					return true
				}
			}
			return false
		})
		// The teammate's hooks, the lead's http hooks that Claude Code
		// gave it, post with its own pane's ids and the secret its pane
		// inherited: its turn's end shows on its pane.
		e.waitFor(n+"'s finished turn on its pane", func() bool {
			for _, line := range strings.Split(all.String(), "\n") {
				var ev struct {
					event
					SurfaceID uint64 `json:"surface_id"`
				}
				if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "agent_state" && ev.SurfaceID == mates[n].ID &&
					ev.Hooked && str(ev.State) == "finished" && str(ev.LastResult) == answer {
					return true
				}
			}
			return false
		})
	}
	// The lead's hooks are http hooks too (no hook process ran; agent
	// teams once kept command hooks).
	if b, err := os.ReadFile(hookLog); err == nil && len(b) > 0 {
		t.Errorf("paneflow-ai-hook ran (http hooks expected):\n%s", b)
	}

	e.typeCommand("/exit")
	e.waitFor("the teammates' panes closing", func() bool {
		for _, p := range e.panes() {
			if p.ID == mates["alpha"].ID || p.ID == mates["beta"].ID {
				// With a teammate running, Claude Code may ask first;
				// its first, selected choice exits and stops the team.
				if out, _ := e.cli("read", "1"); strings.Contains(out, "Exit and stop") {
					t.Logf("the lead asks before exiting:\n%s", out)
					e.typeCommand("")
				}
				return false
			}
		}
		return true
	})
}
