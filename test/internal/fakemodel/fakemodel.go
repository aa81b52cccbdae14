// Package fakemodel is a scripted stand-in for the model APIs the real agent
// CLIs call, so tests can run Claude Code, Codex, Gemini CLI and opencode
// offline against 127.0.0.1. One server speaks all four wire formats,
// chosen by the request path:
//
//	POST /v1/messages                          Anthropic Messages (SSE when "stream": true)
//	POST /v1/responses                         OpenAI Responses SSE (Codex)
//	POST /v1/chat/completions                  OpenAI Chat Completions SSE (opencode)
//	POST /v1beta/models/M:streamGenerateContent  Gemini, with ?alt=sse
//	POST /v1beta/models/M:generateContent      Gemini, one JSON reply
//
// A test gives the server a script: one [Turn] per model request that
// offers tools (the agent's own turns). Requests without tools (titles,
// routing checks, token counts) are side requests: they get [Server.Side]
// and consume no turn. Each turn answers with text, with tool calls, or
// both, and may first wait until the test releases it ([Turn.Hold]), so a
// test can look at the agent while it is "thinking". Every request is
// logged with its body ([Server.Requests]) so a test can check what the
// CLI sent, for example a tool call's result. A turn past the end of the
// script answers "script exhausted".
//
// Every answer reports token usage in its dialect's own fields ([Usage]):
// a turn's [Turn.Usage], or distinct numbers derived from its index, and
// [Server.SetSideUsage] for side requests; the log records what each
// request was told ([Request.Usage]), so a test can check the totals an
// agent recorded to the token.
//
// Usage:
//
//	srv := fakemodel.Start(t,
//		fakemodel.Turn{Calls: []fakemodel.Call{{Name: "Bash", Args: map[string]any{"command": "sleep 1"}}}},
//		fakemodel.Turn{Text: "all done"})
//	// ANTHROPIC_BASE_URL=srv.URL, or base_url = srv.URL+"/v1", …
//
// The server listens on 127.0.0.1 only and stops when the test ends. All
// methods are safe for concurrent use.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Dialect is a model API's wire format.
type Dialect string

// The dialects the server speaks.
const (
	Anthropic Dialect = "anthropic" // Messages API
	Responses Dialect = "responses" // OpenAI Responses API
	Chat      Dialect = "chat"      // OpenAI Chat Completions API
	Gemini    Dialect = "gemini"    // Gemini generateContent
)

// Turn is the scripted answer to one model request that offers tools.
// The zero value answers with an empty text.
type Turn struct {
	// Text is the assistant's text, sent before any tool call.
	Text string
	// Calls are tool calls the model asks for, in order.
	Calls []Call
	// Hold, when not nil, delays the answer until it is closed (or the
	// server stops): the agent stays "thinking" meanwhile. The request is
	// logged, and [Server.WaitRequests] sees it, before the wait.
	Hold chan struct{}
	// Usage is the token usage the answer reports; nil reports
	// [TurnUsage] of the turn's index.
	Usage *Usage

	id string // the answer's position in the log, for its ids
}

// Usage is the token usage of one answer, in the split the dialects
// share. Each dialect reports it in its own fields:
//
//   - Anthropic: input_tokens = Input, cache_read_input_tokens =
//     CacheRead, cache_creation_input_tokens = CacheWrite, output_tokens =
//     Output (message_start carries output_tokens 1, message_delta the
//     total, as the real API streams it);
//   - Responses: input_tokens = Input+CacheRead+CacheWrite with
//     input_tokens_details.cached_tokens = CacheRead, output_tokens =
//     Output with output_tokens_details.reasoning_tokens = Reasoning;
//   - Chat: prompt_tokens = Input+CacheRead+CacheWrite with
//     prompt_tokens_details.cached_tokens = CacheRead, completion_tokens =
//     Output with completion_tokens_details.reasoning_tokens = Reasoning;
//   - Gemini: promptTokenCount = Input+CacheRead+CacheWrite,
//     cachedContentTokenCount = CacheRead, candidatesTokenCount =
//     Output-Reasoning, thoughtsTokenCount = Reasoning.
//
// The OpenAI and Gemini APIs have no cache writes: CacheWrite counts
// there as plain input.
type Usage struct {
	Input      int // input tokens neither read from nor written to a cache
	CacheRead  int // input tokens read from the prompt cache
	CacheWrite int // input tokens written to the prompt cache (Anthropic)
	Output     int // output tokens, reasoning included
	Reasoning  int // of Output, the reasoning ("thinking") tokens
}

