package usage

import (
	"bytes"
	"encoding/json"
	"time"
)

// Record is one model response's usage, as an agent recorded it: when,
// which model, the tokens it added (for a record the agent rewrote, only
// the growth), and the cost the agent itself recorded (opencode), which
// counts only when the price table does not know the model.
type Record struct {
	At        time.Time // zero when the agent recorded no time
	Model     string
	Tokens    Tokens
	AgentCost Nanos
}

// format reads one agent's session record, one line at a time. line is
// given each complete line (without its newline) in file order and calls
// emit for the usage it holds; reset forgets what earlier lines said (the
// file was truncated). A format is used by one goroutine at a time.
type format interface {
	line(b []byte, emit func(Record))
	reset()
}

// formatFor returns a new reader for tool's records, or nil for a tool
// whose records Paneflow does not read.
func formatFor(tool string) format {
	switch tool {
	case "claude":
		return &claudeFormat{seen: newRecent()}
	case "codex":
		return &codexFormat{}
	case "gemini":
		return &geminiFormat{seen: newRecent()}
	case "opencode":
		return &opencodeFormat{seen: newRecent()}
	}
	return nil
}

// Tools lists the agents whose records Paneflow reads, and what it reads
// of each (the README's compatibility table says the same).
var Tools = map[string]string{
	"claude":   "transcript JSONL: usage of each assistant message (cache reads and writes), subagents' transcripts too",
	"codex":    "session rollout JSONL: token_count events",
	"gemini":   "chat recording JSONL: tokens of each gemini message",
	"opencode": "assistant messages (tokens, cost) written by Paneflow's per-launch plugin",
}

// recent remembers the usage last counted for the most recent record ids,
// so that a record an agent writes again (Claude Code writes one line per
// content block of a message, Gemini CLI and opencode rewrite a message as
// it grows) is counted once, by its growth. Records are rewritten soon
// after they are first written; the oldest ids are forgotten past
// recentSize.
type recent struct {
	m     map[string]recentEntry
	order []string // ids by first sight, a ring of recentSize
	next  int
}

type recentEntry struct {
	t    Tokens
	cost Nanos
}

// recentSize bounds the ids remembered per file.
const recentSize = 1024

func newRecent() *recent { return &recent{m: map[string]recentEntry{}} }

// growth records id's usage now (t, cost) and returns what it added to
// what was counted for id before.
func (r *recent) growth(id string, t Tokens, cost Nanos) (Tokens, Nanos) {
	old, ok := r.m[id]
	if !ok {
		if len(r.order) < recentSize {
			r.order = append(r.order, id)
		} else {
			delete(r.m, r.order[r.next])
			r.order[r.next] = id
			r.next = (r.next + 1) % recentSize
		}
	}
	r.m[id] = recentEntry{t: t, cost: cost}
	return t.since(old.t), max(cost-old.cost, 0)
}

func (r *recent) clear() {
	clear(r.m)
	r.order, r.next = r.order[:0], 0
}

// emitGrowth emits a record for the growth of record id, if any.
func emitGrowth(seen *recent, id string, at time.Time, model string, t Tokens, cost Nanos, emit func(Record)) {
	d, dc := seen.growth(id, t, cost)
	if d != (Tokens{}) || dc != 0 {
		emit(Record{At: at, Model: model, Tokens: d, AgentCost: dc})
	}
}

// parseTime reads an RFC 3339 timestamp; the zero time when it is not one.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// claudeFormat reads a Claude Code transcript (2.1.332): an assistant
// line carries its message's usage (input_tokens, cache_read_input_tokens,
// cache_creation_input_tokens with its cache_creation.ephemeral_1h part,
// output_tokens) and model; a message of several content blocks is written
// as several lines with the same message id and request id.
type claudeFormat struct{ seen *recent }

func (f *claudeFormat) reset() { f.seen.clear() }

