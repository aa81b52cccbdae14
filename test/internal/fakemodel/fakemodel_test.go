package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const withTools = `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[]}`

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, b)
	}
	return string(b)
}

// dataLines returns the JSON objects of an SSE stream's data lines.
func dataLines(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(stream, "\n") {
		d, ok := strings.CutPrefix(line, "data: ")
		if !ok || d == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(d), &m); err != nil {
			t.Fatalf("data line %q: %v", d, err)
		}
		out = append(out, m)
	}
	return out
}

func TestAnthropic(t *testing.T) {
	s := Start(t,
		Turn{Text: "running", Calls: []Call{{Name: "Bash", Args: map[string]any{"command": "ls"}}}},
		Turn{Text: "done"})
	out := post(t, s.URL+"/v1/messages?beta=true", withTools)
	for _, want := range []string{
		"event: message_start", `"type":"tool_use"`, `"name":"Bash"`, `"id":"call_0_0"`,
		`"partial_json":"{\"command\":\"ls\"}"`, `"stop_reason":"tool_use"`, "event: message_stop",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("first turn lacks %s:\n%s", want, out)
		}
	}
	ev := dataLines(t, out)
	if ev[0]["type"] != "message_start" || ev[len(ev)-1]["type"] != "message_stop" {
		t.Errorf("events %v", ev)
	}
	out = post(t, s.URL+"/v1/messages?beta=true", `{"stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0_0"}]}]}`)
	if !strings.Contains(out, `"text":"done"`) || !strings.Contains(out, `"stop_reason":"end_turn"`) {
		t.Errorf("second turn:\n%s", out)
	}
	// A side request (no tools) consumes no turn; a non-streaming one is JSON.
	out = post(t, s.URL+"/v1/messages", `{"model":"m","messages":[]}`)
	var msg map[string]any
	if err := json.Unmarshal([]byte(out), &msg); err != nil || msg["type"] != "message" || !strings.Contains(out, `"text":"ok"`) {
		t.Errorf("side request: %v %s", err, out)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Turn != 0 || reqs[1].Turn != 1 || reqs[2].Turn != -1 || reqs[0].Dialect != Anthropic {
		t.Errorf("log = %+v", reqs)
	}
	if !strings.Contains(string(reqs[1].Body), "tool_result") || reqs[0].Path != "/v1/messages?beta=true" {
		t.Errorf("logged body/path = %s %s", reqs[1].Body, reqs[0].Path)
	}
	// Past the script's end.
	if out := post(t, s.URL+"/v1/messages", withTools); !strings.Contains(out, "script exhausted") {
		t.Errorf("exhausted script:\n%s", out)
	}
}

func TestResponses(t *testing.T) {
	s := Start(t, Turn{Calls: []Call{{Name: "ping", Namespace: "mcp__paneflow", Args: map[string]any{"x": 1}, ID: "c1"}}})
	out := post(t, s.URL+"/v1/responses", `{"model":"m","tools":[{"type":"function","name":"shell"}],"stream":true}`)
	ev := dataLines(t, out)
	if ev[0]["type"] != "response.created" || ev[len(ev)-1]["type"] != "response.completed" {
		t.Fatalf("events: %v", ev)
	}
	var call map[string]any
	for _, e := range ev {
		if e["type"] == "response.output_item.done" {
			call = e["item"].(map[string]any)
		}
	}
	if call["type"] != "function_call" || call["namespace"] != "mcp__paneflow" || call["name"] != "ping" || call["call_id"] != "c1" || call["arguments"] != `{"x":1}` {
		t.Errorf("call item = %v", call)
	}
}

