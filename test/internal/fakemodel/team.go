package fakemodel

import (
	"encoding/json"
	"strings"
)

// TeamScript is the script of a Claude Code agent-team run (the tests of
// test/agents and test/gui share it): the lead's first turn spawns one
// teammate per name with the Agent tool (name, description, prompt), as
// Claude Code's model does; every later turn, the teammates' and the
// lead's, answers with the text answer. prompts maps each name to its
// teammate's prompt, which only that teammate's requests carry.
func TeamScript(answer string, names ...string) (script []Turn, prompts map[string]string) {
	prompts = map[string]string{}
	var calls []Call
	for _, n := range names {
		prompts[n] = "Say hello to the lead, " + n + "."
		calls = append(calls, Call{Name: "Agent", Args: map[string]any{
			"name": n, "description": "say hello", "prompt": prompts[n], "subagent_type": "general-purpose"}})
	}
	script = []Turn{{Text: "Spawning the team.", Calls: calls}}
	// Each teammate asks a few times (its turn, then after its idle
	// notice), the lead once per message it receives: 30 turns per
	// teammate is far more than a run takes.
	for range 30 * max(len(names), 1) {
		script = append(script, Turn{Text: answer})
	}
	return script, prompts
}

// TeammateResult reports whether an Anthropic request body holds a user
// text with Claude Code's message from teammate name carrying result (how
// a lead hears back: `<teammate-message teammate_id="name" …>` with
// `"result":"…"`).
func TeammateResult(body []byte, name, result string) bool {
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
