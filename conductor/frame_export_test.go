package conductor

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/paneflow-go/paneflow/ipc"
)

// TestFrameExported: Frame (the http-hook endpoint's way in) runs an ai.*
// frame as the socket does, and refuses a method that is not one, or bad
// params, with -32602.
func TestFrameExported(t *testing.T) {
	h := newHarness(t, Options{})
	res, err := h.c.Frame(MethodPromptSubmit, json.RawMessage(`{"surface_id":1,"workspace_id":1,"tool":"claude","session_id":"s1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ack, ok := res.(Ack); !ok || !ack.OK || ack.State == nil || *ack.State != Thinking {
		t.Fatalf("Frame = %#v", res)
	}
	var ie *ipc.Error
	for _, c := range []struct{ method, params string }{
		{"surface.list", `{}`},
		{"ai.history", `{"surface_id":1}`},
		{MethodStop, `{"surface_id":1,"tool":"bad tool!"}`},
	} {
		if _, err := h.c.Frame(c.method, json.RawMessage(c.params)); !errors.As(err, &ie) || ie.Code != ipc.CodeInvalidParams {
			t.Errorf("Frame(%s, %s) = %v; want -32602", c.method, c.params, err)
		}
	}
}