// TurnUsage is the usage script turn i reports when its Usage is nil:
// numbers distinct per turn and per field, so a sum that counts a request
// twice or a field in the wrong place is off.
func TurnUsage(i int) Usage {
	return Usage{Input: 1000 + 10*i, CacheRead: 300 + 7*i, CacheWrite: 50 + 3*i, Output: 40 + 5*i, Reasoning: 8 + i}
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{Input: u.Input + v.Input, CacheRead: u.CacheRead + v.CacheRead, CacheWrite: u.CacheWrite + v.CacheWrite,
		Output: u.Output + v.Output, Reasoning: u.Reasoning + v.Reasoning}
}

// prompt is the whole input the answer counts: plain, cached and
// cache-written tokens.
func (u Usage) prompt() int { return u.Input + u.CacheRead + u.CacheWrite }

// Call is one tool call in a [Turn].
type Call struct {
	// Name is the tool's name as the agent offered it: "Bash" for Claude
	// Code, "shell"/"exec_command" for Codex, "run_shell_command" for
	// Gemini CLI, "bash" for opencode; an MCP tool's own name when
	// Namespace is set.
	Name string
	// Namespace is the Responses API namespace of an MCP tool
	// ("mcp__<server>"); other dialects ignore it.
	Namespace string
	// Args are the arguments, marshalled to a JSON object; nil is {}.
	Args any
	// ID is the call's id; "" picks one ("call_<turn>_<i>").
	ID string
}

// Request is one logged request.
type Request struct {
	Dialect Dialect // "" for a path the server does not know
	Method  string
	Path    string // with the query
	Body    []byte
	// Turn is the script index the request consumed, or -1 for a side
	// request (no tools offered) and an unknown path.
	Turn int
	// Usage is the usage the answer reported (zero for an unknown path
	// and the count_tokens and models endpoints).
	Usage Usage
}

// Server is a running fake model server. Create it with [Start].
type Server struct {
	// URL is the server's base URL, "http://127.0.0.1:PORT" (no path).
	URL string

	mu      sync.Mutex
	script  []Turn
	next    int
	side    string
	sideUse Usage
	reqs    []Request
	changed chan struct{} // closed and replaced when a request is logged
	done    chan struct{}
	srv     *http.Server
}

// Start starts a server answering with script and stops it when t ends.
func Start(t testing.TB, script ...Turn) *Server {
	t.Helper()
	s, err := New(script...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// New starts a server answering with script; the caller must Close it.
func New(script ...Turn) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: %w", err)
	}
	s := &Server{
		URL: "http://" + ln.Addr().String(), script: script, side: "ok",
		changed: make(chan struct{}), done: make(chan struct{}),
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server; held turns are released. It is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		return
	default:
	}
	close(s.done)
	s.mu.Unlock()
	s.srv.Close()
}

