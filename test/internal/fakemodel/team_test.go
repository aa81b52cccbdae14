package fakemodel

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestTeamScript(t *testing.T) {
	script, prompts := TeamScript("done", "alpha", "beta")
	if len(script) < 2 || len(script[0].Calls) != 2 {
		t.Fatalf("script = %+v", script)
	}
	for i, n := range []string{"alpha", "beta"} {
		args := script[0].Calls[i].Args.(map[string]any)
		if script[0].Calls[i].Name != "Agent" || args["name"] != n || args["prompt"] != prompts[n] {
			t.Errorf("call %d = %+v, want Agent for %s", i, script[0].Calls[i], n)
		}
	}
	// No teammate's prompt is inside another's: a request names one.
	if strings.Contains(prompts["alpha"], prompts["beta"]) || strings.Contains(prompts["beta"], prompts["alpha"]) {
		t.Errorf("prompts overlap: %q", prompts)
	}
	if script[len(script)-1].Text != "done" {
		t.Errorf("last turn = %+v", script[len(script)-1])
	}
}

func TestTeammateResult(t *testing.T) {
	msg := `<teammate-message teammate_id="alpha" color="blue">{"type":"idle","result":"done"}</teammate-message>`
	body := func(content any) []byte {
		b, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": content}}})
		return b
	}
	for _, c := range []struct {
		body         []byte
		name, result string
		want         bool
	}{
		{body(msg), "alpha", "done", true},
		{body([]any{map[string]any{"type": "text", "text": msg}}), "alpha", "done", true},
		{body(msg), "beta", "done", false},
		{body(msg), "alpha", "other", false},
		{[]byte(`{"messages":[{"role":"assistant","content":` + strconv.Quote(msg) + `}]}`), "alpha", "done", false},
		{[]byte("not json"), "alpha", "done", false},
	} {
		if got := TeammateResult(c.body, c.name, c.result); got != c.want {
			t.Errorf("TeammateResult(%s, %s, %s) = %v", c.body, c.name, c.result, got)
		}
	}
}