func (f *claudeFormat) line(b []byte, emit func(Record)) {
	if !bytes.Contains(b, []byte(`"usage"`)) || !bytes.Contains(b, []byte(`"assistant"`)) {
		return
	}
	var l struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		RequestID string `json:"requestId"`
		Message   struct {
			ID    string `json:"id"`
			Model string `json:"model"`
			Usage *struct {
				Input         int64 `json:"input_tokens"`
				CacheRead     int64 `json:"cache_read_input_tokens"`
				CacheWrite    int64 `json:"cache_creation_input_tokens"`
				Output        int64 `json:"output_tokens"`
				CacheCreation struct {
					Hour int64 `json:"ephemeral_1h_input_tokens"`
				} `json:"cache_creation"`
			} `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(b, &l) != nil || l.Type != "assistant" || l.Message.Usage == nil {
		return
	}
	u := l.Message.Usage
	t := Tokens{Input: u.Input, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CacheWrite1h: min(u.CacheCreation.Hour, u.CacheWrite), Output: u.Output}
	id := l.Message.ID + "\x00" + l.RequestID
	if l.Message.ID == "" {
		id = string(b) // no id to tell repeats by: each line is its own
	}
	emitGrowth(f.seen, id, parseTime(l.Timestamp), l.Message.Model, t, 0, emit)
}

// codexFormat reads a Codex session rollout (0.169.0): event_msg lines of
// type token_count carry the session's running total
// (info.total_token_usage: input_tokens with its cached_input_tokens and
// cache_write_input_tokens, output_tokens with its
// reasoning_output_tokens) and the last response's (last_token_usage);
// turn_context lines name the model. What a token_count adds is its total
// minus the one before; the first one read (a rollout followed from its
// middle, as a resumed session's is) adds its last response.
type codexFormat struct {
	model    string
	total    Tokens
	hasTotal bool
}

func (f *codexFormat) reset() { *f = codexFormat{} }

// codexUsage is a token usage object of a Codex rollout.
type codexUsage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Reasoning  int64 `json:"reasoning_output_tokens"`
}

func (u codexUsage) tokens() Tokens {
	return Tokens{Input: max(u.Input-u.Cached-u.CacheWrite, 0), CacheRead: u.Cached, CacheWrite: u.CacheWrite,
		Output: u.Output, Reasoning: u.Reasoning}
}

func (f *codexFormat) line(b []byte, emit func(Record)) {
	switch {
	case bytes.Contains(b, []byte(`"turn_context"`)):
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Model string `json:"model"`
			} `json:"payload"`
		}
		if json.Unmarshal(b, &l) == nil && l.Type == "turn_context" && l.Payload.Model != "" {
			f.model = l.Payload.Model
		}
	case bytes.Contains(b, []byte(`"token_count"`)):
		var l struct {
			Timestamp string `json:"timestamp"`
			Type      string `json:"type"`
			Payload   struct {
				Type string `json:"type"`
				Info *struct {
					Total *codexUsage `json:"total_token_usage"`
					Last  *codexUsage `json:"last_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(b, &l) != nil || l.Type != "event_msg" || l.Payload.Type != "token_count" || l.Payload.Info == nil || l.Payload.Info.Total == nil {
			return
		}
		total := l.Payload.Info.Total.tokens()
		var d Tokens
		switch {
		case f.hasTotal && total.Total() >= f.total.Total():
			d = total.since(f.total)
		case l.Payload.Info.Last != nil:
			// The first total read, or a total that went down (a new
			// count): what the last response used.
			d = l.Payload.Info.Last.tokens()
		}
		f.total, f.hasTotal = total, true
		if d != (Tokens{}) {
			emit(Record{At: parseTime(l.Timestamp), Model: f.model, Tokens: d})
		}
	}
}

// geminiFormat reads a Gemini CLI chat recording (0.61.0, JSONL): a
// message of type "gemini" carries its tokens (input with its cached part,
// output, thoughts, tool) and model, and is written again, whole, as it
// gains tool calls; "$set" lines update the session's metadata.
type geminiFormat struct{ seen *recent }

func (f *geminiFormat) reset() { f.seen.clear() }

func (f *geminiFormat) line(b []byte, emit func(Record)) {
	if !bytes.Contains(b, []byte(`"tokens"`)) || !bytes.Contains(b, []byte(`"gemini"`)) {
		return
	}
	var l struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Model     string `json:"model"`
		Tokens    *struct {
			Input    int64 `json:"input"`
			Output   int64 `json:"output"`
			Cached   int64 `json:"cached"`
			Thoughts int64 `json:"thoughts"`
			Tool     int64 `json:"tool"`
		} `json:"tokens"`
	}
	if json.Unmarshal(b, &l) != nil || l.Type != "gemini" || l.Tokens == nil {
		return
	}
	k := l.Tokens
	t := Tokens{Input: max(k.Input-k.Cached, 0) + k.Tool, CacheRead: k.Cached, Output: k.Output + k.Thoughts, Reasoning: k.Thoughts}
	id := l.ID
	if id == "" {
		id = string(b)
	}
	emitGrowth(f.seen, id, parseTime(l.Timestamp), l.Model, t, 0, emit)
}

// opencodeFormat reads the lines Paneflow's opencode plugin writes
// (shim.OpencodePlugin): opencode's own assistant message objects as its
// message.updated events carry them (1.18.33: tokens input, output,
// reasoning and cache read/write, cost in dollars, modelID, time), each
// time a message's tokens change.
type opencodeFormat struct{ seen *recent }

func (f *opencodeFormat) reset() { f.seen.clear() }

func (f *opencodeFormat) line(b []byte, emit func(Record)) {
	var l struct {
		ID      string  `json:"id"`
		Role    string  `json:"role"`
		ModelID string  `json:"modelID"`
		Cost    float64 `json:"cost"`
		Tokens  *struct {
			Input     int64 `json:"input"`
			Output    int64 `json:"output"`
			Reasoning int64 `json:"reasoning"`
			Cache     struct {
				Read  int64 `json:"read"`
				Write int64 `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
		Time struct {
			Created   int64 `json:"created"`
			Completed int64 `json:"completed"`
		} `json:"time"`
	}
	if json.Unmarshal(b, &l) != nil || l.Role != "assistant" || l.Tokens == nil || l.ID == "" {
		return
	}
	k := l.Tokens
	t := Tokens{Input: k.Input, CacheRead: k.Cache.Read, CacheWrite: k.Cache.Write, Output: k.Output + k.Reasoning, Reasoning: k.Reasoning}
	var at time.Time
	if ms := max(l.Time.Completed, l.Time.Created); ms > 0 {
		at = time.UnixMilli(ms)
	}
	emitGrowth(f.seen, l.ID, at, l.ModelID, t, nanosOf(max(l.Cost, 0)), emit)
}
