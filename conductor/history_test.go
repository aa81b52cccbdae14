package conductor

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/paneflow-go/paneflow/bus"
	"github.com/paneflow-go/paneflow/proto"
)

// TestHistory: the turns of an agent in a pane, from its frames: each
// prompt starts a turn, its tools are listed once each in order, ai.stop
// ends it with its result and duration; a prompt without a stop before
// the next is superseded; the log is bounded and goes with the pane.
func TestHistory(t *testing.T) {
	h := newHarness(t, Options{})
	pane := `"surface_id":1,"workspace_id":1,"tool":"claude"`
	h.mustSend(MethodSessionStart, `{`+pane+`}`)
	h.mustSend(MethodPromptSubmit, `{`+pane+`,"prompt":"fix the \u202etests"}`)
	h.clock.Advance(2 * time.Second)
	for _, tool := range []string{"Read", "Bash", "Read", "Edit"} {
		h.mustSend(MethodToolUse, `{`+pane+`,"tool_name":"`+tool+`"}`)
	}
	h.clock.Advance(time.Second)
	h.mustSend(MethodStop, `{`+pane+`,"last_result":"Edited main.go"}`)
	h.mustSend(MethodPromptSubmit, `{`+pane+`}`)
	h.clock.Advance(500 * time.Millisecond)
	h.mustSend(MethodPromptSubmit, `{`+pane+`}`)

	got := h.c.History(1)
	if len(got.Turns) != 3 {
		t.Fatalf("turns %+v, want 3", got.Turns)
	}
	first := got.Turns[0]
	if first.Tool != "claude" || fmt.Sprint(first.Tools) != "[Read Bash Edit]" || first.Result != "Edited main.go" ||
		first.End != "stop" || first.DurationMS == nil || *first.DurationMS != 3000 || first.EndedAt == nil || first.Prompt != "fix the tests" {
		t.Fatalf("first turn %+v; want its prompt (bidi control removed), claude, [Read Bash Edit], its result, stop after 3000 ms", first)
	}
	if p := got.Turns[1].Prompt; p != "" {
		t.Fatalf("second turn's prompt %q; its frame had none", p)
	}
	if second := got.Turns[1]; second.End != "superseded" || *second.DurationMS != 500 || second.Turn <= first.Turn {
		t.Fatalf("second turn %+v; want superseded after 500 ms", second)
	}
	if third := got.Turns[2]; third.End != "" || third.EndedAt != nil || third.DurationMS != nil {
		t.Fatalf("third turn %+v; want running", third)
	}
	if other := h.c.History(2); len(other.Turns) != 0 {
		t.Fatalf("pane 2: %+v, want no turns", other)
	}

	// ai.history over the method, and its params checked.
	res, err := h.c.aiHistory(t.Context(), json.RawMessage(`{"surface_id":1}`))
	if err != nil || len(res.(proto.AIHistoryResult).Turns) != 3 {
		t.Fatalf("ai.history = %+v, %v", res, err)
	}
	if _, err := h.c.aiHistory(t.Context(), json.RawMessage(`{}`)); err == nil {
		t.Fatal("ai.history without surface_id was accepted")
	}

	// Bounded: the newest AIHistoryMaxTurns are kept.
	for range proto.AIHistoryMaxTurns + 5 {
		h.mustSend(MethodPromptSubmit, `{`+pane+`}`)
		h.mustSend(MethodStop, `{`+pane+`,"last_result":"ok"}`)
	}
	if n := len(h.c.History(1).Turns); n != proto.AIHistoryMaxTurns {
		t.Fatalf("%d turns kept, want %d", n, proto.AIHistoryMaxTurns)
	}
	h.event(bus.SurfaceClosed{SurfaceID: 1, WorkspaceID: 1})
	if n := len(h.c.History(1).Turns); n != 0 {
		t.Fatalf("%d turns kept after the pane closed", n)
	}
}
