//go:build linux

package agents

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/paneflow-go/paneflow/test/internal/fakemodel"
)

// teamPane is one entry of `paneflow ls`.
type teamPane struct {
	ID        uint64 `json:"surface_id"`
	Name      string `json:"name"`
	Workspace int    `json:"workspace"`
	Team      string `json:"team"`
	Teammate  string `json:"teammate"`
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

// TestClaudeAgentTeam runs a real Claude Code lead with agent teams on:
// its model spawns a teammate named alpha, which opens as a pane named
// alpha in the lead's workspace (through the launch shim's tmux mode),
// runs a real teammate that asks the model and is answered, the lead
// hears back, and the teammate's pane closes when the lead exits.
func TestClaudeAgentTeam(t *testing.T) {
	t.Parallel()
	const (
		lead   = "SPAWN_TEAM please"
		prompt = "Say hello to the lead."
		answer = "hello from the team"
	)
	script := []fakemodel.Turn{{Text: "Spawning a teammate.", Calls: []fakemodel.Call{{Name: "Agent", Args: map[string]any{
		"name": "alpha", "description": "say hello", "prompt": prompt, "subagent_type": "general-purpose"}}}}}
	for range 40 {
		script = append(script, fakemodel.Turn{Text: answer})
	}
	model := fakemodel.Start(t, script...)
	e := newEnv(t, model, options{
		profile: claudeProfile(model) + "export CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1\n",
		setup: func(e *env) {
			e.write(".claude.json", `{"hasCompletedOnboarding":true,"projects":{"`+e.project+`":{"hasTrustDialogAccepted":true}},`+
				`"customApiKeyResponses":{"approved":["`+claudeKey[len(claudeKey)-20:]+`"],"rejected":[]}}`+"\n")
		},
	})
	e.typeLine("claude --permission-mode acceptEdits")
	e.waitFor("the Claude Code prompt", func() bool {
		out, _ := e.cli("read", "1")
		return strings.Contains(out, "accept edits on")
	})
	e.typeLine(lead)

	var mate teamPane
	e.waitFor("a pane named alpha in the lead's workspace", func() bool {
		for _, p := range e.panes() {
			if p.Name == "alpha" && p.Teammate == "alpha" {
				mate = p
				return true
			}
		}
		return false
	})
	if mate.Workspace != 0 || mate.ID == 1 {
		t.Fatalf("teammate pane = %+v, want a new pane in workspace 0", mate)
	}
	// The teammate's own request: its prompt without the lead's.
	mateAsked := func(r fakemodel.Request) bool {
		b := string(r.Body)
		return r.Turn > 0 && strings.Contains(b, prompt) && !strings.Contains(b, lead)
	}
	e.waitFor("the teammate's model request", func() bool {
		for _, r := range model.Requests() {
			if mateAsked(r) {
				return true
			}
		}
		return false
	})
	// The lead hears back: a later lead request carries alpha's message
	// with the teammate's result.
	e.waitFor("the lead's request with the teammate's result", func() bool {
		seen := false
		for _, r := range model.Requests() {
			switch {
			case mateAsked(r):
				seen = true
			case seen && r.Turn > 0 && strings.Contains(string(r.Body), lead) && hasTeammateResult(r.Body, "alpha", answer):
				return true
			}
		}
		return false
	})

	e.typeLine("/exit")
	e.waitFor("the teammate's pane closing", func() bool {
		for _, p := range e.panes() {
			if p.ID == mate.ID {
				// With a teammate running, Claude Code may ask first;
				// its first, selected choice exits and stops the team.
				if out, _ := e.cli("read", "1"); strings.Contains(out, "Exit and stop") {
					t.Logf("the lead asks before exiting:\n%s", out)
					e.mustCLI("send", "1", "", "--submit")
				}
				return false
			}
		}
		return true
	})
}

// hasTeammateResult reports whether an Anthropic request body holds a
// user text with Claude Code's message from teammate name carrying result.
func hasTeammateResult(body []byte, name, result string) bool {
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &b) != nil {
		return false
	}
	for _, m := range b.Messages {
		if m.Role != "user" {
			continue
		}
		var parts []struct{ Text string }
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			parts = append(parts, struct{ Text string }{text})
		} else if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if strings.Contains(p.Text, `<teammate-message teammate_id="`+name+`"`) && strings.Contains(p.Text, `"result":"`+result+`"`) {
				return true
			}
		}
	}
	return false
}
