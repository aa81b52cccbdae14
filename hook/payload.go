package hook

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// payloadKeys are the top-level payload keys Map reads; every other key is
// skipped without being decoded.
var payloadKeys = map[string]bool{
	// Claude Code, Codex hooks and Gemini CLI (snake_case).
	"hook_event_name":        true,
	"session_id":             true,
	"transcript_path":        true,
	"notification_type":      true,
	"message":                true,
	"prompt":                 true, // UserPromptSubmit (Claude Code), BeforeAgent (Gemini CLI)
	"title":                  true,
	"tool_name":              true,
	"tool_input":             true,
	"last_assistant_message": true,
	"prompt_response":        true, // Gemini AfterAgent
	"turn_id":                true, // a Codex extension
	"pid":                    true,
	"last_result":            true, // spec conductor.md §3: top-level summaries
	"summary":                true,
	"result":                 true,
	// Codex notify (kebab-case).
	"type":                   true,
	"thread-id":              true,
	"last-assistant-message": true,
	// opencode events and tool hooks.
	"properties": true,
	"tool":       true,
	"sessionID":  true,
}

// payload is the part of an agent's hook JSON that Map reads: the raw values
// of the keys in payloadKeys.
type payload map[string]json.RawMessage

// parsePayload reads the top-level object of data. It is tolerant of a cut:
// when data stops inside the object (stdin was over the cap, or the writer
// died), the keys that came before the cut are kept, so a huge PostToolUse
// still reports its tool_name. It reports false when data does not start
// with a JSON object at all (garbage, an array). Blank input is an empty
// payload: the event on the command line still happened (the original
// dropped it, so hooks fired with no stdin were lost).
func parsePayload(data []byte) (payload, bool) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return payload{}, true
	}
	if data[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	p := payload{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := tok.(string)
		if !ok {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		if payloadKeys[key] {
			p[key] = raw // the last duplicate wins, as in encoding/json
		}
	}
	return p, true
}

// str returns the string value of key, or "" when it is absent or not a
// string.
func (p payload) str(key string) string {
	return rawString(p[key])
}

// firstStr returns the first of keys whose value is a string that is not
// blank.
func (p payload) firstStr(keys ...string) string {
	for _, k := range keys {
		if s := p.str(k); strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// object decodes the object value of key into v, reporting success.
func (p payload) object(key string, v any) bool {
	raw := p[key]
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, v) == nil
}

// uint returns the value of key as an unsigned integer, accepting a JSON
// number or a decimal string.
func (p payload) uint(key string) (uint64, bool) {
	raw := p[key]
	if len(raw) == 0 {
		return 0, false
	}
	s := string(raw)
	if raw[0] == '"' {
		s = rawString(raw)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// rawString decodes raw if it is a JSON string.
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