func TestChat(t *testing.T) {
	s := Start(t, Turn{Text: "hi", Calls: []Call{{Name: "bash", Args: map[string]any{"command": "ls"}}}})
	// opencode's title request has no tools: a side request.
	s.SetSide("A title")
	if out := post(t, s.URL+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[]}`); !strings.Contains(out, `"content":"A title"`) || !strings.HasSuffix(out, "data: [DONE]\n\n") {
		t.Errorf("side:\n%s", out)
	}
	out := post(t, s.URL+"/v1/chat/completions", `{"model":"m","stream":true,"tools":[{"type":"function"}],"messages":[]}`)
	ev := dataLines(t, out)
	last := ev[len(ev)-1]["choices"].([]any)[0].(map[string]any)
	if last["finish_reason"] != "tool_calls" || !strings.Contains(out, `"name":"bash"`) || !strings.Contains(out, `"arguments":"{\"command\":\"ls\"}"`) {
		t.Errorf("tool call stream:\n%s", out)
	}
	if s.Turns() != 1 {
		t.Errorf("turns = %d, want 1", s.Turns())
	}
}

func TestGemini(t *testing.T) {
	s := Start(t, Turn{Calls: []Call{{Name: "run_shell_command", Args: map[string]any{"command": "ls"}}}}, Turn{Text: "done"})
	body := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
	out := post(t, s.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", body)
	ev := dataLines(t, out)
	parts := ev[0]["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)
	fc := parts[0].(map[string]any)["functionCall"].(map[string]any)
	if fc["name"] != "run_shell_command" || fc["args"].(map[string]any)["command"] != "ls" {
		t.Errorf("function call = %v", fc)
	}
	out = post(t, s.URL+"/v1beta/models/gemini-2.5-flash:generateContent", body)
	if !strings.Contains(out, `"text":"done"`) || !strings.Contains(out, `"finishReason":"STOP"`) {
		t.Errorf("generateContent:\n%s", out)
	}
	if r := s.Requests(); r[0].Dialect != Gemini || r[1].Turn != 1 {
		t.Errorf("log = %+v", r)
	}
}

func TestHold(t *testing.T) {
	hold := make(chan struct{})
	s := Start(t, Turn{Text: "late", Hold: hold})
	got := make(chan string)
	go func() {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(withTools))
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	if !s.WaitTurns(1, nil) {
		t.Fatal("WaitTurns returned false")
	}
	select {
	case out := <-got:
		t.Fatalf("a held turn answered before its release: %s", out)
	default:
	}
	close(hold)
	if out := <-got; !strings.Contains(out, `"text":"late"`) {
		t.Errorf("released turn:\n%s", out)
	}
}

func TestUnknownPath(t *testing.T) {
	s := Start(t)
	resp, err := http.Post(s.URL+"/v2/whatever", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d, want 404", resp.StatusCode)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Dialect != "" || r[0].Turn != -1 {
		t.Errorf("log = %+v", r)
	}
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL %s is not loopback", s.URL)
	}
}

// TestUsage: every dialect reports a turn's usage in its own fields, ids
// differ per answer, and the log records what each request was told.
func TestUsage(t *testing.T) {
	u := Usage{Input: 100, CacheRead: 30, CacheWrite: 5, Output: 12, Reasoning: 4}
	side := Usage{Input: 7, Output: 3}
	s := Start(t, Turn{Text: "a", Usage: &u}, Turn{Text: "b"}, Turn{Text: "c"}, Turn{Text: "d"})
	s.SetSideUsage(side)
	num := func(m map[string]any, path ...string) float64 {
		var v any = m
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v.(float64)
	}

	ev := dataLines(t, post(t, s.URL+"/v1/messages", withTools))
	start := ev[0]["message"].(map[string]any)
	usage := start["usage"].(map[string]any)
	delta := ev[len(ev)-2]["usage"].(map[string]any)
	if num(usage, "input_tokens") != 100 || num(usage, "cache_read_input_tokens") != 30 || num(usage, "cache_creation_input_tokens") != 5 ||
		num(delta, "output_tokens") != 12 || start["id"] != "msg_fake_0" {
		t.Errorf("anthropic: message_start %v, message_delta usage %v", start, delta)
	}

	want := TurnUsage(1)
	ev = dataLines(t, post(t, s.URL+"/v1/responses", `{"tools":[{"type":"function","name":"shell"}],"stream":true}`))
	resp := ev[len(ev)-1]["response"].(map[string]any)
	ru := resp["usage"].(map[string]any)
	if num(ru, "input_tokens") != float64(want.prompt()) || num(ru, "input_tokens_details", "cached_tokens") != float64(want.CacheRead) ||
		num(ru, "output_tokens") != float64(want.Output) || num(ru, "output_tokens_details", "reasoning_tokens") != float64(want.Reasoning) ||
		resp["id"] != "resp_fake_1" {
		t.Errorf("responses: %v", resp)
	}

	want = TurnUsage(2)
	ev = dataLines(t, post(t, s.URL+"/v1/chat/completions", `{"stream":true,"tools":[{"type":"function"}]}`))
	cu := ev[len(ev)-1]["usage"].(map[string]any)
	if num(cu, "prompt_tokens") != float64(want.prompt()) || num(cu, "prompt_tokens_details", "cached_tokens") != float64(want.CacheRead) ||
		num(cu, "completion_tokens") != float64(want.Output) || num(cu, "completion_tokens_details", "reasoning_tokens") != float64(want.Reasoning) {
		t.Errorf("chat: %v", cu)
	}

	want = TurnUsage(3)
	ev = dataLines(t, post(t, s.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[]}]}`))
	gu := ev[0]["usageMetadata"].(map[string]any)
	if num(gu, "promptTokenCount") != float64(want.prompt()) || num(gu, "cachedContentTokenCount") != float64(want.CacheRead) ||
		num(gu, "candidatesTokenCount") != float64(want.Output-want.Reasoning) || num(gu, "thoughtsTokenCount") != float64(want.Reasoning) {
		t.Errorf("gemini: %v", gu)
	}

	post(t, s.URL+"/v1/messages", `{"messages":[]}`) // a side request
	post(t, s.URL+"/v1/messages/count_tokens", `{}`)
	turns, sides := s.ReportedUsage()
	if wantTurns := u.Add(TurnUsage(1)).Add(TurnUsage(2)).Add(TurnUsage(3)); turns != wantTurns || sides != side {
		t.Errorf("ReportedUsage = %+v, %+v; want %+v, %+v", turns, sides, wantTurns, side)
	}
}