// Append adds turns to the end of the script.
func (s *Server) Append(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// SetSide sets the text of side requests (default "ok").
func (s *Server) SetSide(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.side = text
}

// SetSideUsage sets the usage side requests report (default zero).
func (s *Server) SetSideUsage(u Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sideUse = u
}

// ReportedUsage returns the sum of the usage reported to script turns (the
// requests that offered tools), the side requests' apart.
func (s *Server) ReportedUsage() (turns, side Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reqs {
		if r.Turn >= 0 {
			turns = turns.Add(r.Usage)
		} else {
			side = side.Add(r.Usage)
		}
	}
	return turns, side
}

// Requests returns a copy of the log, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Turns returns how many script turns have been taken.
func (s *Server) Turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// WaitTurns blocks until at least n script turns have been taken, or done
// is closed (then it returns false). Use it to know that the agent sent
// its n-th request, e.g. the one a held turn answers.
func (s *Server) WaitTurns(n int, done <-chan struct{}) bool {
	for {
		s.mu.Lock()
		got, ch := s.next, s.changed
		s.mu.Unlock()
		if got >= n {
			return true
		}
		select {
		case <-ch:
		case <-done:
			return false
		case <-s.done:
			return false
		}
	}
}

// dialectOf maps a request path to its dialect.
func dialectOf(path string) Dialect {
	switch {
	case path == "/v1/messages":
		return Anthropic
	case path == "/v1/responses":
		return Responses
	case path == "/v1/chat/completions":
		return Chat
	case strings.HasPrefix(path, "/v1beta/models/") && (strings.HasSuffix(path, ":streamGenerateContent") || strings.HasSuffix(path, ":generateContent")):
		return Gemini
	}
	return ""
}

// offersTools reports whether a request body offers the model tools.
func offersTools(body []byte) bool {
	var b struct {
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &b) != nil {
		return false
	}
	t := bytes.TrimSpace(b.Tools)
	return len(t) > 0 && !bytes.Equal(t, []byte("null")) && !bytes.Equal(t, []byte("[]"))
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	d := dialectOf(r.URL.Path)
	path := r.URL.Path
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	req := Request{Dialect: d, Method: r.Method, Path: path, Body: body, Turn: -1}
	var turn Turn
	side := true
	s.mu.Lock()
	if d != "" && r.Method == http.MethodPost && offersTools(body) {
		side = false
		req.Turn = s.next
		if s.next < len(s.script) {
			turn = s.script[s.next]
		} else {
			turn = Turn{Text: "script exhausted"}
		}
		if turn.Calls != nil {
			turn.Calls = append([]Call(nil), turn.Calls...)
			for i := range turn.Calls {
				if turn.Calls[i].ID == "" {
					turn.Calls[i].ID = fmt.Sprintf("call_%d_%d", s.next, i)
				}
			}
		}
		if turn.Usage == nil {
			u := TurnUsage(s.next)
			turn.Usage = &u
		}
		s.next++
	} else {
		u := s.sideUse
		turn = Turn{Text: s.side, Usage: &u}
	}
	if reportsUsage(d, r) {
		req.Usage = *turn.Usage
	}
	// Each answer has ids of its own, as the real APIs give: agents
	// tell their records apart by them.
	turn.id = strconv.Itoa(len(s.reqs))
	s.reqs = append(s.reqs, req)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	if !side && turn.Hold != nil {
		select {
		case <-turn.Hold:
		case <-s.done:
			return
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("request-id", "req_fake_"+turn.id)
	w.Header().Set("x-request-id", "req_fake_"+turn.id)
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 1})
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 1})
	case d == Anthropic:
		var b struct {
			Stream bool   `json:"stream"`
			Model  string `json:"model"`
		}
		json.Unmarshal(body, &b)
		if b.Stream {
			anthropicSSE(w, b.Model, turn)
		} else {
			writeJSON(w, anthropicMessage(b.Model, turn))
		}
	case d == Responses:
		responsesSSE(w, turn)
	case d == Chat:
		chatSSE(w, turn)
	case d == Gemini:
		if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
			sse(w)
			event(w, "", geminiChunk(turn))
		} else {
			writeJSON(w, geminiChunk(turn))
		}
	default:
		http.Error(w, "fakemodel: no such endpoint", http.StatusNotFound)
	}
}

// reportsUsage reports whether the answer to r carries a turn's usage:
// a model request of a known dialect, not the token counting and model
// listing endpoints.
func reportsUsage(d Dialect, r *http.Request) bool {
	return d != "" && r.Method == http.MethodPost && !strings.HasSuffix(r.URL.Path, "/count_tokens") &&
		!strings.HasSuffix(r.URL.Path, ":countTokens")
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse starts an event stream.
func sse(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

// event writes one server-sent event (name "" writes data only) and
// flushes it.
func event(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if name != "" {
		fmt.Fprintf(&buf, "event: %s\n", name)
	}
	if s, ok := data.(string); ok {
		fmt.Fprintf(&buf, "data: %s\n\n", s)
	} else {
		j, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "data: %s\n\n", j)
	}
	w.Write(buf.Bytes())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// argsJSON is a call's arguments as a JSON object text.
func argsJSON(c Call) string {
	if c.Args == nil {
		return "{}"
	}
	if raw, ok := c.Args.(json.RawMessage); ok {
		return string(raw)
	}
	if s, ok := c.Args.(string); ok {
		return s
	}
	j, err := json.Marshal(c.Args)
	if err != nil {
		return "{}"
	}
	return string(j)
}

func anthropicMessage(model string, t Turn) map[string]any {
	content := []any{}
	if t.Text != "" || len(t.Calls) == 0 {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for _, c := range t.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(argsJSON(c))})
	}
	stop := "end_turn"
	if len(t.Calls) > 0 {
		stop = "tool_use"
	}
	return map[string]any{
		"id": "msg_fake_" + t.id, "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": stop, "stop_sequence": nil, "usage": anthropicUsage(*t.Usage, t.Usage.Output),
	}
}

