package proto

import (
	"encoding/json"
	"strconv"
)

// Wait modes of [SurfaceWaitParams].
const (
	WaitAny = "any" // done when one of the panes is done
	WaitAll = "all" // done when every one of them is
)

// SurfaceWaitParams are surface.wait's params: a wait, pushed by the
// panes' output, until output that arrived after the call matches
// Pattern (a Go regexp, ^ and $ anchored per line) or, with IdleMS, a pane
// printed nothing for that long; in one pane (WaitAny) or every pane
// (WaitAll). A Long method: the client's timeout must exceed TimeoutMS.
type SurfaceWaitParams struct {
	SurfaceIDs []uint64 `json:"surface_ids"`
	Pattern    string   `json:"pattern,omitempty"`
	// Mode is WaitAny or WaitAll ("": any).
	Mode   string `json:"mode,omitempty"`
	IdleMS *int64 `json:"idle_ms,omitempty"`
	// TimeoutMS ends the wait with CodeTimeout (nil: 300 s).
	TimeoutMS *int64 `json:"timeout_ms,omitempty"`
	// FromStart counts the text already in the panes as new, so a wait
	// issued right after starting a pane cannot miss its first output.
	FromStart bool `json:"from_start,omitempty"`
	// Send, when set, is a [SurfaceSendTextParams] (see [RawJSON]; its
	// surface_id is the watched pane's) carried out once the baseline is
	// taken: output the text provokes, however fast, counts as new. The
	// wait for the pane's input (input_wait_ms) comes first, and
	// timeout_ms counts from when the text was typed. The flow engine's
	// barriers use it. It needs exactly one pane.
	Send json.RawMessage `json:"send,omitempty"`
	// InputReady is refused: it was a separate wait for what
	// surface.send_text's input_wait_ms now does; a client still sending
	// it is told so.
	InputReady bool `json:"input_ready,omitempty"`
}

// AppendJSON appends p's JSON encoding (see the package's params types).
func (p SurfaceWaitParams) AppendJSON(dst []byte) []byte {
	o := openObject(dst)
	o.uints("surface_ids", p.SurfaceIDs)
	o.strOmit("pattern", p.Pattern)
	o.strOmit("mode", p.Mode)
	o.int64Ptr("idle_ms", p.IdleMS)
	o.int64Ptr("timeout_ms", p.TimeoutMS)
	o.boolOmit("from_start", p.FromStart)
	o.rawOmit("send", p.Send)
	o.boolOmit("input_ready", p.InputReady)
	return o.close()
}

// WaitMatch is one pane's matching lines in a [SurfaceWaitResult] (at
// most 100).
type WaitMatch struct {
	SurfaceID uint64   `json:"surface_id"`
	Lines     []string `json:"lines"`
}

// SurfaceWaitResult is surface.wait's result: Matched (the pattern) or
// Idle, the panes that were done, and for a match their lines.
type SurfaceWaitResult struct {
	Matched bool        `json:"matched"`
	Idle    bool        `json:"idle"`
	Panes   []uint64    `json:"panes"`
	Matches []WaitMatch `json:"matches"`
	// Sent is surface.send_text's result for a request with Send.
	Sent *SurfaceSendTextResult `json:"sent,omitempty"`
}

// SetSurfaceID returns the params object raw with its surface_id member
// set to id and the others kept (a surface.wait's Send for the watched
// pane). The error, for raw that is not an object, is encoding/json's.
func SetSurfaceID(raw json.RawMessage, id uint64) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m["surface_id"] = strconv.AppendUint(nil, id, 10)
	return json.Marshal(m)
}