// anthropicUsage is u in the Messages API's fields, with output tokens.
func anthropicUsage(u Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead,
		"output_tokens": output,
	}
}

func anthropicSSE(w http.ResponseWriter, model string, t Turn) {
	sse(w)
	event(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake_" + t.id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(*t.Usage, 1),
	}})
	i := 0
	if t.Text != "" || len(t.Calls) == 0 {
		event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": t.Text}})
		event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for _, c := range t.Calls {
		event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": argsJSON(c)}})
		event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	stop := "end_turn"
	if len(t.Calls) > 0 {
		stop = "tool_use"
	}
	event(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": t.Usage.Output}})
	event(w, "message_stop", map[string]any{"type": "message_stop"})
}

func responsesSSE(w http.ResponseWriter, t Turn) {
	sse(w)
	resp := map[string]any{"id": "resp_fake_" + t.id, "object": "response", "status": "in_progress", "output": []any{}}
	event(w, "response.created", map[string]any{"type": "response.created", "response": resp})
	var items []any
	if t.Text != "" || len(t.Calls) == 0 {
		items = append(items, map[string]any{
			"type": "message", "id": "msg_fake_" + t.id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.Text, "annotations": []any{}}},
		})
	}
	for _, c := range t.Calls {
		item := map[string]any{"type": "function_call", "id": "fc_" + c.ID, "call_id": c.ID, "name": c.Name, "arguments": argsJSON(c), "status": "completed"}
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		items = append(items, item)
	}
	for i, it := range items {
		event(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		if m := it.(map[string]any); m["type"] == "message" {
			event(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": "msg_fake_" + t.id, "output_index": i, "content_index": 0, "delta": t.Text})
		}
		event(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	resp["status"], resp["output"] = "completed", items
	u := *t.Usage
	resp["usage"] = map[string]any{
		"input_tokens": u.prompt(), "input_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens": u.prompt() + u.Output,
	}
	event(w, "response.completed", map[string]any{"type": "response.completed", "response": resp})
}

func chatSSE(w http.ResponseWriter, t Turn) {
	sse(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake-" + t.id, "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	event(w, "", chunk(map[string]any{"role": "assistant", "content": t.Text}, nil))
	for i, c := range t.Calls {
		event(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": argsJSON(c)},
		}}}, nil))
	}
	finish := "stop"
	if len(t.Calls) > 0 {
		finish = "tool_calls"
	}
	last := chunk(map[string]any{}, finish)
	u := *t.Usage
	last["usage"] = map[string]any{
		"prompt_tokens": u.prompt(), "prompt_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		"completion_tokens": u.Output, "completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens": u.prompt() + u.Output,
	}
	event(w, "", last)
	event(w, "", "[DONE]")
}

func geminiChunk(t Turn) map[string]any {
	var parts []any
	if t.Text != "" || len(t.Calls) == 0 {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for _, c := range t.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": json.RawMessage(argsJSON(c)), "id": c.ID}})
	}
	return map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": geminiUsage(*t.Usage),
		"modelVersion":  "fake-model",
		"responseId":    "resp_fake_" + t.id,
	}
}

// geminiUsage is u as a Gemini usageMetadata object.
func geminiUsage(u Usage) map[string]any {
	m := map[string]any{
		"promptTokenCount": u.prompt(), "candidatesTokenCount": u.Output - u.Reasoning,
		"totalTokenCount": u.prompt() + u.Output,
	}
	if u.CacheRead > 0 {
		m["cachedContentTokenCount"] = u.CacheRead
	}
	if u.Reasoning > 0 {
		m["thoughtsTokenCount"] = u.Reasoning
	}
	return m
}
